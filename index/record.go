package index

import (
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/lexical"
	"github.com/ctxmap/ctxmap/internal/parse"
)

// Record is everything the index keeps about one file, keyed by its content hash so that a file that did
// not change is never parsed again. Records are immutable once published in a Snapshot.
type Record struct {
	Path     string
	Language string
	Hash     string
	Size     int64
	ModTime  int64 // unix nanoseconds, to skip reading files whose size and time did not change
	Lines    int
	Skip     string // why the content was not indexed ("binary", "minified", "generated"), else ""
	File     *parse.File
	Entity   entity.Contribution
	Chunks   []ChunkRef
}

// ChunkRef is a chunk without its text: enough to place a search hit.
type ChunkRef struct {
	ID        string
	Symbol    string
	Kind      string
	StartLine int
	EndLine   int
	Target    string          // a mapping's source (see Chunk)
	Terms     lexical.Lengths // terms per field, summed into BM25's collection statistics
}

func refsOf(cs []Chunk) []ChunkRef {
	out := make([]ChunkRef, len(cs))
	for i, c := range cs {
		out[i] = ChunkRef{ID: c.ID, Symbol: c.Symbol, Kind: c.Kind, StartLine: c.StartLine, EndLine: c.EndLine, Target: c.Target, Terms: c.Terms.Lengths()}
	}
	return out
}

func chunkIDs(r *Record) []string {
	if r == nil {
		return nil
	}
	ids := make([]string, len(r.Chunks))
	for i, c := range r.Chunks {
		ids[i] = c.ID
	}
	return ids
}
