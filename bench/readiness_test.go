package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/session"
)

// A readiness run on a tree never indexed: the first pack comes before the build, partial; every
// operation that waits for the build answers after it, and the state at once; the early packs are
// set against the same texts' full packs, with the gold files of a dataset's issues.
func TestReadiness(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 150 { // enough that the build takes longer than the first partial pack
		files[fmt.Sprintf("billing/invoice%d.go", i)] = fmt.Sprintf("package billing\n\n// Invoice%[1]d is a bill sent to a customer.\n"+
			"type Invoice%[1]d struct{ Amount int }\n\n// Refund%[1]d returns the amount of invoice %[1]d to the customer.\n"+
			"func (v *Invoice%[1]d) Refund%[1]d() int { return -v.Amount }\n", i)
		files[fmt.Sprintf("reports/summary%d.py", i)] = fmt.Sprintf("\"\"\"Monthly summaries of invoices.\"\"\"\n\n\nclass Summary%d:\n"+
			"    def render_report(self, invoices):\n        return sum(i.total for i in invoices)\n", i)
	}
	writeTree(t, root, files)
	dataset := filepath.Join(t.TempDir(), "issues.jsonl")
	lines := `{"instance_id":"a__b-1","repo":"a/b","problem_statement":"Refund7 on Invoice7 gives the customer the wrong amount","gold_files":["billing/invoice7.go"]}` + "\n" +
		`{"instance_id":"a__b-2","repo":"a/b","problem_statement":"the monthly report of Summary3 renders nothing","gold_files":["reports/summary3.py"]}` + "\n"
	if err := os.WriteFile(dataset, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}

	rep, err := Readiness(context.Background(), ReadinessOptions{Dir: root, Budget: 2000, Issues: dataset})
	if err != nil {
		t.Fatal(err)
	}
	ready := map[string]string{}
	for _, op := range session.Operations() {
		ready[op.Name] = op.Ready.String()
	}
	first := rep.Operations[0]
	if first.Name != "context" || !strings.HasPrefix(first.Got, "partial pack") || !first.BeforeBuild {
		t.Errorf("the first question: %+v, want a partial pack before the build (in after %.2fs)", first, rep.Build)
	}
	asked := map[string]bool{}
	for _, a := range rep.Operations {
		asked[a.Name] = true
		switch {
		case a.Error != "" || a.Got == "":
			t.Errorf("%s: %+v, want an answer", a.Name, a)
		case a.Readiness != ready[a.Name]:
			t.Errorf("%s: readiness %q, the table says %q", a.Name, a.Readiness, ready[a.Name])
		case a.Readiness == session.WholeIndex.String() && a.BeforeBuild:
			t.Errorf("%s answered after %.2fs, before the build was in (%.2fs)", a.Name, a.Seconds, rep.Build)
		}
	}
	for _, name := range []string{"context", "state", "entities", "explore", "symbols", "outline", "picture"} {
		if !asked[name] {
			t.Errorf("%s was not asked: %+v", name, rep.Operations)
		}
	}
	e := rep.Early
	if e.Texts != 2 || e.Partial < 1 || e.FullFiles == 0 || e.FullFilesHeld > e.FullFiles || e.Gold != 2 || e.GoldEarly > e.Gold || e.GoldFull > e.Gold {
		t.Errorf("early packs: %+v", e)
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil || !strings.Contains(b.String(), "gold files early") {
		t.Errorf("the table: %v\n%s", err, b.String())
	}
}
