package records

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// The graph links a file to the definers of each name it uses, once per name, the weight shared among
// the definers; a name with more than MaxDefiners definers links nothing, and links add up both ways.
func TestGraphEdges(t *testing.T) {
	files := map[string]string{
		"a.go": "package p\n\nfunc A() {\n\tUnique()\n\tUnique()\n\tShared()\n\tCommon()\n\tfmt.Println()\n}\n",
		"b.go": "package p\n\nfunc Unique() { A() }\n",
		"c.go": "package p\n\nfunc Shared() {}\n",
		"d.go": "package p\n\nfunc Shared() {}\n",
	}
	for i := 0; i <= MaxDefiners; i++ {
		files[fmt.Sprintf("common%d.go", i)] = "package p\n\nfunc Common() {}\n"
	}
	g := testGraph(t, files)
	edges := func(p string) map[string]float64 {
		out := map[string]float64{}
		i, _ := g.Node(p)
		for _, e := range g.Edges[i] {
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
		if !slices.IsSortedFunc(es, func(a, b Edge) int { return a.To - b.To }) {
			t.Errorf("%s: edges not sorted by target: %v", g.Nodes[i], es)
		}
	}
}

// testGraph parses the files and derives their reference graph as the index does.
func testGraph(t *testing.T, files map[string]string) *Graph {
	t.Helper()
	p := parse.NewParser()
	defer p.Close()
	recs := map[string]*Record{}
	var paths []string
	for name, text := range files {
		f, err := p.Parse(context.Background(), name, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		recs[name] = &Record{Path: name, Language: f.Language, File: f}
		paths = append(paths, name)
	}
	sort.Strings(paths)
	symbols := map[string][]SymbolRef{}
	for _, path := range paths {
		for i, d := range recs[path].File.Definitions {
			if d.Name != "" && d.Kind != "section" {
				symbols[d.Name] = append(symbols[d.Name], SymbolRef{Path: path, Def: i})
			}
		}
	}
	return BuildGraph(paths, symbols, func(p string) *Record { return recs[p] })
}
