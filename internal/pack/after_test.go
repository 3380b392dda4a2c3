package pack

import (
	"strings"
	"testing"
)

// A whole body shows the lines right below it, where a sibling the fix adds goes; a cut body does not,
// and a line the next piece of the file shows is said once.
func TestAWholeBodyShowsTheLinesBelowIt(t *testing.T) {
	tok := tokenizer(t, "")
	cands := []Candidate{
		{Kind: "definition", Path: "a.go", Language: "go", StartLine: 3, EndLine: 5, Compact: "func A()",
			Full: "func A() {\n\ta()\n}", After: []string{"", "// B is the second."}},
		{Kind: "definition", Path: "a.go", Language: "go", StartLine: 7, EndLine: 9, Compact: "func B()",
			Full: "// B is the second.\nfunc B() {\n}", After: []string{"", "func C() {"}},
	}
	for _, format := range []string{"markdown", "xml"} {
		p := assemble(t, cands, Options{Budget: 2000, Tokenizer: tok, Format: format, Shares: bugFixShares})
		if len(p.Items) != 2 {
			t.Fatalf("%s: items %+v", format, p.Items)
		}
		for i, want := range []Lines{{3, 7}, {7, 11}} {
			if got := p.Items[i].Shown; len(got) != 1 || got[0] != want {
				t.Errorf("%s: item %d shows %v, want %v", format, i, got, want)
			}
		}
		if n := strings.Count(p.Text, "// B is the second."); format == "markdown" && n != 1 {
			t.Errorf("%s: the line both pieces hold is said %d times:\n%s", format, n, p.Text)
		}
		if !strings.Contains(p.Text, "func C() {") {
			t.Errorf("%s: the line below the last body is not shown:\n%s", format, p.Text)
		}
	}

	// cut to its first lines, a body shows nothing below it
	long := Candidate{Kind: "definition", Path: "b.go", Language: "go", StartLine: 1, EndLine: 400, Compact: "func Long()",
		Full: "func Long() {\n" + strings.Repeat("\tstep()\n", 398) + "}", After: []string{"", "// Next is below."}, Cap: 300}
	p := assemble(t, []Candidate{long}, Options{Budget: 2000, Tokenizer: tok, Shares: bugFixShares})
	if strings.Contains(p.Text, "Next is below") {
		t.Errorf("a cut body shows the lines below its end:\n%s", p.Text)
	}
}
