package records

import "slices"

// Graph links files through references: an edge between A and B when code in A names a symbol defined
// in B. Names defined in many files say little about which one is meant, so an edge's weight is shared
// among the definers, and names defined in more than MaxDefiners files make no edge at all. Callers and
// callees both matter for context, so the graph is kept undirected, as compact adjacency lists.
type Graph struct {
	Nodes []string       // file paths, sorted
	Edges [][]Edge       // per node, sorted by target
	index map[string]int // path -> node
}

// MaxDefiners is the most files a name may be defined in and still make edges.
const MaxDefiners = 6

// NewGraph is the graph of nodes (file paths, sorted) and their edges, as the state file keeps them.
func NewGraph(nodes []string, edges [][]Edge) *Graph {
	g := &Graph{Nodes: nodes, Edges: edges, index: make(map[string]int, len(nodes))}
	for i, p := range nodes {
		g.index[p] = i
	}
	return g
}

// Node is the number of a file's node, false when the file is not in the graph.
func (g *Graph) Node(path string) (int, bool) {
	i, ok := g.index[path]
	return i, ok
}

// BuildGraph derives the graph of paths (the parsed files, sorted) from their records and the symbols
// they define.
func BuildGraph(paths []string, symbols map[string][]SymbolRef, record func(path string) *Record) *Graph {
	n := len(paths)
	g := NewGraph(paths, make([][]Edge, n))
	// the names that make edges, numbered, with their definers' nodes
	ids := make(map[string]int, len(symbols))
	var definers [][]int
	for name, defs := range symbols {
		if len(defs) > MaxDefiners {
			continue
		}
		var nodes []int
		for _, f := range definerFiles(defs) {
			nodes = append(nodes, g.index[f])
		}
		ids[name] = len(definers)
		definers = append(definers, nodes)
	}
	// each node's links in the order they are found; summed per target after a stable sort, so that a
	// weight is always the same float sum
	links := make([][]Edge, n)
	last := make([]int, len(definers)) // the node whose references last named each name, plus one
	for i, p := range paths {
		for _, ref := range record(p).File.References {
			id, ok := ids[ref.Name]
			if !ok || last[id] == i+1 {
				continue
			}
			last[id] = i + 1
			nodes := definers[id]
			w := 1 / float64(len(nodes))
			for _, j := range nodes {
				if j != i {
					links[i] = append(links[i], Edge{To: j, Weight: w})
					links[j] = append(links[j], Edge{To: i, Weight: w})
				}
			}
		}
	}
	for i, ls := range links {
		if len(ls) == 0 {
			continue
		}
		slices.SortStableFunc(ls, func(a, b Edge) int { return a.To - b.To })
		k := 0
		for _, e := range ls {
			if k > 0 && ls[k-1].To == e.To {
				ls[k-1].Weight += e.Weight
				continue
			}
			ls[k] = e
			k++
		}
		g.Edges[i] = slices.Clone(ls[:k])
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
