package bench

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/index"
)

// treeSums hashes every file under root, to show a run left it as it was.
func treeSums(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func speedTree(t *testing.T) string {
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("billing/invoice%d.go", i)] = fmt.Sprintf(`package billing

// Invoice%d is a bill sent to a customer.
type Invoice%d struct {
	Customer string
	Amount   int
}

// Total adds the tax to the amount.
func (v *Invoice%d) Total(rate int) int { return v.Amount + v.Amount*rate/100 }
`, i, i, i)
		files[fmt.Sprintf("reports/summary%d.py", i)] = fmt.Sprintf(`"""Monthly summaries of invoices."""


class Summary%d:
    def render_report(self, invoices):
        return sum(i.total for i in invoices)
`, i)
	}
	writeTree(t, root, files)
	return root
}

func TestSpeed(t *testing.T) {
	root := speedTree(t)
	before := treeSums(t, root)
	rep, err := Speed(context.Background(), SpeedOptions{Dir: root, Edits: 5, Queries: 3, Runs: 1, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, treeSums(t, root)) {
		t.Error("the speed run changed the tree it measured")
	}
	if rep.Files != 24 || len(rep.Cold.Runs) != 1 || len(rep.Warm.Runs) != 1 || rep.Cold.Median <= 0 {
		t.Errorf("files %d, cold %+v, warm %+v", rep.Files, rep.Cold, rep.Warm)
	}
	if rep.Update.N != 5 || rep.UpdateFound != 5 {
		t.Errorf("%d edits, %d new symbols found", rep.Update.N, rep.UpdateFound)
	}
	if rep.Query.N != 3 || rep.Query.P95 < rep.Query.P50 {
		t.Errorf("queries %+v", rep.Query)
	}
	if rep.PeakRSS == 0 || rep.PeakHeap == 0 {
		t.Errorf("peak RSS %d, heap %d", rep.PeakRSS, rep.PeakHeap)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back SpeedReport
	if err := json.Unmarshal(b, &back); err != nil || back.Update.N != 5 {
		t.Errorf("JSON round trip: %v, %+v", err, back.Update)
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil || !strings.Contains(table.String(), "warm / cold") {
		t.Errorf("table: %v\n%s", err, table.String())
	}
}

// built is root's index, in memory and built; it is closed when the test ends.
func built(t *testing.T, root string) *index.Index {
	t.Helper()
	ix, err := index.Open(context.Background(), index.Options{Root: root, InMemory: true, Config: &index.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestIssueTexts(t *testing.T) {
	ix := built(t, speedTree(t))
	a, b := IssueTexts(ix.Snapshot(), 7), IssueTexts(ix.Snapshot(), 7)
	if len(a) != 7 || !reflect.DeepEqual(a, b) {
		t.Fatalf("texts not the same twice: %q / %q", a, b)
	}
	// every text names an identifier of the tree in backticks
	for _, text := range a {
		_, rest, ok := strings.Cut(text, "`")
		name, _, _ := strings.Cut(rest, "`")
		if !ok || name == "" {
			t.Errorf("no identifier in %q", text)
		}
	}
}

// appendable are a file of each language that takes an appended function.
var appendable = map[string]string{
	"a.go": "package a\n\nfunc A() {}\n",
	"a.py": "def a():\n    return 1\n",
	"a.js": "function a() { return 1; }\n",
	"a.ts": "export function a(): number { return 1; }\n",
	"a.rs": "pub fn a() -> i32 { 1 }\n",
	"a.c":  "int a(void) { return 1; }\n",
	"a.cc": "namespace n { int a() { return 1; } }\n",
	"a.rb": "def a\n  1\nend\n",
}

func TestAppendedFunctionParses(t *testing.T) {
	files, names := map[string]string{}, map[string]string{}
	for path, src := range appendable {
		code, name := appendedFunction(index.LanguageOf(path), 7)
		files[path], names[path] = src+code, name
	}
	root := t.TempDir()
	writeTree(t, root, files)
	ix := built(t, root)
	for path, name := range names {
		found := false
		for _, ref := range ix.Snapshot().Symbols[name] {
			found = found || ref.Path == path
		}
		if !found {
			t.Errorf("%s: %s not among the definitions of\n%s", path, name, files[path])
		}
	}
	if code, _ := appendedFunction("java", 7); code != "" {
		t.Error("java takes no top-level function")
	}
}
