package rank

import (
	"context"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/vector"
)

// View is what ranking reads of an index: one snapshot's data, never changed by a request, and the
// snapshot's lookups and searches through Source.
type View struct {
	Source
	Root     string                         // the workspace, absolute
	Paths    []string                       // the parsed files, sorted
	Symbols  map[string][]records.SymbolRef // definitions by name
	Entities *entity.Map                    // nil when the map is not made
	History  *history.Log                   // nil when history is not read
	Graph    *records.Graph                 // the reference graph of Paths
	// Generated is what the snapshot's requests learned of which files are generated copies;
	// nil: each request judges for itself
	Generated *Generated
	// Logf says what a request left out that it should have had (a ranked file without its parse);
	// nil says nothing
	Logf func(format string, args ...any)
}

// Source is what a view reads on demand.
type Source interface {
	// Record is the record of a file, nil when there is none.
	Record(path string) *records.Record
	// HasFile reports whether there is a record of a file, without reading it.
	HasFile(path string) bool
	// Folded are the symbol names that lower-case to lower, in the order of their first definitions.
	Folded(lower string) []string
	// NamesWithLetters are the symbol names, sorted, that hold every character of pattern, case folded.
	NamesWithLetters(pattern string) []string
	// Literals are the code's message-like strings.
	Literals() []records.Literal
	// ReadFile reads a workspace file (an editor's buffer when it has one).
	ReadFile(path string) ([]byte, error)
	// SearchLexical is BM25's best k chunks for the terms; an error leaves BM25 out, so it gives none.
	SearchLexical(ctx context.Context, terms []bm25.Term, k int) []bm25.Hit
	// SearchVectors is the k chunks nearest to the text; none when vectors are off or fail.
	SearchVectors(ctx context.Context, text string, k int) []vector.Hit
}

// parsed is the record of a file with its parse; nil for a file the index keeps without one (skipped
// as too large, minified, binary...) or does not keep, which a path from history or the graph can name.
func (r *ranker) parsed(p string) *records.Record {
	if rec := r.s.Record(p); rec != nil && rec.File != nil {
		return rec
	}
	return nil
}

// leftOut says in the log that a ranked file is left out of the pack, and why.
func (r *ranker) leftOut(p, why string) {
	if r.s.Logf != nil {
		r.s.Logf("pack: %s left out: %s", p, why)
	}
}

// Definition returns the definition a SymbolRef points at.
func (v *View) Definition(r records.SymbolRef) (parse.Definition, bool) {
	return r.Definition(v.Record(r.Path))
}
