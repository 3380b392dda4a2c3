package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	filetest.Write(t, root, files)
}

func gitRun(t *testing.T, dir string, args ...string) string { return filetest.Git(t, dir, args...) }

// shop is the small shop the benchmark's tests index and commit to (the mining tests too).
var shop = filetest.Txtar("testdata/shop.txtar")

// makeTree commits files in a fresh repository and copies the commit to the work tree folder as the
// work-tree tool names it, with its marker; it returns the commit.
func makeTree(t *testing.T, repo string, wt string, files map[string]string) string {
	t.Helper()
	writeTree(t, repo, files)
	gitRun(t, repo, "add", "-A")
	gitRun(t, repo, "commit", "-q", "-m", "change the shop")
	sha := gitRun(t, repo, "rev-parse", "HEAD")
	tree := filepath.Join(wt, "acme+shop@"+sha[:12])
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive %s | tar -x -C %q", repo, sha, tree))
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("archive: %v\n%s", err, out)
	}
	if err := os.WriteFile(tree+".done", []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return sha
}

func TestRun(t *testing.T) {
	filetest.NeedGit(t)
	repo, wt := t.TempDir(), t.TempDir()
	gitRun(t, repo, "init", "-q")
	first := makeTree(t, repo, wt, shop)
	// a later commit: the cart's total changes, the rest stays
	second := makeTree(t, repo, wt, map[string]string{
		"shop/cart.py": strings.Replace(shop["shop/cart.py"], "    def total(self):\n", "    def total(self):\n        # rounded to cents\n", 1),
	})
	// a long file for the baseline to cut
	var long strings.Builder
	long.WriteString("\"\"\"Prices, totals and coupons, formatted for receipts.\"\"\"\n\n")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&long, "def format_total_%d(total, coupon):\n    return '%%s with coupon %%s' %% (total, coupon)\n\n", i)
	}
	tree1 := filepath.Join(wt, "acme+shop@"+first[:12])
	writeTree(t, tree1, map[string]string{"shop/receipt.py": long.String()})

	lines := []string{
		mustJSON(t, map[string]any{"instance_id": "acme__shop-2", "repo": "acme/shop", "base_commit": second, "language": "python",
			"problem_statement": "Cart.total ignores the quantity of items\n\nCart.total() should multiply each price by its quantity.",
			"gold_files":        []string{"shop/cart.py"}, "gold_functions": []string{"shop/cart.py::total"}, "gold_functions_src": []string{"shop/cart.py::Cart.total"}}),
		`{"instance_id": "acme__shop-3", "repo": "acme/shop", "base_commit": `, // cut short
		mustJSON(t, map[string]any{"instance_id": "acme__shop-1", "repo": "Acme/Shop", "base_commit": first, "language": "python",
			"problem_statement": "apply_discount makes the total negative\n\nWhen the coupon is worth more than the cart, `apply_discount` returns a negative total; it should stop at zero.",
			"gold_files":        []string{"shop/discount.py"}, "gold_functions": []string{"shop/discount.py::apply_discount"}}),
		mustJSON(t, map[string]any{"instance_id": "acme__gone-1", "repo": "acme/gone", "base_commit": strings.Repeat("ab", 20), "language": "go",
			"problem_statement": "anything", "gold_files": []string{"main.go"}}),
		mustJSON(t, map[string]any{"instance_id": "acme__shop-4", "repo": "acme/shop", "base_commit": first, "language": "python",
			"problem_statement": "the fix touched no source file", "gold_files": []string{}}),
	}
	dataset := filepath.Join(t.TempDir(), "dev.jsonl")
	if err := os.WriteFile(dataset, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const budget = 600
	rep, err := Run(context.Background(), Options{Dataset: dataset, Worktrees: wt, Budget: budget, Baseline: true,
		Without: [][]string{{"bm25"}}, CacheDir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Selected != 4 || rep.Scored != 2 || rep.Missing != 1 || rep.NoGold != 1 || rep.Failed != 0 {
		t.Fatalf("selected %d scored %d missing %d without gold %d failed %d", rep.Selected, rep.Scored, rep.Missing, rep.NoGold, rep.Failed)
	}
	if len(rep.BadLines) != 1 || rep.BadLines[0].Line != 2 {
		t.Errorf("bad lines %+v, want line 2", rep.BadLines)
	}
	if rep.BudgetViolations != 0 {
		t.Errorf("%d packs over the budget", rep.BudgetViolations)
	}
	byID := map[string]InstanceResult{}
	for _, in := range rep.Instances {
		byID[in.ID] = in
	}
	if in := byID["acme__gone-1"]; in.Status != StatusMissing || !strings.Contains(in.Error, "acme+gone@") {
		t.Errorf("missing tree reported as %s: %s", in.Status, in.Error)
	}
	one, two := byID["acme__shop-1"], byID["acme__shop-2"]
	if one.Index == nil || one.Index.Kind != "cold" || two.Index == nil || two.Index.Kind != "incremental" {
		t.Fatalf("index kinds: %+v %+v", one.Index, two.Index)
	}
	// the second tree shares the repository's cache: what did not change is not parsed again
	if two.Index.Parsed >= two.Index.Files {
		t.Errorf("incremental index parsed %d of %d files", two.Index.Parsed, two.Index.Files)
	}
	for _, in := range []InstanceResult{one, two} {
		for _, name := range []string{SystemCtxmap, AblationName([]string{"bm25"}), SystemBM25} {
			s := in.Systems[name]
			if s == nil {
				t.Fatalf("%s: no %s", in.ID, name)
			}
			if s.Error != "" {
				t.Fatalf("%s %s: %s", in.ID, name, s.Error)
			}
			// the metrics agree with the files the report lists
			want := map[string]float64{
				PackRecall: float64(foundIn(s.PackFiles, in.GoldFiles)) / float64(len(in.GoldFiles)),
				Hit10:      boolf(foundIn(s.Ranked, in.GoldFiles) == len(in.GoldFiles)),
			}
			checkMetrics(t, s.Metrics, want)
			if s.Metrics[Tokens] > budget || s.Metrics[Tokens] <= 0 {
				t.Errorf("%s %s: %v tokens", in.ID, name, s.Metrics[Tokens])
			}
		}
	}
	// the issue names the function: ctxmap's pack holds its file and its definition
	if s := one.Systems[SystemCtxmap]; s.Metrics[PackRecall] != 1 || s.Metrics[SymbolRecall] != 1 {
		t.Errorf("ctxmap on acme__shop-1: %v", s.Metrics)
	}
	for name, a := range rep.Overall {
		if a.N != 2 {
			t.Errorf("%s aggregated over %d instances", name, a.N)
		}
	}
	if rep.ByLanguage["python"][SystemCtxmap].N != 2 || rep.ByRepo["Acme/Shop"][SystemBM25].N != 2 || len(rep.ByRepo) != 1 {
		t.Errorf("groups: %v / %v", rep.ByLanguage, rep.ByRepo)
	}
	if rep.IndexTimes.Cold.N != 1 || rep.IndexTimes.Incremental.N != 1 {
		t.Errorf("index times %+v", rep.IndexTimes)
	}

	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Instances []map[string]any                     `json:"instances"`
		Overall   map[string]struct{ N int }           `json:"overall"`
		ByRepo    map[string]map[string]map[string]any `json:"by_repo"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the JSON report does not parse: %v", err)
	}
	if len(doc.Instances) != 4 || doc.Overall[SystemCtxmap].N != 2 {
		t.Errorf("JSON: %d instances, overall %v", len(doc.Instances), doc.Overall)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ctxmap-no-bm25", "bm25-files", "missing acme__gone-1", "bad line 2", "budget violations: 0"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

func TestRunRefuses(t *testing.T) {
	dataset := filepath.Join(t.TempDir(), "d.jsonl")
	os.WriteFile(dataset, []byte("{}\n"), 0o644)
	for _, o := range []Options{
		{Dataset: dataset, Worktrees: t.TempDir(), Budget: 50},
		{Dataset: dataset, Worktrees: t.TempDir(), Without: [][]string{{"telepathy"}}},
		{Dataset: dataset, Worktrees: filepath.Join(t.TempDir(), "none")},
		{Dataset: filepath.Join(t.TempDir(), "none.jsonl"), Worktrees: t.TempDir()},
	} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("Run(%+v) did not fail", o)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWholeFiles(t *testing.T) {
	root := t.TempDir()
	var long strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&long, "line %d of the parser's notes about tokens\n", i)
	}
	writeTree(t, root, map[string]string{
		"a/parser.go": long.String(),
		"b/token.go":  "package b\n\n// Token is one lexeme of the parser.\ntype Token struct{ Text string }\n",
		"c/other.go":  "package c\n\nfunc unrelated() {}\n",
	})
	fs, err := NewFileSearch(root, []string{"a/parser.go", "b/token.go", "c/other.go", "gone.go"})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	ranked, err := fs.Rank(context.Background(), "the Token struct of the parser", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ranked) < 2 || ranked[0] != "b/token.go" {
		t.Fatalf("ranked %v, want b/token.go first", ranked)
	}
	tok, err := index.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	const budget = 500
	items, text, tokens := fs.WholeFiles([]string{"b/token.go", "a/parser.go", "c/other.go"}, budget, tok)
	if len(items) != 2 || items[0].Size != "full" || items[1].Size != "truncated" || items[1].Path != "a/parser.go" {
		t.Fatalf("items %+v", items)
	}
	if tokens != tok.Count(text) || tokens > budget {
		t.Errorf("tokens %d, counted %d, budget %d", tokens, tok.Count(text), budget)
	}
	cut := items[1].EndLine
	if cut < 1 || cut >= 300 {
		t.Fatalf("cut at line %d", cut)
	}
	// the cut is as late as the budget allows: one more line does not fit
	lines := strings.SplitAfter(long.String(), "\n")
	more := strings.Replace(text, fileBlock("a/parser.go", lines[:cut]), fileBlock("a/parser.go", lines[:cut+1]), 1)
	if tok.Count(more) <= budget {
		t.Errorf("line %d would still fit", cut+1)
	}
	if !strings.Contains(text, "type Token struct") || strings.Contains(text, "unrelated") {
		t.Errorf("text:\n%s", text)
	}
}
