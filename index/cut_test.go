package index

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A long function the text is about, too long for its room, is cut around the line the text points
// at (its words, the call it names), not at its head; the item says which lines it shows.
func TestALongBodyIsCutAroundWhatTheTextNames(t *testing.T) {
	var b strings.Builder
	b.WriteString("package clone\n\n// cloneRun clones a repository and sets up its remotes.\nfunc cloneRun(opts *CloneOptions) error {\n")
	mark := 0
	for i := range 150 {
		if i == 120 {
			b.WriteString("\tif err := gitClient.AddRemote(ctx, \"upstream\", upstreamURL, branches); err != nil {\n\t\treturn err\n\t}\n")
			mark = strings.Count(b.String(), "\n") - 2
			continue
		}
		fmt.Fprintf(&b, "\tstep%d := prepareClone(opts, %d) // the clone's own work, part %d\n", i, i, i)
	}
	b.WriteString("\treturn nil\n}\n\ntype CloneOptions struct{ Repo string }\n")
	ix := built(t, withOthers(map[string]string{"pkg/cmd/repo/clone/clone.go": b.String()}, 20, "go"))
	res, err := ask(context.Background(), ix, Request{Text: "gh repo clone should skip adding the upstream remote (`AddRemote`) when --no-upstream is given", Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Pack.Items {
		if it.Path != "pkg/cmd/repo/clone/clone.go" || it.StartLine > mark || mark > it.EndLine {
			continue // the function, or the whole file when its probability affords it
		}
		if it.Size != "truncated" {
			t.Fatalf("cloneRun is %s; the test wants a cut", it.Size)
		}
		for _, r := range it.Shown {
			if r[0] <= mark && mark <= r[1] {
				if !strings.Contains(it.Code, "AddRemote(ctx, \"upstream\"") || !strings.Contains(res.Pack.Text, it.Code) {
					t.Errorf("the code does not show the line, or the pack does not show the code:\n%s", it.Code)
				}
				return
			}
		}
		t.Fatalf("line %d (the AddRemote call) is not among the shown lines %v:\n%s", mark, it.Shown, it.Code)
	}
	t.Fatalf("no item holds cloneRun's line %d: %v", mark, itemNames(res.Pack))
}
