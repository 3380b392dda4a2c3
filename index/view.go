package index

import (
	"context"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/rank"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/vector"
)

// view is what ranking reads of a snapshot: its data, its lookups, the files and the two searches.
func (ix *Index) view(s *Snapshot) *rank.View {
	return &rank.View{
		Source: source{s, ix}, Root: s.Root, Paths: s.Paths, Symbols: s.Symbols,
		Entities: s.Entities, History: s.History, Graph: s.Graph, Generated: &s.generated, Logf: ix.logf,
	}
}

// source answers a view's reads from one snapshot and the stores behind the index.
type source struct {
	*Snapshot
	ix *Index
}

func (v source) HasFile(path string) bool                 { return v.files.Has(path) }
func (v source) Folded(lower string) []string             { return v.folded(lower) }
func (v source) NamesWithLetters(pattern string) []string { return v.namesWithLetters(pattern) }
func (v source) Literals() []records.Literal              { return v.literals() }
func (v source) ReadFile(path string) ([]byte, error)     { return v.ix.ReadFile(path) }

func (v source) SearchLexical(ctx context.Context, terms []bm25.Term, k int) []bm25.Hit {
	hits, err := v.ix.lex.Search(ctx, terms, k, v.lexicalStats())
	if err != nil && ctx.Err() == nil { // an error leaves BM25 out of this answer, and says so
		v.ix.warn("BM25 left out of this answer: %v", err) // the store is checked in full at the next start
	}
	return hits
}

func (v source) SearchVectors(ctx context.Context, text string, k int) []vector.Hit {
	return v.ix.vectors.Search(ctx, text, k)
}

// ParseModel reads a learned ranker's model file (for Request.Model) and checks it against the
// features this build extracts.
func ParseModel(b []byte) (*Model, error) { return rank.Parse(b) }
