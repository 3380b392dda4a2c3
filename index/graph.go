package index

import "sort"

// Graph links files through references: an edge A -> B when code in A names a symbol defined in B.
// Names defined in many files say little about which one is meant, so an edge's weight is shared among
// the definers, and names defined in more than maxDefiners files make no edge at all.
type Graph struct {
	Out map[string]map[string]float64
	In  map[string]map[string]float64
}

const maxDefiners = 6

func buildGraph(s *Snapshot) *Graph {
	g := &Graph{Out: map[string]map[string]float64{}, In: map[string]map[string]float64{}}
	for _, p := range s.Paths {
		r := s.Files[p]
		seen := map[string]bool{}
		for _, ref := range r.File.References {
			if seen[ref.Name] {
				continue
			}
			seen[ref.Name] = true
			defs := s.Symbols[ref.Name]
			if len(defs) == 0 || len(defs) > maxDefiners {
				continue
			}
			files := definerFiles(defs)
			w := 1 / float64(len(files))
			for _, f := range files {
				if f == p {
					continue
				}
				add(g.Out, p, f, w)
				add(g.In, f, p, w)
			}
		}
	}
	return g
}

func definerFiles(defs []SymbolRef) []string {
	var out []string
	for _, d := range defs {
		if len(out) == 0 || out[len(out)-1] != d.Path {
			out = append(out, d.Path)
		}
	}
	return out
}

func add(m map[string]map[string]float64, a, b string, w float64) {
	e := m[a]
	if e == nil {
		e = map[string]float64{}
		m[a] = e
	}
	e[b] += w
}

// PageRank spreads the seeds' weight over the graph (both directions: callers and callees matter), as a
// personalised PageRank with restart probability 1-damping to the seeds. It returns a score per file.
func (g *Graph) PageRank(seeds map[string]float64, damping float64, iters int) map[string]float64 {
	var total float64
	for _, w := range seeds {
		total += w
	}
	if total == 0 {
		return nil
	}
	restart := make(map[string]float64, len(seeds))
	for f, w := range seeds {
		restart[f] = w / total
	}
	rank := make(map[string]float64, len(restart))
	for f, w := range restart {
		rank[f] = w
	}
	for i := 0; i < iters; i++ {
		next := make(map[string]float64, len(rank)*2)
		for f, w := range restart {
			next[f] += (1 - damping) * w
		}
		// deterministic order: map iteration order must not change float sums
		files := make([]string, 0, len(rank))
		for f := range rank {
			files = append(files, f)
		}
		sort.Strings(files)
		for _, f := range files {
			r := rank[f]
			out, in := g.Out[f], g.In[f]
			var deg float64
			for _, w := range out {
				deg += w
			}
			for _, w := range in {
				deg += w
			}
			if deg == 0 {
				next[f] += damping * r // dangling: keep the mass where it is
				continue
			}
			for _, t := range sortedKeys(out) {
				next[t] += damping * r * out[t] / deg
			}
			for _, t := range sortedKeys(in) {
				next[t] += damping * r * in[t] / deg
			}
		}
		rank = next
	}
	return rank
}

func sortedKeys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
