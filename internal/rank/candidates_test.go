package rank

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/shoptest"
	"github.com/ctxmap/ctxmap/internal/words"
)

// referrers may skip a file only when it names none of the primaries' definitions: also for a name
// defined in too many files to make graph edges, and for a primary found under a name its file does not
// define.
func TestReferrersHoldEveryFileNamingAPrimary(t *testing.T) {
	files := map[string]string{}
	for _, f := range shoptest.Files(t) {
		files[f.Name] = string(f.Data)
	}
	for p, c := range map[string]string{
		"jobs/caller.py": "from jobs.a import handle\nfrom jobs.pay import settle\n\ndef main():\n    handle()\n    settle()\n",
		"jobs/pay.py":    "def settle():\n    return 2\n",
	} {
		files[p] = c
	}
	for c := 'a'; c <= 'h'; c++ {
		files[fmt.Sprintf("jobs/%c.py", c)] = "def handle():\n    return 1\n"
	}
	s := testView(t, files)
	r := &ranker{s: s, a: query.Analyze("x", nil), without: map[string]bool{}}
	check := func(prims []primary, names map[string]int) bool {
		got := r.referrers(names, prims)
		for _, q := range s.Paths {
			if slices.Contains(got, q) {
				continue
			}
			for _, ref := range s.Record(q).File.References {
				if pi, ok := names[ref.Name]; ok && q != prims[pi].path {
					t.Errorf("%s names %s but is not among the referrers of %s", q, ref.Name, prims[pi].path)
					break
				}
			}
		}
		return len(got) < len(s.Paths)
	}
	narrowed := 0
	for _, p := range s.Paths {
		for _, d := range s.Record(p).File.Definitions {
			if check([]primary{{path: p, def: d}}, map[string]int{d.Name: 0}) {
				narrowed++
			}
		}
	}
	if narrowed == 0 {
		t.Error("no definition's referrers were narrowed by the graph")
	}
	// a primary under a name defined elsewhere only: its file has no edge from the callers
	check([]primary{{path: "jobs/a.py", def: s.Record("jobs/pay.py").File.Definitions[0]}}, map[string]int{"settle": 0})
}

// A definition's region starts where its declaration does for a reader: the C++ template header, the
// attribute macros, Rust's attributes, Java's annotations and a doc comment come with the body; the
// last line of the definition before it never does.
func TestDefinitionRegionTakesWhatIsAboveIt(t *testing.T) {
	files := map[string]string{
		"value.hpp": "int before() { return 0; }\n" +
			"/// the value at key\n" +
			"template < class KeyType, detail::enable_if_t <\n" +
			"               !detail::is_json_pointer<KeyType>::value, int > = 0 >\n" +
			"JSON_HEDLEY_WARN_UNUSED_RESULT\n" +
			"int value(KeyType && key) const\n" +
			"{\n    return 1;\n}\n",
		"lib.rs":  "fn before() {}\n#[inline]\n#[must_use]\npub fn parse(s: &str) -> u32 {\n    0\n}\n",
		"A.java":  "class A {\n    int before() { return 0; }\n    @Override\n    public String toString() {\n        return \"a\";\n    }\n}\n",
		"tail.py": "def before():\n    return 0\nLIMIT = 3\ndef after():\n    return LIMIT\n",
	}
	s := testView(t, files)
	r := &ranker{s: s, a: query.Analyze("x", nil), without: map[string]bool{}}
	for _, c := range []struct {
		path, name string
		start      int
		first      string
	}{
		{"value.hpp", "value", 2, "/// the value at key"},
		{"lib.rs", "parse", 2, "#[inline]"},
		{"A.java", "toString", 3, "    @Override"},
		{"tail.py", "after", 4, "def after():"}, // a statement above is not the function's
	} {
		rec := s.Record(c.path)
		i := slices.IndexFunc(rec.File.Definitions, func(d parse.Definition) bool { return d.Name == c.name })
		if i < 0 {
			t.Fatalf("%s: no definition %s in %+v", c.path, c.name, rec.File.Definitions)
		}
		got := defCandidate(rec, r.lines(c.path), rec.File.Definitions[i], 1, nil)
		if got.StartLine != c.start || !strings.HasPrefix(got.Full, c.first+"\n") {
			t.Errorf("%s %s: starts at line %d with %q, want line %d with %q", c.path, c.name, got.StartLine, strings.SplitN(got.Full, "\n", 2)[0], c.start, c.first)
		}
	}
}

// A file's words by line are the terms words.Terms gives each line, on this package's own sources
// (code, comments, strings, non-ASCII text).
func TestBodyWordsAreEachLinesTerms(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil || len(paths) < 5 {
		t.Fatalf("sources: %v %v", paths, err)
	}
	for _, p := range append(paths, "../words/words.go") {
		src, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		src = append(src, []byte("\nÉtat HTTPServer2 naïve_café 数据库 PRs\n")...)
		bw := newBodyWords(src)
		term := make([]string, len(bw.vocab))
		for w, id := range bw.vocab {
			term[id] = w
		}
		for i, l := range parse.SplitLines(src) {
			var got []string
			for _, id := range bw.lines[i] {
				got = append(got, term[id])
			}
			if want := words.Terms(string(l)); !slices.Equal(got, want) {
				t.Fatalf("%s:%d: %q, words.Terms gives %q", p, i+1, got, want)
			}
		}
	}
}

// A namespace that holds a file's code would be shown as the list of what it holds, so the file's pick,
// and the room a pick gets, go to one of its members.
func TestANamespaceIsNotAFilesPick(t *testing.T) {
	var b strings.Builder
	b.WriteString("namespace shop {\n\nint reserve(int sku, int qty) {\n    if (qty > 15) {\n        return -1;\n    }\n    return sku;\n}\n\n")
	for i := range 110 { // past the lines of a file shown whole
		fmt.Fprintf(&b, "int helper%d(int x) {\n    return x + %d;\n}\n\n", i, i)
	}
	b.WriteString("}  // namespace shop\n")
	files := map[string]string{"src/stock.cpp": b.String()}
	s := testView(t, files)
	defs := s.Record("src/stock.cpp").File.Definitions
	ns := slices.IndexFunc(defs, func(d parse.Definition) bool { return d.Kind == "namespace" })
	fn := slices.IndexFunc(defs, func(d parse.Definition) bool { return d.Name == "reserve" })
	if ns < 0 || fn < 0 {
		t.Fatalf("parsed definitions: %+v", defs)
	}
	if !wideScope(defs, ns) || wideScope(defs, fn) {
		t.Fatalf("wideScope: namespace %v, function %v", wideScope(defs, ns), wideScope(defs, fn))
	}
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	r := &ranker{s: s, a: query.Analyze("shop reserve fails for a quantity over 15", nil), without: map[string]bool{}, plan: recallPlan}
	var prims []primary
	got := r.showFile(tightFile{f: RankedFile{Path: "src/stock.cpp", Prob: 0.6, Score: 1}}, m, r.queryWords(), &prims, sourceDefs{})
	if len(got) == 0 {
		t.Fatal("the file shows nothing")
	}
	for _, v := range got {
		if v.StartLine == defs[ns].StartLine && v.EndLine == defs[ns].EndLine {
			t.Fatalf("the namespace is among the file's regions: %+v", v.Candidate)
		}
	}
	if got[0].Symbol == "" || got[0].Kind != "definition" || got[0].Probability < 0.3 {
		t.Errorf("the file's first region is %q (%s, p=%.2f), want a member with the file's best guess's room", got[0].Symbol, got[0].Kind, got[0].Probability)
	}
}

// A function whose range holds the members of another scope (a declaration read across a class's
// body) is passed over like a namespace; one that holds only its own closures is a function.
func TestAFunctionHoldingOthersMembersIsWide(t *testing.T) {
	defs := []parse.Definition{
		{Name: "basic_json", Kind: "class", StartLine: 10, EndLine: 900},
		{Name: "at", Parent: "const_reference", Kind: "method", StartLine: 10, EndLine: 950},
		{Name: "size", Parent: "basic_json", Kind: "method", StartLine: 20, EndLine: 30},
		{Name: "clear", Parent: "basic_json", Kind: "method", StartLine: 40, EndLine: 60},
		{Name: "erase", Parent: "basic_json", Kind: "method", StartLine: 70, EndLine: 90},
		{Name: "render", Kind: "function", StartLine: 1000, EndLine: 1200},
		{Name: "row", Kind: "function", StartLine: 1010, EndLine: 1020},
		{Name: "cell", Kind: "function", StartLine: 1030, EndLine: 1040},
		{Name: "head", Kind: "function", StartLine: 1050, EndLine: 1060},
		{Name: "basic_json", Parent: "basic_json", Kind: "constructor", StartLine: 100, EndLine: 500},
		{Name: "dump", Parent: "basic_json", Kind: "method", StartLine: 110, EndLine: 120},
		{Name: "type", Parent: "basic_json", Kind: "method", StartLine: 130, EndLine: 140},
		{Name: "swap", Parent: "basic_json", Kind: "method", StartLine: 150, EndLine: 160},
	}
	for i, want := range map[int]bool{1: true, 0: false, 5: false, 2: false, 9: true} {
		if got := wideScope(defs, i); got != want {
			t.Errorf("wideScope(%s) = %v, want %v", defs[i].Name, got, want)
		}
	}
}
