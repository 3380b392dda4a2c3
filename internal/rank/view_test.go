package rank

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/vector"
)

// testSource is a Source over files parsed in the test: the searches find nothing.
type testSource struct {
	recs map[string]*records.Record
	src  map[string][]byte
}

func (s testSource) Record(p string) *records.Record   { return s.recs[p] }
func (s testSource) HasFile(p string) bool             { return s.recs[p] != nil }
func (s testSource) Folded(string) []string            { return nil }
func (s testSource) NamesWithLetters(string) []string  { return nil }
func (s testSource) Literals() []records.Literal       { return nil }
func (s testSource) ReadFile(p string) ([]byte, error) { return s.src[p], nil }

func (testSource) SearchLexical(context.Context, []bm25.Term, int) []bm25.Hit { return nil }
func (testSource) SearchVectors(context.Context, string, int) []vector.Hit    { return nil }

// testView parses the files the index would and derives their symbols and reference graph.
func testView(t *testing.T, files map[string]string) *View {
	t.Helper()
	p := parse.NewParser()
	defer p.Close()
	src := testSource{recs: map[string]*records.Record{}, src: map[string][]byte{}}
	v := &View{Source: src, Root: t.TempDir(), Symbols: map[string][]records.SymbolRef{}}
	for name, text := range files {
		if parse.LanguageOf(name) == "" {
			continue // not indexed
		}
		f, err := p.Parse(context.Background(), name, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		src.recs[name] = &records.Record{Path: name, Language: f.Language, Lines: strings.Count(text, "\n"), File: f}
		src.src[name] = []byte(text)
		v.Paths = append(v.Paths, name)
	}
	sort.Strings(v.Paths)
	for _, path := range v.Paths {
		for i, d := range src.recs[path].File.Definitions {
			if d.Name != "" && d.Kind != "section" {
				v.Symbols[d.Name] = append(v.Symbols[d.Name], records.SymbolRef{Path: path, Def: i})
			}
		}
	}
	v.Graph = records.BuildGraph(v.Paths, v.Symbols, src.Record)
	return v
}
