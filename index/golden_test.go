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
// section), what the pack must show (a want section: intent, top, item, why, without) and the whole
// pack (pack.md), which -update rewrites.
var goldenDir = filepath.Join("..", "testdata", "golden")

type goldenCase struct {
	name    string
	path    string   // its txtar file
	text    string   // {{marker}} stands for the line of a marker of shop.txtar
	intent  string   // the intent the analysis must find
	top     string   // the file ranked first
	item    string   // path::symbol of a definition or snippet the pack must hold
	why     string   // words that item's reasons must include
	without []string // signals switched off
}

// goldenCases reads the pack cases of goldenDir, by name.
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
				for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					key, value, _ := strings.Cut(line, ": ")
					switch key {
					case "intent":
						c.intent = value
					case "top":
						c.top = value
					case "item":
						c.item = value
					case "why":
						c.why = value
					case "without":
						c.without = strings.Split(value, ",")
					default:
						t.Fatalf("%s: want %q: not intent, top, item, why or without", p, line)
					}
				}
			}
		}
		if c.text == "" || c.top == "" || c.item == "" {
			t.Fatalf("%s: a case needs a text, and a top and an item in want", p)
		}
		cases = append(cases, c)
	}
	return cases
}

// TestGoldenPacks runs each intent, each stack-trace language, an error message and a lexicon
// expansion against the shop workspace: the intent, the first file and a named definition with its
// reasons are checked, and the whole pack is compared with its golden file.
func TestGoldenPacks(t *testing.T) {
	ix, marks := shop(t)
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			res, err := ask(context.Background(), ix, Request{Text: fill(t, c.text, marks), Budget: 1500, Without: c.without})
			if err != nil {
				t.Fatal(err)
			}
			if c.intent != "" && res.Analysis.Intent.Name != c.intent {
				t.Errorf("intent = %s, want %s", res.Analysis.Intent.Name, c.intent)
			}
			if len(res.Files) == 0 || res.Files[0].Path != c.top {
				t.Errorf("first file = %v, want %s", firstPaths(res.Files, 3), c.top)
			}
			it := findItem(ix, res.Pack, c.item)
			switch {
			case it == nil:
				t.Errorf("the pack lacks %s; items: %v", c.item, itemNames(res.Pack))
			case !strings.Contains(strings.Join(it.Why, "; "), c.why):
				t.Errorf("%s: why = %q, want it to mention %q", c.item, it.Why, c.why)
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
					if budget >= 1000 && findItem(ix, p, c.item) == nil {
						t.Errorf("%s: lacks %s", label, c.item)
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

// checkGolden compares a case's pack with the pack.md of its file, or rewrites that with -update.
func checkGolden(t *testing.T, c goldenCase, p *pack.Pack) {
	t.Helper()
	a, err := txtar.ParseFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(a.Files, func(f txtar.File) bool { return f.Name == "pack.md" })
	if i < 0 {
		a.Files, i = append(a.Files, txtar.File{Name: "pack.md"}), len(a.Files)
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

// findItem finds the item holding a definition: the definition itself, or an enclosing one shown whole
// (a class with its methods).
func findItem(ix *Index, p *pack.Pack, pathSymbol string) *pack.Item {
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
		if it.Path == path && (it.Symbol == sym || it.Kind != "import" && it.StartLine <= start && end <= it.EndLine) {
			return &p.Items[i]
		}
	}
	return nil
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
