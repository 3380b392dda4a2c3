package rank

import (
	"fmt"
	"maps"
	"slices"
	"testing"
)

// The graph links a file to the definers of each name it uses, once per name, the weight shared among
// the definers; a name with more than maxDefiners definers links nothing, and links add up both ways.
func TestGraphEdges(t *testing.T) {
	files := map[string]string{
		"a.go": "package p\n\nfunc A() {\n\tUnique()\n\tUnique()\n\tShared()\n\tCommon()\n\tfmt.Println()\n}\n",
		"b.go": "package p\n\nfunc Unique() { A() }\n",
		"c.go": "package p\n\nfunc Shared() {}\n",
		"d.go": "package p\n\nfunc Shared() {}\n",
	}
	for i := 0; i <= maxDefiners; i++ {
		files[fmt.Sprintf("common%d.go", i)] = "package p\n\nfunc Common() {}\n"
	}
	g := testView(t, files).Graph
	edges := func(p string) map[string]float64 {
		out := map[string]float64{}
		for _, e := range g.Edges[g.index[p]] {
			out[g.Nodes[e.To]] = e.Weight
		}
		return out
	}
	want := map[string]map[string]float64{
		"a.go":       {"b.go": 2, "c.go": 0.5, "d.go": 0.5}, // Unique once, and b.go's call of A
		"b.go":       {"a.go": 2},
		"c.go":       {"a.go": 0.5},
		"d.go":       {"a.go": 0.5},
		"common0.go": {},
	}
	for p, w := range want {
		if got := edges(p); !maps.Equal(got, w) {
			t.Errorf("%s: edges %v, want %v", p, got, w)
		}
	}
	for i, es := range g.Edges {
		if !slices.IsSortedFunc(es, func(a, b GraphEdge) int { return a.To - b.To }) {
			t.Errorf("%s: edges not sorted by target: %v", g.Nodes[i], es)
		}
	}
}
