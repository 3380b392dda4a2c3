package index

import "sort"

// Graph links files through references: an edge between A and B when code in A names a symbol defined
// in B. Names defined in many files say little about which one is meant, so an edge's weight is shared
// among the definers, and names defined in more than maxDefiners files make no edge at all. Callers and
// callees both matter for context, so the graph is kept undirected, as compact adjacency lists.
type Graph struct {
	Nodes []string       // file paths, sorted
	Edges [][]GraphEdge  // per node, sorted by target
	index map[string]int // path -> node
}

// GraphEdge is one weighted link.
type GraphEdge struct {
	To     int
	Weight float64
}

const maxDefiners = 6

func buildGraph(s *Snapshot) *Graph {
	g := &Graph{Nodes: s.Paths, Edges: make([][]GraphEdge, len(s.Paths)), index: make(map[string]int, len(s.Paths))}
	for i, p := range s.Paths {
		g.index[p] = i
	}
	acc := make([]map[int]float64, len(s.Paths))
	link := func(a, b int, w float64) {
		if acc[a] == nil {
			acc[a] = map[int]float64{}
		}
		acc[a][b] += w
	}
	for i, p := range s.Paths {
		seen := map[string]bool{}
		for _, ref := range s.Files[p].File.References {
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
				if j := g.index[f]; f != p {
					link(i, j, w)
					link(j, i, w)
				}
			}
		}
	}
	for i, m := range acc {
		es := make([]GraphEdge, 0, len(m))
		for j, w := range m {
			es = append(es, GraphEdge{To: j, Weight: w})
		}
		sort.Slice(es, func(a, b int) bool { return es[a].To < es[b].To })
		g.Edges[i] = es
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

// PageRank spreads the seeds' weight over the graph as a personalised PageRank with restart probability
// 1-damping to the seeds. It returns a score per file that received any.
func (g *Graph) PageRank(seeds map[string]float64, damping float64, iters int) map[string]float64 {
	n := len(g.Nodes)
	restart := make([]float64, n)
	var total float64
	for p, w := range seeds {
		if i, ok := g.index[p]; ok && w > 0 {
			restart[i] = w
		}
	}
	for _, w := range restart { // summed in node order: a float sum depends on its order
		total += w
	}
	if total == 0 {
		return nil
	}
	for i := range restart {
		restart[i] /= total
	}
	deg := make([]float64, n)
	for i, es := range g.Edges {
		for _, e := range es {
			deg[i] += e.Weight
		}
	}
	rank := append([]float64(nil), restart...)
	next := make([]float64, n)
	for it := 0; it < iters; it++ {
		for i := range next {
			next[i] = (1 - damping) * restart[i]
		}
		for i, r := range rank {
			if r == 0 {
				continue
			}
			if deg[i] == 0 {
				next[i] += damping * r // dangling: keep the mass where it is
				continue
			}
			for _, e := range g.Edges[i] {
				next[e.To] += damping * r * e.Weight / deg[i]
			}
		}
		rank, next = next, rank
	}
	out := map[string]float64{}
	for i, r := range rank {
		if r > 0 {
			out[g.Nodes[i]] = r
		}
	}
	return out
}
