package records

import (
	"fmt"
	"strings"

	"github.com/ctxmap/ctxmap/internal/mapping"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/words"
)

// Chunk limits: a definition's body is capped so one huge function does not drown the rest of its file.
const (
	maxChunkLines  = 120
	maxChunkBytes  = 6 << 10
	headerLines    = 40
	headerMaxBytes = 3 << 10
	maxWindows     = 15 // continuation chunks of one long definition
)

// Chunk is one searchable piece of a file: a definition with its (capped) body, or the file's header.
// The lexical store indexes it, the vector store embeds it, and the record keeps its ChunkRef.
type Chunk struct {
	ID        string // path#n
	Path      string
	Symbol    string // qualified name; "" for the file header
	Kind      string // a definition kind, or "file"
	StartLine int
	EndLine   int
	Name      string // words the chunk is named by (symbol and parent)
	Doc       string
	Code      string
	Target    string // a mapping's source: path or path::Symbol, which a hit on it ranks
}

// Chunks cuts a parsed file into chunks (mappings: the folders of mapping files). Only definitions that
// own a body worth searching get a chunk of their own (fields and variables live in their parent's
// chunk), so the count stays near one per function.
func Chunks(path string, f *parse.File, src []byte, mappings []string) []Chunk {
	lines := parse.SplitLines(src)
	out := []Chunk{header(path, f, lines)}
	if mapping.IsMappingFile(path, mappings) {
		entries, _ := mapping.Parse(path, src) // problems are for ctxmap mappings validate
		return append(out, mappingChunks(path, len(out), entries)...)
	}
	for i, d := range f.Definitions {
		if !Chunked(d) {
			continue
		}
		end := d.EndLine
		if end-d.StartLine+1 > maxChunkLines {
			end = d.StartLine + maxChunkLines - 1
		}
		code := words.Clip(parse.JoinLines(lines, d.StartLine, end), maxChunkBytes)
		name := d.Name
		if d.Parent != "" {
			name = d.Parent + " " + d.Name
		}
		out = append(out, Chunk{
			ID:        fmt.Sprintf("%s#%d", path, len(out)),
			Path:      path,
			Symbol:    d.Qualified(),
			Kind:      d.Kind,
			StartLine: d.StartLine,
			EndLine:   d.EndLine,
			Name:      name,
			Doc:       d.Doc,
			Code:      code,
		})
		if end == d.EndLine || holdsOther(f.Definitions, i) {
			continue // what lies past the cap of a class is in its members' chunks
		}
		// the rest of a long function in windows of its own, so that a word deep inside is still found
		for w := 0; end < d.EndLine && w < maxWindows; w++ {
			start := end + 1
			end = min(start+maxChunkLines-1, d.EndLine)
			out = append(out, Chunk{
				ID:        fmt.Sprintf("%s#%d", path, len(out)),
				Path:      path,
				Symbol:    d.Qualified(),
				Kind:      d.Kind,
				StartLine: start,
				EndLine:   end,
				Name:      name,
				Code:      words.Clip(parse.JoinLines(lines, start, end), maxChunkBytes),
			})
		}
	}
	return append(out, mappingChunks(path, len(out), mapping.Generated(path, f, src))...)
}

// mappingChunks index each mapping text on its own, linked to its source; the error messages the code
// raises are mappings too, so that a pasted message finds the definition that raises it.
func mappingChunks(path string, first int, entries []mapping.Entry) []Chunk {
	var out []Chunk
	for _, e := range entries {
		kind := e.Type
		if e.Language != "" {
			kind += " (" + e.Language + ")"
		}
		c := Chunk{ID: fmt.Sprintf("%s#%d", path, first+len(out)), Path: path, Symbol: kind, Kind: "mapping",
			StartLine: e.Line, EndLine: e.Line, Target: e.Source}
		switch e.Type {
		case "code_analog", "pseudocode":
			c.Code = words.Clip(e.Text, maxChunkBytes)
		default:
			c.Doc = words.Clip(e.Text, maxChunkBytes)
		}
		out = append(out, c)
	}
	return out
}

// Chunked tells the definitions that get a chunk of their own: those that own a body worth searching.
func Chunked(d parse.Definition) bool {
	switch d.Kind {
	case "field", "variable", "constant":
		return false
	}
	return d.EndLine >= d.StartLine
}

// holdsOther tells whether defs[i] holds another chunked definition (a class its methods).
func holdsOther(defs []parse.Definition, i int) bool {
	d := defs[i]
	for j, e := range defs {
		if j != i && Chunked(e) && e.StartLine >= d.StartLine && e.EndLine <= d.EndLine &&
			(e.StartLine != d.StartLine || e.EndLine != d.EndLine) {
			return true
		}
	}
	return false
}

// header is the file's first chunk: its path, imports, leading comments and first lines, so that a file
// is found by what it is about even when no single definition says so.
func header(path string, f *parse.File, lines [][]byte) Chunk {
	var doc strings.Builder
	for _, c := range f.Comments {
		if c.StartLine > headerLines {
			break
		}
		doc.WriteString(c.Text)
		doc.WriteByte('\n')
	}
	var names strings.Builder
	for _, d := range f.Definitions {
		if d.Parent == "" {
			names.WriteString(d.Name)
			names.WriteByte(' ')
		}
	}
	end := headerLines
	if end > len(lines) {
		end = len(lines)
	}
	return Chunk{
		ID:        path + "#0",
		Path:      path,
		Kind:      "file",
		StartLine: 1,
		EndLine:   len(lines),
		Name:      words.Clip(names.String(), headerMaxBytes),
		Doc:       words.Clip(doc.String(), headerMaxBytes),
		Code:      words.Clip(parse.JoinLines(lines, 1, end), headerMaxBytes),
	}
}

// Ref is the chunk without its text, with the number of terms in each of its search fields.
func (c Chunk) Ref(terms Lengths) ChunkRef {
	return ChunkRef{ID: c.ID, Symbol: c.Symbol, Kind: c.Kind, StartLine: c.StartLine, EndLine: c.EndLine, Target: c.Target, Terms: terms}
}
