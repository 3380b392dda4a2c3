package bench

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxmap/ctxmap/index"
)

// Lines are counted once, over code files only; a line inside an item but not shown is a cut's loss.
func TestLineMetrics(t *testing.T) {
	items := []index.Item{
		{Kind: "definition", Path: "a.go", StartLine: 10, EndLine: 40, Shown: []index.Lines{{10, 15}, {30, 32}}},
		{Kind: "outline", Path: "b.go", StartLine: 1, EndLine: 50},   // an outline shows no code
		{Kind: "definition", Path: "c.go", StartLine: 5, EndLine: 9}, // a card: no lines shown
		{Kind: "snippet", Path: "README.md", StartLine: 1, EndLine: 9, Shown: []index.Lines{{1, 9}}},
	}
	changed := Changed{
		"a.go":      {{12, 13}, {20, 21}, {31, 31}}, // 5 lines: 3 shown, 2 past the cut
		"b.go":      {{3, 3}},                       // outlined only
		"README.md": {{2, 2}},                       // not code: not counted
	}
	m := LineMetrics(items, 2000, changed)
	want := map[string]float64{LineRecall: 3.0 / 6, CutLoss: 2.0 / 6, HunkAll: 0, FileShown: 0.5, LineEfficiency: 0.5 * 1000 / 2000}
	for k, v := range want {
		if math.Abs(m[k]-v) > 1e-9 {
			t.Errorf("%s = %.4f, want %.4f", k, m[k], v)
		}
	}
	changed = Changed{"a.go": {{12, 13}, {31, 31}}}
	if m := LineMetrics(items, 2000, changed); m[HunkAll] != 1 || m[LineRecall] != 1 || m[FileShown] != 1 {
		t.Errorf("every hunk shown: %v", m)
	}
	if m := LineMetrics(items, 2000, Changed{"README.md": {{2, 2}}}); m != nil {
		t.Errorf("a fix of prose alone has no line metrics: %v", m)
	}
}

func TestLoadChangedBesideTheDataset(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "dev.jsonl")
	if err := os.WriteFile(ds, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := changedBeside(ds); p != "" {
		t.Fatalf("no lines file, yet %q", p)
	}
	lines := filepath.Join(dir, "dev-lines.jsonl")
	row := `{"instance_id": "o__r-1", "files": {"src/a.py": [[3, 4], [9, 9]]}}` + "\n\n"
	if err := os.WriteFile(lines, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := changedBeside(ds); p != lines {
		t.Fatalf("changedBeside = %q, want %q", p, lines)
	}
	got, err := LoadChanged(lines)
	if err != nil {
		t.Fatal(err)
	}
	if r := got["o__r-1"]["src/a.py"]; len(r) != 2 || r[0] != (index.Lines{3, 4}) || r[1] != (index.Lines{9, 9}) {
		t.Errorf("read %v", got)
	}
	if err := os.WriteFile(lines, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadChanged(lines); err == nil {
		t.Errorf("a broken line must be an error")
	}
}

// The pack read as ranked regions: distinct lines in pack order, the first useful item, precision.
func TestRankedLineMetrics(t *testing.T) {
	items := []index.Item{
		{Kind: "definition", Path: "a.go", StartLine: 1, EndLine: 80, Shown: []index.Lines{{1, 80}}},   // no changed line
		{Kind: "outline", Path: "b.go", StartLine: 1, EndLine: 50},                                     // shows nothing
		{Kind: "definition", Path: "c.go", StartLine: 1, EndLine: 400, Shown: []index.Lines{{1, 400}}}, // lines 81-480 of the pack
		{Kind: "snippet", Path: "a.go", StartLine: 1, EndLine: 10, Shown: []index.Lines{{1, 10}}},      // already shown: counts no line
	}
	changed := Changed{"c.go": {{10, 10}, {300, 301}}, "d.go": {{1, 1}}} // 4 changed lines; c.go's at 90, 380, 381
	m := LineMetrics(items, 3000, changed)
	want := map[string]float64{LineRec100: 1.0 / 4, LineRec300: 1.0 / 4, LineRec500: 3.0 / 4, FirstUseful: 1 - 1.0/3, LinePrecision: 3.0 / 480}
	for k, v := range want {
		if math.Abs(m[k]-v) > 1e-9 {
			t.Errorf("%s = %.4f, want %.4f", k, m[k], v)
		}
	}
	if m := LineMetrics(items[:1], 3000, changed); m[FirstUseful] != 0 || m[LinePrecision] != 0 {
		t.Errorf("no changed line shown: %v", m)
	}
}
