package records

import (
	"regexp"
	"strings"

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
	Entity   Contribution
	Chunks   []ChunkRef
}

// ChunkRef is a chunk without its text: enough to place a search hit.
type ChunkRef struct {
	ID        string
	Symbol    string
	Kind      string
	StartLine int
	EndLine   int
	Target    string  // a mapping's source file, for a chunk of a mapping file
	Terms     Lengths // terms per field, summed into BM25's collection statistics
}

// Lengths are the number of terms in each of a chunk's four search fields.
type Lengths [4]int32

// SymbolRef places one definition: the record of Path, File.Definitions[Def].
type SymbolRef struct {
	Path string
	Def  int
}

// Definition is the definition r points at in rec, the record of r.Path (nil when there is none).
func (r SymbolRef) Definition(rec *Record) (parse.Definition, bool) {
	if rec == nil || rec.File == nil || r.Def < 0 || r.Def >= len(rec.File.Definitions) {
		return parse.Definition{}, false
	}
	return rec.File.Definitions[r.Def], true
}

// Edge is one weighted link of the reference graph, to the node numbered To.
type Edge struct {
	To     int
	Weight float64
}

// Literal is a message-like string literal of the code, where it stands. Pieces are the fixed parts an
// error message must show to quote it (LiteralPieces); the state file keeps the rest.
type Literal struct {
	Path   string
	Line   int
	Text   string
	Pieces []string
}

var formatVerb = regexp.MustCompile(`%[-+# 0-9.*]*[a-zA-Z]|\{[^}]*\}|\$\{[^}]*\}`)

// LiteralPieces are the fixed parts of a (format) string, lower-cased; short pieces do not identify it.
func LiteralPieces(s string) []string {
	var out []string
	total := 0
	for _, p := range formatVerb.Split(strings.ToLower(s), -1) {
		p = strings.TrimSpace(p)
		if len(p) >= 4 {
			out = append(out, p)
			total += len(p)
		}
	}
	if total < 10 {
		return nil
	}
	return out
}
