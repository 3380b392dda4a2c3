package entity

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/ctxmap/ctxmap/internal/words"
)

// Entity is one business term of the project and where it lives.
type Entity struct {
	Name          string    `json:"name"`       // UPPER_SNAKE: RULE, QUALITY_PROFILE
	Terms         []string  `json:"terms"`      // the stemmed words it stands for: [quality profile]
	Importance    float64   `json:"importance"` // 0..1, the most important entity has 1
	Centrality    string    `json:"centrality"` // core, feature, util, infrastructure
	Files         []string  `json:"files"`      // most relevant first: defines a type named after it, then by mentions
	Modules       []string  `json:"modules"`    // folders holding its files, those named after it first
	Related       []Related `json:"related"`    // by weight, at most maxRelated
	BusinessTerms []string  `json:"businessTerms"`
	Confidence    float64   `json:"confidence"` // 1 for terms seen in code; lower for terms inferred from history
	Inferred      bool      `json:"inferred,omitempty"`
}

// Related is another entity that lives in the same files, with an Ochiai-like co-occurrence weight.
type Related struct {
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
}

// Inferred is a term recovered from history for a file whose identifiers carry no meaning.
type Inferred struct {
	Term       string  `json:"term"`
	Confidence float64 `json:"confidence"`
}

// Map is the entity map of a workspace. It is immutable: safe for concurrent readers.
type Map struct {
	Entities []*Entity `json:"entities"` // by importance, then name

	byName   map[string]*Entity   // QUALITY_PROFILE
	byWords  map[string]*Entity   // "quality profile"
	joined   map[string]*Entity   // "qualityprofile"
	byTerm   map[string][]*Entity // every word of an entity -> entities, best first
	heads    map[string][]*Entity // last word of a compound -> compounds, best first
	files    map[string][]mention // path -> its entities (indexes in Entities), in no particular order
	inferred map[string][]Inferred
}

// Match is an entity mentioned in a text.
type Match struct {
	Entity *Entity
	Score  float64
	Words  []string // the text's stemmed words that named it, in order of appearance
}

// index builds the lookup tables from m.Entities, which are in their final order.
func (m *Map) index() {
	for _, e := range m.Entities {
		ws := strings.Join(e.Terms, " ")
		m.byName[e.Name] = e
		m.byWords[ws] = e
		seen := map[string]bool{}
		for _, t := range e.Terms {
			if !seen[t] {
				seen[t] = true
				m.byTerm[t] = append(m.byTerm[t], e)
			}
		}
		if len(e.Terms) > 1 {
			m.joined[strings.Join(e.Terms, "")] = e
			last := e.Terms[len(e.Terms)-1]
			m.heads[last] = append(m.heads[last], e)
		}
	}
}

// Get returns the entity of that name: "QUALITY_PROFILE", "quality_profile", "QualityProfile" and
// "quality profiles" all name QUALITY_PROFILE. nil when there is none.
func (m *Map) Get(name string) *Entity {
	if m == nil {
		return nil
	}
	if e := m.byName[strings.ToUpper(strings.TrimSpace(name))]; e != nil {
		return e
	}
	ws := normalized(name)
	if len(ws) == 0 {
		return nil
	}
	if e := m.byWords[strings.Join(ws, " ")]; e != nil {
		return e
	}
	return m.joined[strings.Join(ws, "")]
}

// Lookup returns the entities whose terms include the word (stemmed here), best first: "profile" finds
// PROFILE and QUALITY_PROFILE. Several words look up the compound they form.
func (m *Map) Lookup(term string) []*Entity {
	if m == nil {
		return nil
	}
	ws := normalized(term)
	switch len(ws) {
	case 0:
		return nil
	case 1:
		out := append([]*Entity(nil), m.byTerm[ws[0]]...)
		if e := m.joined[ws[0]]; e != nil && !containsEntity(out, e) {
			out = append(out, e)
			sortEntities(out)
		}
		return out
	}
	if e := m.byWords[strings.Join(ws, " ")]; e != nil {
		return []*Entity{e}
	}
	return nil
}

// FileEntities returns the names of the entities of a file, the ones it is most about first; files
// whose identifiers say nothing get the entities of their inferred terms.
func (m *Map) FileEntities(path string) []string {
	if m == nil {
		return nil
	}
	ms := slices.Clone(m.files[path])
	if len(ms) == 0 {
		return nil
	}
	slices.SortFunc(ms, func(x, y mention) int {
		if x.better(y) {
			return -1
		}
		if y.better(x) {
			return 1
		}
		return 0
	})
	names := make([]string, len(ms))
	for i, x := range ms {
		names[i] = m.Entities[x.entity].Name
	}
	return names
}

// InferredTerms returns, for a file whose identifiers carry no meaning (obfuscated or generated names),
// the terms of the commit messages that touched it, most consistent first. Other files have none.
func (m *Map) InferredTerms(path string) []Inferred {
	if m == nil {
		return nil
	}
	return append([]Inferred(nil), m.inferred[path]...)
}

// Match finds the entities a free text (an issue, a comment) mentions: adjacent words forming a compound
// ("quality profiles" -> QUALITY_PROFILE), single words, words written together ("qualityprofile"),
// and, with a lower score, a compound's last word alone ("profile" when no PROFILE entity exists).
// Best first. The score grows with the entity's importance, the share of its words present and the
// number of mentions.
func (m *Map) Match(text string) []Match {
	if m == nil || len(m.Entities) == 0 {
		return nil
	}
	type hit struct {
		n        int
		coverage float64
		words    []string
	}
	hits := map[*Entity]*hit{}
	var order []*Entity
	record := func(e *Entity, ws []string, coverage float64) {
		h := hits[e]
		if h == nil {
			h = &hit{}
			hits[e] = h
			order = append(order, e)
		}
		h.n++
		h.coverage = math.Max(h.coverage, coverage)
		for _, w := range ws {
			if !containsString(h.words, w) {
				h.words = append(h.words, w)
			}
		}
	}
	for _, seg := range phrases(text) {
		toks := tokens(seg)
		for i := 0; i < len(toks); {
			if toks[i] == "" {
				i++
				continue
			}
			n := m.compoundAt(toks, i)
			if n > 0 {
				record(m.byWords[strings.Join(toks[i:i+n], " ")], toks[i:i+n], 1)
				// "active rules" is about ACTIVE_RULE first, and about RULE too
				for _, w := range toks[i : i+n] {
					if e := m.byWords[w]; e != nil {
						record(e, []string{w}, 0.5)
					}
				}
				i += n
				continue
			}
			w := toks[i]
			switch {
			case m.byWords[w] != nil:
				record(m.byWords[w], toks[i:i+1], 1)
			case m.joined[w] != nil:
				record(m.joined[w], toks[i:i+1], 1)
			default:
				for j, e := range m.heads[w] {
					if j == 2 {
						break
					}
					record(e, toks[i:i+1], 0.5/float64(len(e.Terms)))
				}
			}
			i++
		}
	}
	if len(order) == 0 {
		return nil
	}
	out := make([]Match, 0, len(order))
	for _, e := range order {
		h := hits[e]
		score := (0.3 + 0.7*e.Importance) * e.Confidence * (1 + 0.5*float64(len(e.Terms)-1)) * h.coverage *
			(1 + 0.3*math.Log2(float64(h.n)))
		out = append(out, Match{Entity: e, Score: round(score, 4), Words: h.words})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Entity.Name < out[j].Entity.Name
	})
	return out
}

// compoundAt returns the length of the longest compound entity starting at toks[i], or 0.
func (m *Map) compoundAt(toks []string, i int) int {
	for n := maxCompound; n >= 2; n-- {
		if i+n > len(toks) {
			continue
		}
		ok := true
		for _, t := range toks[i : i+n] {
			if t == "" {
				ok = false
				break
			}
		}
		if ok && m.byWords[strings.Join(toks[i:i+n], " ")] != nil {
			return n
		}
	}
	return 0
}

// phrases cuts text where adjacency stops meaning anything: punctuation other than the separators
// inside identifiers (_ - . /), a full stop followed by a space, line breaks.
func phrases(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	cut := func(i int) {
		if i > start {
			out = append(out, string(rs[start:i]))
		}
		start = i + 1
	}
	for i, r := range rs {
		switch {
		case r == '.':
			if i+1 == len(rs) || unicode.IsSpace(rs[i+1]) {
				cut(i)
			}
		case r == '\n' || r == '\r':
			cut(i)
		case unicode.IsPunct(r) && r != '_' && r != '-' && r != '/':
			cut(i)
		}
	}
	cut(len(rs))
	return out
}

// tokens are the normalised words of a phrase; "" stands for a word that carries nothing, so that it
// still separates its neighbours.
func tokens(phrase string) []string {
	parts := words.Split(phrase)
	out := make([]string, len(parts))
	for i, p := range parts {
		if w := words.Normalize(p); w != "" && !noise[w] && (len(w) >= 3 || !shortNoise[w]) {
			out[i] = w
		}
	}
	return out
}

// normalized splits a name or term into its meaningful stemmed words.
func normalized(s string) []string {
	var out []string
	for _, p := range words.Split(s) {
		if w := words.Normalize(p); w != "" {
			out = append(out, w)
		}
	}
	return out
}

func sortEntities(es []*Entity) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Importance != es[j].Importance {
			return es[i].Importance > es[j].Importance
		}
		return es[i].Name < es[j].Name
	})
}

func containsEntity(es []*Entity, e *Entity) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
