package mapping

import (
	"slices"
	"strings"
	"testing"
)

// Any bytes give entries or problems with a line, never a panic; every entry is complete.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("source: [\n"))
	f.Add([]byte("source: a.go\nmappings:\n  - type: code_analog\n    text: x\n  - 3\n  - {type: [a]}\n"))
	f.Add([]byte("&a [*a, *a]\n"))
	f.Add([]byte("source: ../../etc/passwd::X\nmappings: [{type: error, text: \"\\xff\"}]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		entries, problems := Parse("mappings/f.yaml", src)
		for _, p := range problems {
			if p.Line < 0 || p.File != "mappings/f.yaml" || p.Message == "" {
				t.Fatalf("problem %+v", p)
			}
		}
		for _, e := range entries {
			if e.Text == "" || !slices.Contains(Types, e.Type) || e.Path == "" || strings.HasPrefix(e.Path, "../") || strings.HasPrefix(e.Path, "/") {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}
