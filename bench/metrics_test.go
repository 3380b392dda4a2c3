package bench

import (
	"math"
	"testing"

	"github.com/ctxmap/ctxmap/index"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func checkMetrics(t *testing.T, got, want map[string]float64) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s missing", k)
		} else if !near(g, w) {
			t.Errorf("%s = %v, want %v", k, g, w)
		}
	}
}

func TestFileMetrics(t *testing.T) {
	ranked := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	cases := []struct {
		gold []string
		want map[string]float64
	}{
		{[]string{"a"}, map[string]float64{Hit1: 1, Hit3: 1, Hit5: 1, Hit10: 1, Recall5: 1, Recall10: 1}},
		// both among the first five, the second at rank 5
		{[]string{"b", "e"}, map[string]float64{Hit1: 0, Hit3: 0, Hit5: 1, Hit10: 1, Recall5: 1, Recall10: 1}},
		// k is 11th: never a hit, half the gold within 5 and 10
		{[]string{"c", "k"}, map[string]float64{Hit1: 0, Hit3: 0, Hit5: 0, Hit10: 0, Recall5: 0.5, Recall10: 0.5}},
		// one of three within 5, two within 10
		{[]string{"d", "h", "z"}, map[string]float64{Hit1: 0, Hit5: 0, Hit10: 0, Recall5: 1.0 / 3, Recall10: 2.0 / 3}},
		// a repeated gold file counts once
		{[]string{"a", "a"}, map[string]float64{Hit1: 1, Recall5: 1}},
	}
	for _, c := range cases {
		checkMetrics(t, FileMetrics(ranked, c.gold), c.want)
	}
	checkMetrics(t, FileMetrics(nil, []string{"a"}), map[string]float64{Hit10: 0, Recall10: 0})
}

// m.py as a parser would describe it.
var mDefs = []index.Definition{
	{Name: "Repo", Kind: "class", StartLine: 5, EndLine: 25},
	{Name: "save", Kind: "method", Parent: "Repo", StartLine: 10, EndLine: 20},
	{Name: "Store", Kind: "class", StartLine: 28, EndLine: 70},
	{Name: "orphan", Kind: "function", StartLine: 35, EndLine: 38},
	{Name: "load", Kind: "method", Parent: "Store", StartLine: 40, EndLine: 50},
	{Name: "deep", Kind: "function", Parent: "inner", StartLine: 45, EndLine: 48},
	{Name: "load", Kind: "method", Parent: "Cache", StartLine: 80, EndLine: 90},
}

func defsOf(p string) []index.Definition {
	if p == "m.py" {
		return mDefs
	}
	return nil
}

var mItems = []index.Item{
	{Path: "m.py", Symbol: "Repo.save", StartLine: 10, EndLine: 20, Tokens: 100, Size: "full"},
	{Path: "m.py", StartLine: 30, EndLine: 60, Tokens: 300, Size: "truncated"},
	{Path: "n.py", Symbol: "helper", StartLine: 1, EndLine: 5, Tokens: 50, Size: "compact"},
	{Path: "o.py", Symbol: "other", StartLine: 1, EndLine: 9, Tokens: 50, Size: "full"},
}

func TestSymbolShown(t *testing.T) {
	cases := []struct {
		gold string
		want bool
	}{
		{"m.py::Repo.save", true},   // the item's symbol
		{"m.py::save", true},        // symbol ends in ".save"
		{"m.py::Repo::save", true},  // C++/Rust separators
		{"m.py::ave", false},        // a suffix is not a name
		{"m.py::Store.load", true},  // defined at 40, inside the item 30-60
		{"m.py::Cache.load", false}, // the parent picks the load at 80, outside every item
		{"m.py::Store", false},      // defined at 28: no item shows that line
		{"m.py::Outer.inner.deep", true},
		{"m.py::Klass.orphan", true}, // the parser gave no parent: placed by name alone
		{"n.py::Repo.save", false},   // another file's items
		{"x.py::helper", false},      // not in the pack
		{"m.py", false},              // no name
		{"m.py::", false},
	}
	for _, c := range cases {
		if got := SymbolShown(mItems, c.gold, defsOf); got != c.want {
			t.Errorf("SymbolShown(%q) = %v, want %v", c.gold, got, c.want)
		}
	}
	if SymbolShown(mItems, "m.py::Store.load", nil) {
		t.Error("without definitions a symbol-less item cannot show a function")
	}
}

func TestPackMetrics(t *testing.T) {
	gold := []string{"m.py", "c.py"}
	syms := []string{"m.py::Repo.save", "m.py::Cache.load", "m.py::Store.load", "m.py::Store"}
	got := PackMetrics(mItems, 2000, gold, syms, defsOf)
	checkMetrics(t, got, map[string]float64{
		PackRecall:     0.5,
		PackAll:        0,
		WrongFileRate:  2.0 / 3, // n.py and o.py of m.py, n.py, o.py
		SymbolRecall:   0.5,
		SymbolCoverage: 0.5, // Repo.save and Store.load: their lines are in bodies
		SymbolFile:     1,   // m.py is in the pack
		Tokens:         2000,
		PackFileCount:  3,
		RecallPer1K:    0.25, // 0.5 per 2 thousand tokens
		Efficiency:     0.25, // likewise with symbol coverage
	})
	got = PackMetrics(mItems, 2000, gold, []string{"m.py::Repo.save", "c.py::run"}, defsOf)
	checkMetrics(t, got, map[string]float64{SymbolCoverage: 0.5, SymbolFile: 0.5}) // c.py is not in the pack
	got = PackMetrics(mItems[:1], 100, []string{"m.py"}, nil, defsOf)
	checkMetrics(t, got, map[string]float64{PackRecall: 1, PackAll: 1, WrongFileRate: 0, RecallPer1K: 10})
	if _, ok := got[SymbolRecall]; ok {
		t.Error("symbol_recall without gold functions should be left out")
	}
	got = PackMetrics(nil, 0, []string{"m.py"}, []string{"m.py::save"}, defsOf)
	checkMetrics(t, got, map[string]float64{PackRecall: 0, PackAll: 0, SymbolRecall: 0, SymbolFile: 0, Tokens: 0})
	for _, k := range []string{WrongFileRate, Efficiency, RecallPer1K} {
		if _, ok := got[k]; ok {
			t.Errorf("%s of an empty pack should be left out", k)
		}
	}
}

func TestPercentile(t *testing.T) {
	v := []float64{5, 1, 3, 2, 4}
	if p := Percentile(v, 0.5); p != 3 {
		t.Errorf("p50 = %v, want 3", p)
	}
	if p := Percentile(v, 0.95); p != 5 {
		t.Errorf("p95 = %v, want 5", p)
	}
	if p := Percentile([]float64{10, 20}, 0.5); p != 10 {
		t.Errorf("p50 of two = %v, want 10", p)
	}
	if p := Percentile(nil, 0.5); p != 0 {
		t.Errorf("p50 of none = %v", p)
	}
	if v[0] != 5 {
		t.Error("Percentile reordered its input")
	}
}

func TestAggregate(t *testing.T) {
	rows := []*SystemResult{
		{Metrics: map[string]float64{PackRecall: 1, Tokens: 1000, RecallPer1K: 1, SymbolRecall: 0.5, SymbolCoverage: 1}, LatencyMS: 10},
		{Metrics: map[string]float64{PackRecall: 0, Tokens: 3000, RecallPer1K: 0, SymbolCoverage: 0}, LatencyMS: 30},
	}
	a := aggregateOf(rows)
	checkMetrics(t, a.Metrics, map[string]float64{
		PackRecall:   0.5,
		Tokens:       2000,
		RecallPer1K:  0.25, // mean recall 0.5 per mean 2 thousand tokens, not the mean of 1 and 0
		Efficiency:   0.25, // likewise with symbol coverage
		SymbolRecall: 0.5,  // only where defined
		LatencyP50:   10,
		LatencyP95:   30,
	})
	if a.N != 2 {
		t.Errorf("n = %d", a.N)
	}
}

func TestSymbolCovered(t *testing.T) {
	cases := []struct {
		gold string
		want bool
	}{
		{"m.py::Repo.save", true},   // its own body
		{"m.py::Store.load", true},  // inside a cut body that spans its start
		{"m.py::Store", false},      // line 28: no body holds it
		{"n.py::helper", false},     // a card shows no lines
		{"m.py::Cache.load", false}, // outside every item
	}
	defs := func(p string) []index.Definition {
		if p == "n.py" {
			return []index.Definition{{Name: "helper", Kind: "function", StartLine: 1, EndLine: 5}}
		}
		return defsOf(p)
	}
	for _, c := range cases {
		if got := SymbolCovered(mItems, c.gold, defs); got != c.want {
			t.Errorf("SymbolCovered(%q) = %v, want %v", c.gold, got, c.want)
		}
	}
}

// An outline names a file without showing it: it counts for code_named_all, not for the pack's files,
// and def_first reads the first item that shows a gold file's code.
func TestOutlinesAndTheFirstDefinition(t *testing.T) {
	defs := func(string) []index.Definition {
		return []index.Definition{{Name: "parse", StartLine: 3, EndLine: 9}, {Name: "render", StartLine: 12, EndLine: 20}}
	}
	items := []index.Item{
		{Kind: "definition", Path: "a.go", Symbol: "render", StartLine: 12, EndLine: 20, Size: "full"},
		{Kind: "snippet", Path: "a.go", Symbol: "parse", StartLine: 3, EndLine: 9, Size: "full"},
		{Kind: "definition", Path: "b.go", Symbol: "parse", StartLine: 3, EndLine: 9, Size: "full"},
		{Kind: OutlineKind, Path: "c.go", StartLine: 3, EndLine: 20, Size: "compact"},
	}
	m := PackMetrics(items, 500, []string{"a.go", "b.go", "c.go"}, []string{"a.go::parse", "b.go::parse", "c.go::parse"}, defs)
	if m[PackAll] != 0 || m[PackRecall] != 2.0/3 {
		t.Errorf("an outline counted as a shown file: %v", m)
	}
	if m[DefFirst] != 0.5 {
		t.Errorf("def_first = %v, want 0.5 (a.go shows render first, b.go parse)", m[DefFirst])
	}
	if got := namedFiles(items); len(got) != 3 {
		t.Errorf("named files %v", got)
	}
}

// A class's card shows its members' signatures, not their code: first in its file it is a changed
// definition when the class is one, not when a member is.
func TestACardFirstCountsByItsName(t *testing.T) {
	defs := func(string) []index.Definition {
		return []index.Definition{{Name: "Dayjs", Kind: "class", StartLine: 1, EndLine: 40},
			{Name: "format", Parent: "Dayjs", StartLine: 10, EndLine: 20}}
	}
	card := index.Item{Kind: "snippet", Path: "a.js", Symbol: "Dayjs", StartLine: 1, EndLine: 40, Size: "compact"}
	body := card
	body.Size = "truncated"
	for _, c := range []struct {
		first index.Item
		gold  string
		want  float64
	}{
		{card, "a.js::Dayjs", 1},
		{card, "a.js::Dayjs.format", 0},
		{body, "a.js::Dayjs.format", 1}, // its opening lines hold the member's
	} {
		m := PackMetrics([]index.Item{c.first}, 100, []string{"a.js"}, []string{c.gold}, defs)
		if m[DefFirst] != c.want {
			t.Errorf("%s first, gold %s: def_first %v, want %v", c.first.Size, c.gold, m[DefFirst], c.want)
		}
	}
}
