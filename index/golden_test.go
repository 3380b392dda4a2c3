package index

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/rank"
	"github.com/ctxmap/ctxmap/internal/shoptest"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden packs of the cases under ../testdata/golden")

// shop writes testdata/shop.txtar into a temporary workspace, builds the index and returns it with the
// line of every "@name" marker.
func shop(t *testing.T) (*Index, map[string]int) {
	t.Helper()
	files := shoptest.Files(t)
	root := shoptest.Write(t, files)
	marks := map[string]int{}
	marker := regexp.MustCompile(`@([a-z_]+)`)
	for _, f := range files {
		for i, line := range strings.Split(string(f.Data), "\n") {
			if m := marker.FindStringSubmatch(line); m != nil && (strings.Contains(line, "# @") || strings.Contains(line, "// @")) {
				marks[m[1]] = i + 1
			}
		}
	}
	ix := open(t, root, "")
	t.Cleanup(func() { ix.Close() })
	return ix, marks
}

// fill replaces {{name}} in a query with the line of the marker.
func fill(t *testing.T, text string, marks map[string]int) string {
	return regexp.MustCompile(`\{\{([a-z_]+)\}\}`).ReplaceAllStringFunc(text, func(m string) string {
		line, ok := marks[m[2:len(m)-2]]
		if !ok {
			t.Fatalf("no marker %s in shop.txtar", m)
		}
		return strconv.Itoa(line)
	})
}

// goldenDir holds the pack cases, a txtar file each: the text asked of the shop workspace (a text
// section) and what the pack must show (a want section); a case whose layout is the point keeps its
// whole pack too (pack.md), which -update rewrites. A ranking change that keeps what each case states
// rewrites none but those.
var goldenDir = filepath.Join("..", "testdata", "golden")

type goldenCase struct {
	name    string
	path    string     // its txtar file
	text    string     // {{marker}} stands for the line of a marker of shop.txtar
	intent  string     // the intent the analysis must find
	top     string     // the file ranked first
	first   *wantItem  // what the pack's first item must hold
	items   []wantItem // what the pack must hold, anywhere
	order   [][2]string
	without []string // signals switched off
}

// wantItem is a definition (path::symbol) a pack must hold, and words its reasons must include.
type wantItem struct{ ref, why string }

// goldenCases reads the pack cases of goldenDir, by name. A want section's lines: intent, top,
// first (the first item holds it), item (a repeatable line: the pack holds it), why (words of the
// reasons of the first or item line above it), order (A < B: A's item comes before B's), without.
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no pack cases in %s: %v", goldenDir, err)
	}
	var cases []goldenCase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := goldenCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), path: p}
		for _, f := range a.Files {
			switch f.Name {
			case "text":
				c.text = strings.TrimSuffix(string(f.Data), "\n")
			case "want":
				var last *wantItem // the item a why line speaks of
				for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					key, value, _ := strings.Cut(line, ": ")
					switch key {
					case "intent":
						c.intent = value
					case "top":
						c.top = value
					case "first":
						c.first = &wantItem{ref: value}
						last = c.first
					case "item":
						c.items = append(c.items, wantItem{ref: value})
						last = &c.items[len(c.items)-1]
					case "why":
						if last == nil {
							t.Fatalf("%s: %q speaks of no first or item line above it", p, line)
						}
						last.why = value
					case "order":
						before, after, ok := strings.Cut(value, " < ")
						if !ok {
							t.Fatalf("%s: %q is not order: A < B", p, line)
						}
						c.order = append(c.order, [2]string{before, after})
					case "without":
						c.without = strings.Split(value, ",")
					default:
						t.Fatalf("%s: want %q: not intent, top, first, item, why, order or without", p, line)
					}
				}
			}
		}
		if c.text == "" || c.top == "" || c.first == nil && len(c.items) == 0 {
			t.Fatalf("%s: a case needs a text, and a top and a first or an item in want", p)
		}
		cases = append(cases, c)
	}
	return cases
}

// goldenBudget is the budget every case is asked with.
const goldenBudget = 1500

// TestGoldenPacks runs each intent, each stack-trace language, an error message and a lexicon
// expansion against the shop workspace: the intent, the first file, the definitions the pack must
// hold with their reasons and order, and the budget (the text counted again) are checked; a case that
// keeps its whole pack is compared with it.
func TestGoldenPacks(t *testing.T) {
	ix, marks := shop(t)
	tok, err := pack.NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			res, err := ask(context.Background(), ix, Request{Text: fill(t, c.text, marks), Budget: goldenBudget, Without: c.without})
			if err != nil {
				t.Fatal(err)
			}
			if c.intent != "" && res.Analysis.Intent.Name != c.intent {
				t.Errorf("intent = %s, want %s", res.Analysis.Intent.Name, c.intent)
			}
			if len(res.Files) == 0 || res.Files[0].Path != c.top {
				t.Errorf("first file = %v, want %s", firstPaths(res.Files, 3), c.top)
			}
			if n := tok.Count(res.Pack.Text); n > goldenBudget || n != res.Pack.Tokens {
				t.Errorf("the text counts %d tokens, the pack says %d, the budget is %d", n, res.Pack.Tokens, goldenBudget)
			}
			want := c.items
			if c.first != nil {
				want = append([]wantItem{*c.first}, want...)
				if at := itemAt(ix, res.Pack, c.first.ref); at != 0 {
					t.Errorf("the first item does not hold %s (it is at %d); items: %v", c.first.ref, at, itemNames(res.Pack))
				}
			}
			for _, w := range want {
				at := itemAt(ix, res.Pack, w.ref)
				switch {
				case at < 0:
					t.Errorf("the pack lacks %s; items: %v", w.ref, itemNames(res.Pack))
				case !strings.Contains(strings.Join(res.Pack.Items[at].Why, "; "), w.why):
					t.Errorf("%s: why = %q, want it to mention %q", w.ref, res.Pack.Items[at].Why, w.why)
				}
			}
			for _, o := range c.order {
				if a, b := itemAt(ix, res.Pack, o[0]), itemAt(ix, res.Pack, o[1]); a < 0 || b < 0 || a >= b {
					t.Errorf("%s (item %d) should come before %s (item %d); items: %v", o[0], a, o[1], b, itemNames(res.Pack))
				}
			}
			checkGolden(t, c, res.Pack)
		})
	}
}

// TestLexiconExpansionFindsTheCart shows the project lexicon at work: "basket" reaches the cart only
// through the lexicon's basket -> cart.
func TestLexiconExpansionFindsTheCart(t *testing.T) {
	ix, _ := shop(t)
	text := "The basket forgets the quantity when the same product is put in twice"
	res, err := ask(context.Background(), ix, Request{Text: text, Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Analysis.Terms, func(x query.Term) bool { return x.Word == "cart" && x.Source == "lexicon:basket" }) {
		t.Errorf("no expansion basket -> cart in %+v", res.Analysis.Terms)
	}
	off, err := ask(context.Background(), ix, Request{Text: text, Budget: 1500, Without: []string{"lexicon"}})
	if err != nil {
		t.Fatal(err)
	}
	if rankOf(off.Files, "shop/cart.py") <= rankOf(res.Files, "shop/cart.py") {
		t.Errorf("shop/cart.py ranks %d without the lexicon and %d with it", rankOf(off.Files, "shop/cart.py"), rankOf(res.Files, "shop/cart.py"))
	}

	// an edited lexicon counts from the next query, even before the index hears of it (a lexicon
	// outside the workspace)
	file := filepath.Join(ix.Root(), ".ctxmap", "lexicon.yaml")
	if err := os.WriteFile(file, []byte("synonyms:\n  cart:\n    strong: [trolley]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	again, err := ask(context.Background(), ix, Request{Text: "The trolley forgets the quantity", Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(again.Analysis.Terms, func(x query.Term) bool { return x.Word == "cart" && x.Source == "lexicon:trolley" }) {
		t.Errorf("after the edit, no expansion trolley -> cart in %+v", again.Analysis.Terms)
	}
}

// TestGoldenBudgets: from 200 to 32,000 tokens, in every format and with both tokenizers, a pack never
// exceeds its budget when its text is counted again; the first file is in even the smallest pack.
func TestGoldenBudgets(t *testing.T) {
	ix, marks := shop(t)
	for _, c := range goldenCases(t) {
		text := fill(t, c.text, marks)
		for _, tokName := range []string{"o200k_base", "cl100k_base"} {
			tok, err := pack.NewTokenizer(tokName)
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"markdown", "xml", "json"} {
				for _, budget := range []int{200, 500, 1000, 2000, 4000, 8000, 16000, 32000} {
					res, err := ask(context.Background(), ix, Request{Text: text, Budget: budget, Format: format, Tokenizer: tokName})
					if err != nil {
						t.Fatal(err)
					}
					p := res.Pack
					label := fmt.Sprintf("%s %s %s budget %d", c.name, tokName, format, budget)
					if n := tok.Count(p.Text); n > budget || n != p.Tokens {
						t.Errorf("%s: text counts %d tokens, pack says %d", label, n, p.Tokens)
					}
					if !slices.ContainsFunc(p.Items, func(it pack.Item) bool { return it.Path == c.top && it.Kind != "import" }) {
						t.Errorf("%s: nothing of %s", label, c.top)
					}
					if budget >= 1000 && findItem(ix, p, c.lead()) == nil {
						t.Errorf("%s: lacks %s", label, c.lead())
					}
				}
			}
		}
	}
}

// goldenCaseNamed is the pack case of that name.
func goldenCaseNamed(t *testing.T, name string) goldenCase {
	t.Helper()
	for _, c := range goldenCases(t) {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no pack case %s in %s", name, goldenDir)
	return goldenCase{}
}

// checkGolden compares a case's pack with the pack.md of its file, if it keeps one, or rewrites that
// with -update.
func checkGolden(t *testing.T, c goldenCase, p *pack.Pack) {
	t.Helper()
	a, err := txtar.ParseFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(a.Files, func(f txtar.File) bool { return f.Name == "pack.md" })
	if i < 0 {
		return // its layout is not the point
	}
	if string(a.Files[i].Data) == p.Text {
		return
	}
	if !*update {
		t.Errorf("the pack differs from pack.md in %s (go test -update rewrites it):\n%s", c.path, p.Text)
		return
	}
	a.Files[i].Data = []byte(p.Text)
	if err := os.WriteFile(c.path, txtar.Format(a), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lead is the definition a case names first: its first line, else its first item line.
func (c goldenCase) lead() string {
	if c.first != nil {
		return c.first.ref
	}
	return c.items[0].ref
}

// findItem finds the item holding a definition: the definition itself, or an enclosing one shown whole
// (a class with its methods).
func findItem(ix *Index, p *pack.Pack, pathSymbol string) *pack.Item {
	if i := itemAt(ix, p, pathSymbol); i >= 0 {
		return &p.Items[i]
	}
	return nil
}

// itemAt is the place of the first item holding a definition (path::symbol, or a path alone: any item
// of the file but its imports), or -1.
func itemAt(ix *Index, p *pack.Pack, pathSymbol string) int {
	path, sym, _ := strings.Cut(pathSymbol, "::")
	start, end := -1, -1
	if rec := ix.Snapshot().Record(path); rec != nil && rec.File != nil {
		for _, d := range rec.File.Definitions {
			if d.Qualified() == sym {
				start, end = d.StartLine, d.EndLine
			}
		}
	}
	for i, it := range p.Items {
		if it.Path == path && it.Kind != "import" && (sym == "" || it.Symbol == sym || it.StartLine <= start && end <= it.EndLine) {
			return i
		}
	}
	return -1
}

func itemNames(p *pack.Pack) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.Path+"::"+it.Symbol)
	}
	return out
}

func firstPaths(fs []rank.RankedFile, n int) []string {
	var out []string
	for i := 0; i < len(fs) && i < n; i++ {
		out = append(out, fs[i].Path)
	}
	return out
}

// rankOf is a file's place in the ranking from 1, or one past the end.
func rankOf(fs []rank.RankedFile, p string) int {
	for i, f := range fs {
		if f.Path == p {
			return i + 1
		}
	}
	return len(fs) + 1
}

// showsDefinition tells whether a pack shows a definition's code: an item of that name, or an item
// (a whole file, a larger definition) whose shown lines hold the definition's first line.
func showsDefinition(ix *Index, p *pack.Pack, path, name string) bool {
	rec := ix.Snapshot().Record(path)
	for _, it := range p.Items {
		if it.Path != path || len(it.Shown) == 0 {
			continue
		}
		if it.Symbol == name {
			return true
		}
		if rec == nil || rec.File == nil {
			continue
		}
		for _, d := range rec.File.Definitions {
			if d.Qualified() != name {
				continue
			}
			for _, r := range it.Shown {
				if r[0] <= d.StartLine && d.StartLine <= r[1] {
					return true
				}
			}
		}
	}
	return false
}
