package pack

import (
	"fmt"
	"strings"
	"testing"
)

// longFunc is a Go function of n body lines starting at file line start; line mark (a file line)
// holds the call the evidence points at, inside an if block.
func longFunc(start, n, mark int) Candidate {
	var b strings.Builder
	b.WriteString("func cloneRun(opts *CloneOptions) error {\n")
	for i := 1; i <= n; i++ {
		switch line := start + i; {
		case line == mark-1:
			b.WriteString("\tif opts.Upstream {\n")
		case line == mark:
			b.WriteString("\t\terr = git.AddRemote(\"upstream\", upstreamURL)\n")
		case line == mark+1:
			b.WriteString("\t}\n")
		default:
			fmt.Fprintf(&b, "\tstep%d := prepare(ctx, %d) // setting up the clone, part %d\n", line, line, line)
		}
	}
	b.WriteString("}")
	return Candidate{
		Kind: "definition", Path: "pkg/cmd/repo/clone/clone.go", Symbol: "cloneRun", Language: "go",
		StartLine: start, EndLine: start + n + 1, Why: []string{"test"},
		Compact: "func cloneRun(opts *CloneOptions) error {", Full: b.String(),
	}
}

// A cut keeps the signature and the lines the evidence points at, with the block that holds them,
// and says how many lines each elision hides; the shown ranges are the lines it shows verbatim.
func TestCutKeepsTheFocus(t *testing.T) {
	tok := tokenizer(t, "")
	const start, n, mark = 100, 120, 190
	c := longFunc(start, n, mark)
	c.Focus = []int{mark}
	p := assemble(t, []Candidate{c}, Options{Budget: 900, Tokenizer: tok, Shares: map[string]float64{"definitions": 1}})
	checkPack(t, "focus", p, []Candidate{c}, tok)
	if len(p.Items) != 1 || p.Items[0].Size != sizeTruncated {
		t.Fatalf("want one cut item, got %+v", p.Items)
	}
	it := p.Items[0]
	for _, want := range []string{"func cloneRun(", "if opts.Upstream {", "git.AddRemote(\"upstream\"", "// ... "} {
		if !strings.Contains(it.Code, want) {
			t.Errorf("the cut lacks %q:\n%s", want, it.Code)
		}
	}
	if !strings.Contains(p.Text, it.Code) {
		t.Errorf("the item's code is not what the pack shows")
	}
	// every shown range is verbatim in the code, and the focus line is inside one
	full := strings.Split(c.Full, "\n")
	focused := false
	for _, r := range it.Shown {
		if r[0] < c.StartLine || r[1] > c.EndLine || r[0] > r[1] {
			t.Fatalf("shown range %v outside the item %d-%d", r, c.StartLine, c.EndLine)
		}
		block := strings.Join(full[r[0]-c.StartLine:r[1]-c.StartLine+1], "\n")
		if !strings.Contains(it.Code, block) {
			t.Errorf("shown range %v is not in the code verbatim", r)
		}
		focused = focused || r[0] <= mark && mark <= r[1]
	}
	if !focused {
		t.Errorf("the focus line %d is not among the shown ranges %v", mark, it.Shown)
	}
	if len(it.Shown) < 2 {
		t.Errorf("a cut around a line deep in the body shows the head and a window: %v", it.Shown)
	}
	// the elisions add up: the lines shown and the lines said hidden are the body
	hidden := 0
	for _, l := range strings.Split(it.Code, "\n") {
		var k int
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "// ... %d lines ...", &k); err == nil {
			hidden += k
		} else if _, err := fmt.Sscanf(strings.TrimSpace(l), "... (%d more lines)", &k); err == nil {
			hidden += k
		}
	}
	shown := 0
	for _, r := range it.Shown {
		shown += r[1] - r[0] + 1
	}
	if shown+hidden != len(full) {
		t.Errorf("%d lines shown and %d hidden, the body has %d", shown, hidden, len(full))
	}

	// without a focus the same room keeps the head and loses the call
	c.Focus = nil
	p = assemble(t, []Candidate{c}, Options{Budget: 900, Tokenizer: tok, Shares: map[string]float64{"definitions": 1}})
	if strings.Contains(p.Items[0].Code, "AddRemote") || len(p.Items[0].Shown) != 1 || p.Items[0].Shown[0][0] != start {
		t.Errorf("without a focus a cut keeps the opening lines: %v", p.Items[0].Shown)
	}
}

// Focus lines outside the body, or in its signature, change nothing.
func TestCutOrderIgnoresStrayFocus(t *testing.T) {
	full := []string{"func f() {", "\ta := 1", "\tb := 2", "}"}
	if got := cutOrder(full, 1, 10, []int{5, 10, 99}); got != nil {
		t.Errorf("stray focus lines gave an order: %v", got)
	}
	got := cutOrder(full, 1, 10, []int{12})
	if len(got) != len(full) || got[0] != 0 || got[1] != 2 {
		t.Errorf("order %v: want the signature, then the focus line", got)
	}
}

// A focus line in a nested block brings the headers of the blocks that hold it.
func TestHeadersOfANestedLine(t *testing.T) {
	full := []string{
		"def run(self):",
		"    for rule in rules:",
		"        x = 1",
		"        if rule.active:",
		"            y = 2",
		"            rule.check(path)",
	}
	got := headers(full, 1, 5)
	if fmt.Sprint(got) != "[1 3]" {
		t.Errorf("headers of line 5: %v, want [1 3]", got)
	}
}
