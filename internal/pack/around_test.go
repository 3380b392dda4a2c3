package pack

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// A whole body shows the lines right above and below it, where a sibling the fix adds goes; a cut
// body shows none below it, and a line two pieces of a file hold is said once.
func TestAWholeBodyShowsTheLinesAroundIt(t *testing.T) {
	tok := tokenizer(t, "")
	cands := []Candidate{
		{Kind: "definition", Path: "a.go", Language: "go", StartLine: 3, EndLine: 5, Compact: "func A()",
			Full: "func A() {\n\ta()\n}", Before: []string{"package a", "// top"}, After: []string{"", "// B is the second."}},
		{Kind: "definition", Path: "a.go", Language: "go", StartLine: 7, EndLine: 9, Compact: "func B()",
			Full: "// B is the second.\nfunc B() {\n}", Before: []string{"}", ""}, After: []string{"", "func C() {"}},
	}
	for _, format := range []string{"markdown", "xml"} {
		p := assemble(t, cands, Options{Budget: 2000, Tokenizer: tok, Format: format, Shares: bugFixShares})
		if len(p.Items) != 2 {
			t.Fatalf("%s: items %+v", format, p.Items)
		}
		for i, want := range []Lines{{1, 7}, {5, 11}} {
			if got := p.Items[i].Shown; len(got) != 1 || got[0] != want {
				t.Errorf("%s: item %d shows %v, want %v", format, i, got, want)
			}
		}
		for _, line := range []string{"package a", "// top", "func C() {"} {
			if !strings.Contains(p.Text, line) {
				t.Errorf("%s: %q, a line around a body, is not shown:\n%s", format, line, p.Text)
			}
		}
		if format != "markdown" {
			continue
		}
		if n := strings.Count(p.Text, "// B is the second."); n != 1 {
			t.Errorf("the line both pieces hold is said %d times:\n%s", n, p.Text)
		}
		if strings.Contains(p.Text, "...") || !strings.Contains(p.Text, "### a.go:1-11") {
			t.Errorf("the file's lines 1-11 are not one block without a gap:\n%s", p.Text)
		}
	}

	// cut to its first lines, a body shows nothing below it
	long := Candidate{Kind: "definition", Path: "b.go", Language: "go", StartLine: 2, EndLine: 401, Compact: "func Long()",
		Full: "func Long() {\n" + strings.Repeat("\tstep()\n", 398) + "}", After: []string{"", "// Next is below."}, Cap: 300}
	p := assemble(t, []Candidate{long}, Options{Budget: 2000, Tokenizer: tok, Shares: bugFixShares})
	if strings.Contains(p.Text, "Next is below") {
		t.Errorf("a cut body shows the lines below its end:\n%s", p.Text)
	}
}

// Two overlapping bodies merged show the lines above the first and below the last.
func TestAMergeKeepsTheOuterLinesAround(t *testing.T) {
	x := prepare(0, Candidate{Kind: "definition", Path: "a.go", StartLine: 10, EndLine: 12, Full: "a\nb\nc",
		Before: []string{"x-before"}, After: []string{"x-after"}})
	y := prepare(1, Candidate{Kind: "definition", Path: "a.go", StartLine: 12, EndLine: 14, Full: "c\nd\ne",
		Before: []string{"y-before"}, After: []string{"y-after"}})
	for _, m := range []*cand{merge(x, y), merge(y, x)} {
		if len(m.Before) != 1 || m.Before[0] != "x-before" || len(m.After) != 1 || m.After[0] != "y-after" {
			t.Errorf("merged %d-%d: before %q, after %q", m.StartLine, m.EndLine, m.Before, m.After)
		}
	}
}

// Random definitions of one file, each offering the lines around it: whatever the pack takes, every
// item's code is the file's own lines where its shown ranges say, and the text says each line once.
func TestTheLinesAroundBodiesStayExact(t *testing.T) {
	tok := tokenizer(t, "")
	rng := rand.New(rand.NewSource(filetest.Seed(t)))
	const n = 120
	file := make([]string, n+1) // file[k] is line k
	for k := 1; k <= n; k++ {
		file[k] = fmt.Sprintf("line_%03d();", k)
	}
	span := func(a, b int) []string { return slices.Clone(file[max(1, a) : min(n, b)+1]) }
	for round := range 40 {
		var cands []Candidate
		for range 2 + rng.Intn(10) {
			a := 1 + rng.Intn(n-8)
			b := min(n, a+rng.Intn(12))
			cands = append(cands, Candidate{Kind: "definition", Path: "f.go", Language: "go", StartLine: a, EndLine: b,
				Compact: fmt.Sprintf("card %d", a), Full: strings.Join(span(a, b), "\n"), Before: span(a-AroundLines, a-1), After: span(b+1, b+AroundLines),
				Cap: 60 + rng.Intn(300)})
		}
		budget := 300 + rng.Intn(1500)
		p := assemble(t, cands, Options{Budget: budget, Tokenizer: tok, Shares: bugFixShares})
		if p.Tokens > budget {
			t.Fatalf("round %d: %d tokens over a budget of %d", round, p.Tokens, budget)
		}
		for _, it := range p.Items {
			var shown []string
			for _, r := range it.Shown {
				shown = append(shown, span(r[0], r[1])...)
			}
			for _, l := range shown {
				if !strings.Contains(it.Code, l) {
					t.Fatalf("round %d: item %d-%d claims %q, which its code lacks:\n%s", round, it.StartLine, it.EndLine, l, it.Code)
				}
			}
			if len(it.Shown) == 1 && it.Size == "full" {
				if got := strings.Join(shown, "\n"); it.Code != got {
					t.Fatalf("round %d: a whole item's code is not its shown lines:\n%s\nwant\n%s", round, it.Code, got)
				}
			}
		}
		for k := 1; k <= n; k++ {
			if c := strings.Count(p.Text, file[k]+"\n"); c > 1 {
				t.Fatalf("round %d: %q said %d times:\n%s", round, file[k], c, p.Text)
			}
		}
	}
}

// In a small pack that spends its budget on code, a definition shown beside its file's best waits for
// it: when the best cannot be shown, not even as its card, neither is.
func TestASmallPackShowsNoFragmentWithoutItsBest(t *testing.T) {
	tok := tokenizer(t, "")
	body := func(name string, n int) string {
		return "func " + name + "() {\n" + strings.Repeat("\tstep_of_"+name+"()\n", n) + "}"
	}
	beside := Candidate{Kind: "snippet", Bucket: "snippets", Path: "b.go", Language: "go", StartLine: 80, EndLine: 86,
		Compact: "func Second()", Full: body("Second", 5), BodyOnly: true, Beside: 10}
	for _, signature := range []int{1, 2000} { // a signature of 2,000 words fits no pack of 1,500 tokens
		best := Candidate{Kind: "definition", Bucket: "definitions", Path: "b.go", Language: "go", StartLine: 10, EndLine: 40,
			Compact: "func Best(" + strings.Repeat("arg int, ", signature) + ")", Full: body("Best", 29)}
		if signature > 1 {
			best.Full = "" // its card or nothing
		}
		for _, budget := range []int{1500, 8000} {
			p := assemble(t, []Candidate{best, beside}, Options{Budget: budget, Tokenizer: tok, Shares: bugFixShares, BodiesFirst: true})
			shown := map[int]bool{}
			for _, it := range p.Items {
				shown[it.StartLine] = true
			}
			switch {
			case signature == 1 && !(shown[10] && shown[80]):
				t.Errorf("budget %d: the best and the definition beside it are not both shown:\n%s", budget, p.Text)
			case signature > 1 && budget < SmallBudget && shown[80]:
				t.Errorf("budget %d: the definition beside b.go's best is shown without it:\n%s", budget, p.Text)
			case signature > 1 && budget >= SmallBudget && !shown[80]:
				t.Errorf("budget %d: a larger pack does not wait, yet the definition beside is not shown:\n%s", budget, p.Text)
			}
		}
	}
}
