package parse

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// fixtures lists testdata/<language>/<file>, skipping the goldens, the fuzz corpus and the naming
// shapes (names_test.go).
func fixtures(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		if !strings.HasSuffix(p, ".json") && !strings.HasPrefix(p, filepath.Join("testdata", "fuzz")) &&
			!strings.HasPrefix(p, filepath.Join("testdata", "shapes")) {
			out = append(out, p)
		}
	}
	return out
}

// parseFixture reads the fixture at path and parses it with p.
func parseFixture(t testing.TB, p *Parser, path string) (*File, []byte) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := p.Parse(context.Background(), path, src)
	if err != nil {
		t.Fatal(err)
	}
	return f, src
}

// render writes a File as JSON with one array element per line, so goldens read like a table.
func render(f *File) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"language\": %q", f.Language)
	section := func(name string, n int, item func(int) any) {
		fmt.Fprintf(&b, ",\n  %q: [", name)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			var js bytes.Buffer
			enc := json.NewEncoder(&js)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(item(i)); err != nil {
				panic(err)
			}
			b.WriteString("\n    ")
			b.Write(bytes.TrimSuffix(js.Bytes(), []byte("\n")))
		}
		if n > 0 {
			b.WriteString("\n  ")
		}
		b.WriteByte(']')
	}
	section("definitions", len(f.Definitions), func(i int) any { return f.Definitions[i] })
	section("references", len(f.References), func(i int) any { return f.References[i] })
	section("comments", len(f.Comments), func(i int) any { return f.Comments[i] })
	section("imports", len(f.Imports), func(i int) any { return f.Imports[i] })
	section("literals", len(f.Literals), func(i int) any { return f.Literals[i] })
	b.WriteString("\n}\n")
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for _, path := range fixtures(t) {
		lang := filepath.Base(filepath.Dir(path))
		t.Run(lang, func(t *testing.T) {
			if got := LanguageOf(path); got != lang {
				t.Fatalf("LanguageOf(%s) = %q, want %q", path, got, lang)
			}
			f, _ := parseFixture(t, p, path)
			got := render(f)
			var back File
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("golden is not valid JSON: %v", err)
			}
			if want, differs := filetest.Golden(t, path+".json", got, *update); differs {
				t.Errorf("%s differs from its golden:\n%s", path, lineDiff(string(want), string(got)))
			}
		})
	}
}

func TestFixtureForEveryLanguage(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range fixtures(t) {
		seen[LanguageOf(path)] = true
	}
	for _, l := range Languages() {
		if !seen[l] {
			t.Errorf("no fixture for %s under testdata/%s", l, l)
		}
	}
}

func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d\n- %s\n+ %s\n", i+1, a, c)
			if b.Len() > 4000 {
				break
			}
		}
	}
	return b.String()
}
