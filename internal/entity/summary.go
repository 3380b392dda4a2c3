package entity

// Summary is an entity as the lists of entities show it.
type Summary struct {
	Name          string   `json:"name"`
	Importance    float64  `json:"importance"`
	Centrality    string   `json:"centrality"`
	Files         []string `json:"files"`
	Modules       []string `json:"modules"`
	Related       []string `json:"related"` // names, closest first
	Terms         []string `json:"terms"`
	BusinessTerms []string `json:"businessTerms"`
}

// Top are the summaries of the map's entities by importance, at most top.
func (m *Map) Top(top int) []Summary {
	out := []Summary{}
	for i, e := range m.Entities {
		if i == top {
			break
		}
		sum := Summary{Name: e.Name, Importance: e.Importance, Centrality: e.Centrality, Files: e.Files,
			Modules: e.Modules, Terms: e.Terms, BusinessTerms: e.BusinessTerms, Related: []string{}}
		for _, r := range e.Related {
			sum.Related = append(sum.Related, r.Name)
		}
		out = append(out, sum)
	}
	return out
}

// Shortened cuts each of the summary's lists to at most n.
func (e Summary) Shortened(n int) Summary {
	e.Files, e.Modules, e.Related = firstOf(e.Files, n), firstOf(e.Modules, n), firstOf(e.Related, n)
	e.Terms, e.BusinessTerms = firstOf(e.Terms, n), firstOf(e.BusinessTerms, n)
	return e
}

// firstOf is at most the first n of s.
func firstOf[T any](s []T, n int) []T { return s[:min(len(s), n)] }
