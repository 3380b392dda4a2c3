package store

import (
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/lexical"
	"github.com/ctxmap/ctxmap/internal/parse"
)

// Record is everything the index keeps about one file, keyed by its content hash so that a file that did
// not change is never parsed again. Records are immutable once published in a snapshot.
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
	Target    string          // a mapping's source file, for a chunk of a mapping file
	Terms     lexical.Lengths // terms per field, summed into BM25's collection statistics
}

// SymbolRef places one definition: the record of Path, File.Definitions[Def].
type SymbolRef struct {
	Path string
	Def  int
}

// Edge is one weighted link of the reference graph, to the node numbered To.
type Edge struct {
	To     int
	Weight float64
}

// Literal is a string literal of the code, where it stands.
type Literal struct {
	Path string
	Line int
	Text string
}
