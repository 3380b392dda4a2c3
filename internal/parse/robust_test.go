package parse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/smacker/go-tree-sitter/golang"
)

// generatedGo writes a Go file of at least size bytes made of documented types, methods and
// functions that call each other.
func generatedGo(size int) []byte {
	var b bytes.Buffer
	b.WriteString("package big\n\nimport \"fmt\"\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "// Item%d holds one generated value.\ntype Item%d struct {\n\tName string\n\tCount int\n}\n\n", i, i)
		fmt.Fprintf(&b, "// Describe%d says what the item holds.\nfunc (it *Item%d) Describe%d() string {\n", i, i, i)
		fmt.Fprintf(&b, "\t// TODO: cache the description of item %d\n", i)
		fmt.Fprintf(&b, "\treturn fmt.Sprintf(\"item %%s holds %%d values\", it.Name, helper%d(it.Count))\n}\n\n", i)
		fmt.Fprintf(&b, "func helper%d(n int) int {\n\treturn n * %d\n}\n\n", i, i)
	}
	return b.Bytes()
}

func TestQueriesCompile(t *testing.T) {
	for _, l := range table {
		if l.grammar == nil {
			continue
		}
		q, err := queryFor(byName[l.name])
		if err != nil {
			t.Errorf("%s: %v", l.name, err)
			continue
		}
		roles := map[role]bool{}
		for _, c := range q.captures {
			roles[c.role] = true
		}
		for _, r := range []role{roleDefinition, roleName, roleReference, roleComment, roleImport, roleString} {
			if !roles[r] {
				t.Errorf("%s: query has no capture for role %d", l.name, r)
			}
		}
	}
	// every file under queries/ is a language's query or inherited by one
	entries, err := queryFiles.ReadDir("queries")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, l := range table {
		if l.grammar != nil {
			used[l.name+".scm"] = true
		}
	}
	for _, name := range []string{"ecma.scm", "jsx.scm"} { // inherited by javascript, typescript, tsx
		used[name] = true
	}
	for _, e := range entries {
		if !used[e.Name()] {
			t.Errorf("queries/%s belongs to no language", e.Name())
		}
	}
}

func TestCompileRejectsBadQueries(t *testing.T) {
	lang := golang.GetLanguage()
	bad := map[string]string{
		"unknown capture":    `(identifier) @thing`,
		"unknown kind":       `(function_declaration name: (identifier) @name) @definition.routine`,
		"bad regexp":         `((identifier) @reference.call (#match? @reference.call "a(b"))`,
		"unsupported":        `((identifier) @reference.call (#set! foo "bar"))`,
		"syntax":             `(function_declaration`,
		"unknown node":       `(no_such_node) @comment`,
		"match without text": `((identifier) @reference.call (#match? @reference.call))`,
	}
	for name, q := range bad {
		if _, err := compile([]byte(q), lang); err == nil {
			t.Errorf("%s: %q compiled", name, q)
		}
	}
}

func TestPredicates(t *testing.T) {
	q, err := compile([]byte(`
((call_expression function: (identifier) @reference.call) (#any-of? @reference.call "keep" "also"))
((identifier) @reference.call (#match? @reference.call "^Up"))
((field_identifier) @reference.call (#not-eq? @reference.call "skip"))
`), golang.GetLanguage())
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("package p\nfunc f() { keep(); drop(); also(); Upper := 1; x.skip(); x.take() }\n")
	p := NewParser()
	defer p.Close()
	tree, err := p.tree(context.Background(), byName["go"], src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	f, err := extract(context.Background(), p.cursor, q, tree.RootNode(), src)
	if err != nil {
		t.Fatal(err)
	}
	got := each(f.References, func(r Reference) string { return r.Name })
	if want := "keep also Upper take"; strings.Join(got, " ") != want {
		t.Errorf("references = %q, want %q", strings.Join(got, " "), want)
	}
}

func TestLanguageOf(t *testing.T) {
	cases := map[string]string{
		"main.go": "go", "a/b/c.py": "python", "x.pyi": "python", "app.jsx": "javascript", "m.mjs": "javascript",
		"c.cjs": "javascript", "t.ts": "typescript", "v.tsx": "tsx", "A.java": "java", "lib.rs": "rust",
		"x.c": "c", "x.h": "c", "x.cc": "cpp", "x.cpp": "cpp", "x.cxx": "cpp", "x.hpp": "cpp", "x.hh": "cpp",
		"P.cs": "csharp", "a.rb": "ruby", "Rakefile": "ruby", "i.php": "php", "k.kt": "kotlin", "b.kts": "kotlin",
		"s.scala": "scala", "s.swift": "swift", "run.sh": "bash", "README.md": "markdown", "doc.mdx": "markdown",
		"notes.txt": "text", "guide.rst": "text", "book.adoc": "text", "UPPER.GO": "go", "Main.Java": "java",
		"Makefile": "text", "Cargo.toml": "text", "config.yaml": "text", "script": "", "image.png": "", ".go": "", "dir.go/file": "", "": "", "go": "",
	}
	for path, want := range cases {
		if got := LanguageOf(path); got != want {
			t.Errorf("LanguageOf(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestLanguagesSortedAndComplete(t *testing.T) {
	ls := Languages()
	want := strings.Fields("bash c cpp csharp go java javascript kotlin markdown php python ruby rust scala swift text tsx typescript")
	if strings.Join(ls, " ") != strings.Join(want, " ") {
		t.Errorf("Languages() = %v, want %v", ls, want)
	}
}

// assertSane checks what every parse result must hold whatever the input.
func assertSane(t *testing.T, f *File, src []byte) {
	t.Helper()
	js, err := json.Marshal(f)
	if err != nil {
		t.Fatalf("result does not marshal: %v", err)
	}
	if !utf8.Valid(js) {
		t.Error("result is not valid UTF-8")
	}
	lines := bytes.Count(src, []byte("\n")) + 1
	for i, d := range f.Definitions {
		if d.Name == "" || !kinds[d.Kind] {
			t.Errorf("definition %d: bad name or kind: %+v", i, d)
		}
		if d.StartLine < 1 || d.EndLine < d.StartLine || d.EndLine > lines || d.StartByte > d.EndByte || d.EndByte > len(src) {
			t.Errorf("definition %d: range out of bounds: %+v", i, d)
		}
		if len(d.Signature) > maxSignature {
			t.Errorf("definition %d: signature of %d bytes", i, len(d.Signature))
		}
		if i > 0 && d.StartByte < f.Definitions[i-1].StartByte {
			t.Errorf("definition %d is out of source order", i)
		}
	}
	for i, r := range f.References {
		if r.Enclosing < -1 || r.Enclosing >= len(f.Definitions) || r.Line < 1 || r.Line > lines {
			t.Errorf("reference %d out of bounds: %+v", i, r)
		}
	}
	for i, l := range f.Literals {
		if len(l.Text) > maxLiteral || len(l.Text) < minLiteral {
			t.Errorf("literal %d has %d bytes", i, len(l.Text))
		}
	}
	for i, c := range f.Comments {
		if c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > lines {
			t.Errorf("comment %d out of bounds: %+v", i, c)
		}
	}
}

func TestBadInput(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 64<<10)
	rng.Read(random)
	garbage := make([]byte, 8<<10)
	for i := range garbage {
		garbage[i] = byte(32 + rng.Intn(95))
		if rng.Intn(40) == 0 {
			garbage[i] = '\n'
		}
	}
	inputs := map[string][]byte{
		"garbage":      garbage,
		"empty":        {},
		"nul":          make([]byte, 32<<10),
		"random":       random,
		"invalid utf8": []byte("\xff\xfe func \xc3\x28 class \xe2\x82 def x(\x80):\n  \"\xff message with bad bytes \xfe\"\n// \xff TODO \xfe\n"),
		"unclosed":     []byte("func f( { class A { def g(: \"unterminated string that goes on\n/* unterminated comment"),
		"only newline": []byte("\n\n\n"),
	}
	p := NewParser()
	defer p.Close()
	for _, lang := range Languages() {
		path := "input" + byName[lang].exts[0]
		for name, src := range inputs {
			t.Run(lang+"/"+name, func(t *testing.T) {
				f, err := p.Parse(context.Background(), path, src)
				if err != nil {
					return // a clear error is an accepted answer
				}
				if f.Language != lang {
					t.Errorf("language = %q", f.Language)
				}
				assertSane(t, f, src)
			})
		}
	}
}

func TestInvalidUTF8KeepsWhatParses(t *testing.T) {
	src := []byte("package p\n\n// Run starts \xff the engine.\nfunc Run() {\n\tlog(\"engine \xfe failed to start\")\n}\n")
	f := parseString(t, "p.go", string(src))
	assertSane(t, f, src)
	if len(f.Definitions) != 1 || f.Definitions[0].Name != "Run" || !strings.Contains(f.Definitions[0].Doc, "the engine") {
		t.Fatalf("definitions = %+v", f.Definitions)
	}
	if len(f.Literals) != 1 || !strings.HasPrefix(f.Literals[0].Text, "engine \uFFFD") {
		t.Errorf("literals = %+v", f.Literals)
	}
}

func TestBinaryRefused(t *testing.T) {
	p := NewParser()
	defer p.Close()
	for name, src := range map[string][]byte{
		"nul":     append([]byte("package p\n"), 0, 0, 0),
		"invalid": bytes.Repeat([]byte{0xff, 0xfe, 'a', 0x80}, 100),
		"control": bytes.Repeat([]byte{1, 2, 3, 'x'}, 100),
	} {
		if _, err := p.Parse(context.Background(), "x.go", src); err == nil || !strings.Contains(err.Error(), "not source text") {
			t.Errorf("%s: err = %v, want binary content refused", name, err)
		}
	}
	// a few stray bytes (a Latin-1 name in a comment) are still text
	latin1 := []byte("package p\n\n// Caf\xe9 opens at nine.\nfunc Open() {}\n")
	f, err := p.Parse(context.Background(), "x.go", latin1)
	if err != nil || len(f.Definitions) != 1 {
		t.Fatalf("latin-1 comment: %v", err)
	}
}

// A deadline stops tree-sitter in the middle of a slow parse (error recovery on garbage is slow).
func TestDeadlineStopsSlowParse(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	src := make([]byte, 256<<10)
	for i := range src {
		src[i] = byte(32 + rng.Intn(95))
		if rng.Intn(40) == 0 {
			src[i] = '\n'
		}
	}
	p := NewParser()
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.Parse(ctx, "garbage.swift", src); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if f, err := p.Parse(context.Background(), "ok.swift", []byte("func ok() {}\n")); err != nil || len(f.Definitions) != 1 {
		t.Fatalf("next parse: %v", err)
	}
}

func TestLargeFile(t *testing.T) {
	src := generatedGo(1 << 20)
	items := bytes.Count(src, []byte("\ntype Item"))
	f := parseString(t, "big.go", string(src))
	assertSane(t, f, src)
	// per item: the struct, its two fields, the method and the helper
	if got, want := len(f.Definitions), 5*items; got != want {
		t.Errorf("%d definitions, want %d", got, want)
	}
	if got := len(f.Comments); got != 3*items {
		t.Errorf("%d comments, want %d", got, 3*items)
	}
	if got := len(f.Literals); got != items {
		t.Errorf("%d literals, want %d", got, items)
	}
	last := f.Definitions[len(f.Definitions)-1]
	if want := fmt.Sprintf("helper%d", items-1); last.Name != want {
		t.Errorf("last definition %q, want %q", last.Name, want)
	}
}

func TestTooLarge(t *testing.T) {
	p := NewParser()
	defer p.Close()
	if _, err := p.Parse(context.Background(), "huge.go", make([]byte, maxSource+1)); err == nil {
		t.Error("a file over the size limit parsed")
	}
}

func TestUnknownLanguage(t *testing.T) {
	p := NewParser()
	defer p.Close()
	_, err := p.Parse(context.Background(), "picture.png", []byte("\x89PNG"))
	if err == nil || !strings.Contains(err.Error(), "picture.png") {
		t.Errorf("err = %v, want an error naming the file", err)
	}
}

func TestClosedParser(t *testing.T) {
	p := NewParser()
	p.Close()
	p.Close()
	if _, err := p.Parse(context.Background(), "a.go", []byte("package a")); err == nil {
		t.Error("a closed parser parsed")
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := NewParser()
	defer p.Close()
	src := generatedGo(256 << 10)
	for _, path := range []string{"big.go", "notes.md"} {
		if _, err := p.Parse(ctx, path, src); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", path, err)
		}
	}
	past, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	if _, err := p.Parse(past, "big.go", src); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	// the parser stays usable
	f, err := p.Parse(context.Background(), "big.go", src)
	if err != nil || len(f.Definitions) == 0 {
		t.Fatalf("after cancellation: %v, %d definitions", err, len(f.Definitions))
	}
}

// A context that ends while or just after a parse runs must not spoil the next parse.
func TestCancelDuringParse(t *testing.T) {
	p := NewParser()
	defer p.Close()
	src := generatedGo(64 << 10)
	for i := 0; i < 50; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		if i%2 == 0 {
			go cancel()
		}
		_, err := p.Parse(ctx, "big.go", src)
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: %v", i, err)
		}
		f, err := p.Parse(context.Background(), "small.go", []byte("package s\nfunc A() {}\n"))
		if err != nil || len(f.Definitions) != 1 {
			t.Fatalf("round %d: next parse: %v", i, err)
		}
	}
}

func TestConcurrentParsers(t *testing.T) {
	paths := fixtures(t)
	want := map[string][]byte{}
	srcs := map[string][]byte{}
	ref := NewParser()
	for _, path := range paths {
		f, src := parseFixture(t, ref, path)
		srcs[path], want[path] = src, render(f)
	}
	ref.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			p := NewParser()
			defer p.Close()
			for round := 0; round < 5; round++ {
				for i := range paths {
					path := paths[(i+w*3)%len(paths)]
					f, err := p.Parse(context.Background(), path, srcs[path])
					if err != nil {
						errs <- err
						return
					}
					if got := render(f); !bytes.Equal(got, want[path]) {
						errs <- fmt.Errorf("%s: worker %d got a different result", filepath.Base(path), w)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
