package parse

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestCommentLines(t *testing.T) {
	cases := map[string]string{
		"// plain":                                "plain",
		"/// rust doc":                            "rust doc",
		"//! inner doc":                           "inner doc",
		"# hash":                                  "hash",
		"## double hash":                          "double hash",
		"/* block */":                             "block",
		"/**\n * Java\n * doc\n */":               "Java\ndoc",
		"/*!\n  Qt style\n*/":                     "Qt style",
		"<!-- html -->":                           "html",
		"=begin\nruby block\n=end":                "ruby block",
		"/// <summary>C# doc.</summary>":          "C# doc.",
		`"""Module docstring."""`:                 "Module docstring.",
		"/**\n * First.\n *\n *\n * Second.\n */": "First.\n\nSecond.",
	}
	for in, want := range cases {
		if got := joinLines(commentLines([]byte(in))); got != want {
			t.Errorf("commentLines(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkerOf(t *testing.T) {
	cases := map[string]string{
		"TODO: later":                  "TODO",
		"FIXME(ana) broken":            "FIXME",
		"see BUG 12 and TODO":          "BUG",
		"XXX hack":                     "XXX",
		"DEBUG logging is verbose":     "",
		"todo in lower case":           "",
		"TODOS are not markers":        "",
		"nothing here":                 "",
		"the FIXME_LATER flag, TODO x": "TODO",
	}
	for in, want := range cases {
		if got := markerOf(in); got != want {
			t.Errorf("markerOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMessageLike(t *testing.T) {
	cases := map[string]bool{
		"cannot open file":     true,
		"short one":            false, // has a space but under 12 bytes
		"fmt:%s:%d:failed":     true,  // verbs, no space
		"value={0}/total={1}":  true,
		"some_identifier_name": false,
		"/usr/local/share/app": false,
		"100%_of_the_time_":    false,
	}
	for in, want := range cases {
		if got := messageLike(in); got != want {
			t.Errorf("messageLike(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestUnquote(t *testing.T) {
	cases := map[string]string{
		`"plain"`:         "plain",
		`'single'`:        "single",
		"`template ${x}`": "template ${x}",
		`"""triple"""`:    "triple",
		`f"py {x}"`:       "py {x}",
		`rb'bytes'`:       "bytes",
		`@"verbatim"`:     "verbatim",
		`$"interp {x}"`:   "interp {x}",
		`r#"raw "q""#`:    `raw "q"`,
		`#"swift raw"#`:   "swift raw",
		`s"scala $x"`:     "scala $x",
		`u8"utf8"`:        "utf8",
		`"unterminated`:   "unterminated",
		`noquotes`:        "noquotes",
	}
	for in, want := range cases {
		if got := unquote(in); got != want {
			t.Errorf("unquote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSignatureCapped(t *testing.T) {
	long := "package p\nfunc F(" + strings.Repeat("argumentNumber int, ", 30) + "last int) {}\n"
	p := NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), "p.go", []byte(long))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Definitions[0].Signature
	if len(s) > maxSignature || !strings.HasPrefix(s, "func F(argumentNumber int,") {
		t.Errorf("signature %q (%d bytes)", s, len(s))
	}
}

func parseString(t *testing.T, path, src string) *File {
	t.Helper()
	p := NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), path, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// each is f of every element of xs, in order.
func each[T any](xs []T, f func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// defsOf lists definitions as "kind name parent" for compact comparison.
func defsOf(f *File) string {
	var out []string
	for _, d := range f.Definitions {
		out = append(out, strings.TrimSpace(d.Kind+" "+d.Name+" "+d.Parent))
	}
	return strings.Join(out, "; ")
}

func TestOwnersAndKinds(t *testing.T) {
	cases := []struct{ path, src, want string }{
		{"a.py", "class A:\n    def m(self):\n        def inner():\n            pass\n        return inner\n\ndef f():\n    pass\n",
			"class A; method m A; function inner; function f"},
		{"a.rs", "struct S;\nimpl S {\n    fn new() -> S { S }\n}\nmod m {\n    fn helper() {}\n}\n",
			"struct S; method new S; module m; function helper m"},
		{"a.rb", "module M\n  def helper; end\n  class C\n    def run; end\n  end\nend\ndef top; end\n",
			"module M; method helper M; class C M; method run C; function top"},
		{"a.cpp", "class K {\n public:\n  K();\n  void run();\n};\nK::K() {}\nvoid K::run() {}\n",
			"class K; constructor K K; method run K; constructor K K; method run K"},
		{"a.go", "package p\ntype T struct{}\nfunc (t T) M() {}\nfunc (t *T) N() {}\nfunc F() {}\n",
			"struct T; method M T; method N T; function F"},
		{"a.js", "const o = { run() {} };\nclass C { go() { const h = () => 1; } }\n",
			"variable o; function run; class C; method go C; function h"},
	}
	for _, c := range cases {
		if got := defsOf(parseString(t, c.path, c.src)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.path, got, c.want)
		}
	}
}

func TestDocNeedsAdjacentComment(t *testing.T) {
	f := parseString(t, "a.go", `package p

// Loose comment, separated by a blank line.

func A() {}

// B is documented.
func B() {}

x := 1 // trailing comment
func C() {}
`)
	docs := map[string]string{}
	for _, d := range f.Definitions {
		docs[d.Name] = d.Doc
	}
	if docs["A"] != "" || docs["B"] != "B is documented." || docs["C"] != "" {
		t.Errorf("docs = %q", docs)
	}
}

func TestDocAboveAttributes(t *testing.T) {
	f := parseString(t, "a.rs", "/// A point.\n#[derive(Debug)]\n#[repr(C)]\nstruct P { x: i32 }\n")
	if len(f.Definitions) == 0 || f.Definitions[0].Doc != "A point." {
		t.Errorf("definitions = %+v", f.Definitions)
	}
	f = parseString(t, "a.py", "# Cached lookup.\n@cache\ndef lookup(k):\n    return k\n")
	if len(f.Definitions) == 0 || f.Definitions[0].Doc != "Cached lookup." {
		t.Errorf("definitions = %+v", f.Definitions)
	}
}

func TestMergedLineComments(t *testing.T) {
	f := parseString(t, "a.go", "package p\n\n// one\n// two\n\n// three\nvar x = 1 // four\n// five\n")
	got := each(f.Comments, func(c Comment) string { return c.Text })
	// a trailing comment never merges with the next line's comment
	if want := "one\ntwo|three|four|five"; strings.Join(got, "|") != want {
		t.Errorf("comments = %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestReferencesSkipDeclarations(t *testing.T) {
	f := parseString(t, "a.go", "package p\ntype Store struct{}\nfunc NewStore() *Store { return helper(Store{}) }\nfunc helper(s Store) *Store { return &s }\n")
	got := each(f.References, func(r Reference) string { return r.Name + "@" + f.Definitions[r.Enclosing].Name })
	if want := "Store@NewStore helper@NewStore Store@helper"; strings.Join(got, " ") != want {
		t.Errorf("references = %q, want %q", strings.Join(got, " "), want)
	}
}

func TestMarkdownSections(t *testing.T) {
	src := "---\ntitle: front matter\n---\n\n# Top\n\nintro\n\n## A\n\n~~~\n# not a heading\n~~~\n\n### A.1\n\ntext\n\n## B\n\n- item\n---\n\nSetext\n======\n\nbody `Thing` and `x`\n"
	f := parseString(t, "doc.md", src)
	type sec struct {
		name, parent string
		start, end   int
	}
	var got []sec
	for _, d := range f.Definitions {
		got = append(got, sec{d.Name, d.Parent, d.StartLine, d.EndLine})
	}
	want := []sec{{"Top", "", 5, 22}, {"A", "Top", 9, 17}, {"A.1", "A", 15, 17}, {"B", "Top", 19, 22}, {"Setext", "", 24, 27}}
	if len(got) != len(want) {
		t.Fatalf("sections = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("section %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(f.References) != 1 || f.References[0].Name != "Thing" || f.References[0].Enclosing != 4 {
		t.Errorf("references = %+v", f.References)
	}
}

func TestTextFile(t *testing.T) {
	f := parseString(t, "docs/notes.rst", "\n\nTitle line\n\nbody\n")
	if len(f.Definitions) != 1 {
		t.Fatalf("definitions = %+v", f.Definitions)
	}
	d := f.Definitions[0]
	if d.Name != "notes.rst" || d.Kind != "section" || d.Signature != "Title line" || d.StartLine != 3 || d.EndLine != 5 {
		t.Errorf("section = %+v", d)
	}
	if f := parseString(t, "empty.txt", "  \n\n"); len(f.Definitions) != 0 {
		t.Errorf("blank text file has sections: %+v", f.Definitions)
	}
}

// A long file without a grammar is cut into sections, so that a word deep inside is found with its
// neighbours; in languages read by keywords (jq here) each definition starts its own section.
func TestTextSections(t *testing.T) {
	type sec struct {
		Name, Kind string
		Start, End int
	}
	sections := func(f *File) []sec {
		var out []sec
		for _, d := range f.Definitions {
			out = append(out, sec{d.Name, d.Kind, d.StartLine, d.EndLine})
		}
		return out
	}
	para := strings.Repeat("a line of the manual\n", 20)
	long := para + "\n" + para + "\n" + strings.Repeat("no blank line here\n", 100)
	for _, c := range []struct {
		path, src string
		want      []sec
	}{
		{"docs/manual.txt", long, []sec{{"manual.txt", "section", 1, 41}, {"manual.txt", "section", 43, 122}, {"manual.txt", "section", 123, 142}}},
		{"src/builtin.jq", "# the builtins\ndef map(f): [.[] | f];\ndef gsub($re; str):\n  sub($re; str; \"g\");\n\n  def   select(f): if f then . else empty end;\n",
			[]sec{{"builtin.jq", "section", 1, 1}, {"map", "function", 2, 2}, {"gsub", "function", 3, 4}, {"select", "function", 6, 6}}},
		{"Makefile", "CC = gcc\nall: jq\n\njq: main.o\n\t$(CC) -o jq main.o\n", []sec{{"Makefile", "section", 1, 1}, {"all", "function", 2, 2}, {"jq", "function", 4, 5}}},
		{"scripts/init.lua", "local function setup(opts)\n  return opts\nend\n", []sec{{"setup", "function", 1, 3}}},
		{"notes.txt", "function of the importer\nmessage to users\n", []sec{{"notes.txt", "section", 1, 2}}},
	} {
		if got := sections(parseString(t, c.path, c.src)); !slices.Equal(got, c.want) {
			t.Errorf("%s: sections\n got %v\nwant %v", c.path, got, c.want)
		}
	}
}
