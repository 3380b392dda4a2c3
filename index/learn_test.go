package index

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/rank"
)

// The learned ranker on the shop workspace: a tight pack whose items carry probabilities, the same
// pack every time, and beside it the fill and fusion packs it replaced.
func TestLearnedPackStopsWithTheEvidence(t *testing.T) {
	ix, marks := shop(t)
	text := fill(t, goldenCaseNamed(t, "python_trace").text, marks) // a Python traceback into shop/discount.py
	ctx := context.Background()
	tight, err := ask(ctx, ix, Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if len(tight.Pack.Items) == 0 {
		t.Fatal("an empty pack")
	}
	files := map[string]bool{}
	for _, it := range tight.Pack.Items {
		if it.Kind != "outline" {
			files[it.Path] = true
		}
		beside := strings.Contains(strings.Join(it.Why, ";"), "beside `") // shown with its file's best
		if !(it.Probability > 0 && it.Probability < 1) && !beside {
			t.Errorf("%s %s: probability %v", it.Path, it.Symbol, it.Probability)
		}
	}
	if len(files) > rank.TightFiles {
		t.Errorf("%d files in a tight pack", len(files))
	}
	if !strings.Contains(tight.Pack.Text, "(p=0.") {
		t.Error("the pack does not show its probabilities")
	}
	for i := 1; i < len(tight.Files); i++ {
		if tight.Files[i].Prob > tight.Files[i-1].Prob && i < LearnedCandidates {
			t.Fatalf("files out of the model's order at %d: %v > %v", i, tight.Files[i].Prob, tight.Files[i-1].Prob)
		}
	}
	again, err := ask(ctx, ix, Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if again.Pack.Text != tight.Pack.Text || !reflect.DeepEqual(again.Pack.Items, tight.Pack.Items) {
		t.Error("the same query gave another pack")
	}

	filled, err := ask(ctx, ix, Request{Text: text, Fill: true})
	if err != nil {
		t.Fatal(err)
	}
	if filled.Pack.Tokens <= tight.Pack.Tokens {
		t.Errorf("a filled pack of %d tokens beside a tight one of %d", filled.Pack.Tokens, tight.Pack.Tokens)
	}
	fusion, err := ask(ctx, ix, Request{Text: text, Ranker: RankerFusion})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range fusion.Pack.Items {
		if it.Probability != 0 {
			t.Fatalf("the fusion ranker gave %s a probability", it.Path)
		}
	}
	if _, err := ask(ctx, ix, Request{Text: text, Ranker: "magic"}); err == nil {
		t.Error("an unknown ranker was accepted")
	}
}

// A file's evidence is said once, with its best definition; its next definitions point to that one.
// A small likely file shown whole says it once too.
func TestTightPackSaysAFilesEvidenceOnce(t *testing.T) {
	ix, _ := shop(t)
	res, err := ask(context.Background(), ix, Request{Text: "Stock.Reserve and Stock.Available disagree after Stock.Place"})
	if err != nil {
		t.Fatal(err)
	}
	var full, short int
	whole := false
	for _, it := range res.Pack.Items {
		if it.Path != "inventory/stock.go" {
			continue
		}
		whole = whole || it.Kind == "file"
		why := strings.Join(it.Why, "; ")
		switch {
		case strings.Contains(why, "BM25"):
			full++
		case strings.HasPrefix(why, "file #1, beside `Stock."):
			short++
		default:
			t.Errorf("%s: why %q", it.Symbol, why)
		}
	}
	if full != 1 || short == 0 && !whole {
		t.Errorf("stock.go's evidence said %d times, %d definitions beside it", full, short)
	}
}

// A request is resolved against the settings of the front end that resolves it (fill switched off in
// the editor), not the index's own configuration as opened.
func TestResolvedRequestKeepsItsFill(t *testing.T) {
	ix, marks := shop(t)
	ix.cfg.Fill = true // as opened, before the editor's setting changed
	text := fill(t, goldenCaseNamed(t, "python_trace").text, marks)
	filled, err := ask(context.Background(), ix, Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	req, err := Request{Text: text}.Resolve(Config{})
	if err != nil {
		t.Fatal(err)
	}
	tight, err := ix.Context(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if tight.Pack.Tokens >= filled.Pack.Tokens {
		t.Errorf("fill off gave %d tokens, the configuration's fill %d", tight.Pack.Tokens, filled.Pack.Tokens)
	}
}

// Mining and answering describe candidates alike: Features gives the fused order with vectors of the
// model's width, and the definitions of the files asked for.
func TestFeaturesDescribeTheFusedRanking(t *testing.T) {
	ix, marks := shop(t)
	text := fill(t, goldenCaseNamed(t, "python_trace").text, marks)
	got, err := ix.Features(context.Background(), text, 10, func(p string, rank int) bool { return rank == 0 })
	if err != nil {
		t.Fatal(err)
	}
	res, err := ask(context.Background(), ix, Request{Text: text, Ranker: RankerFusion})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) > 10 {
		t.Fatalf("%d candidates", len(got))
	}
	for i, c := range got {
		if c.Path != res.Files[i].Path {
			t.Errorf("candidate %d is %s, the fused ranking's %s", i, c.Path, res.Files[i].Path)
		}
		if len(c.X) != len(rank.FileFeatures) {
			t.Errorf("%s: %d features, want %d", c.Path, len(c.X), len(rank.FileFeatures))
		}
		if (i == 0) != (len(c.Defs) > 0) {
			t.Errorf("%s (rank %d): %d definitions described", c.Path, i, len(c.Defs))
		}
	}
	x := got[0].X
	pos := rank.Index(rank.FileFeatures)
	if x[pos["frames_rr"]] == 0 || x[pos["fused_rr"]] != 1 || x[pos["is_code"]] != 1 {
		t.Errorf("the traceback's file: frames_rr %v fused_rr %v is_code %v", x[pos["frames_rr"]], x[pos["fused_rr"]], x[pos["is_code"]])
	}
	for _, d := range got[0].Defs {
		if len(d.X) != len(rank.DefFeatures) {
			t.Fatalf("%s: %d features, want %d", d.Symbol, len(d.X), len(rank.DefFeatures))
		}
	}
}
