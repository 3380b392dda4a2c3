package parse

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzParse feeds every language's parser arbitrary source (seeded with each language's fixture, the
// language picked by the first byte): a File or an error, never a panic, and every place it reports
// lies inside the source.
func FuzzParse(f *testing.F) {
	var names []string
	for _, p := range fixtures(f) {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(len(names)), src)
		names = append(names, filepath.Base(p))
	}
	p := NewParser()
	f.Cleanup(p.Close)
	f.Fuzz(func(t *testing.T, pick uint8, src []byte) {
		name := names[int(pick)%len(names)]
		// some grammars loop on some inputs (swift, on a mangled Kotlin file): the deadline must end them
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		file, err := p.Parse(ctx, name, src)
		if err != nil {
			return
		}
		lines := strings.Count(string(src), "\n") + 1
		for _, d := range file.Definitions {
			if d.StartLine < 1 || d.EndLine < d.StartLine || d.EndLine > lines {
				t.Fatalf("%s: definition %q at %d-%d in %d lines", name, d.Name, d.StartLine, d.EndLine, lines)
			}
		}
		for _, r := range file.References {
			if r.Line < 1 || r.Line > lines || r.Enclosing >= len(file.Definitions) {
				t.Fatalf("%s: reference %q at line %d (enclosing %d)", name, r.Name, r.Line, r.Enclosing)
			}
		}
		for _, c := range file.Comments {
			if c.StartLine < 1 || c.EndLine > lines {
				t.Fatalf("%s: comment at %d-%d in %d lines", name, c.StartLine, c.EndLine, lines)
			}
		}
	})
}
