package bench

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadDataset(t *testing.T) {
	lines := []string{
		`{"instance_id": "b-2", "repo": "o/b", "base_commit": "0123456789abcdef", "gold_files": ["x.go"]}`,
		``,
		`{"instance_id": "a-1", "repo": "o/a", "gold_files": ["y.py"], "gold_functions_src": ["y.py::Y.f"], "gold_functions": ["y.py::f"]}`,
		`{not json`,
		`[1, 2]`,
		`{"repo": "o/a"}`,
		`{"instance_id": "c-1", "repo": "o/c", "checkout_ready": false}`,
		`{"instance_id": "c-2", "repo": "o/c", "checkout_ready": null}`,
		`{"instance_id": "c-3", "repo": "o/c", "checkout_ready": 1}`,
		`{"instance_id": "d-1", "repo": "o/d", "gold_files": "x.go"}`,
		`   `,
		`{"instance_id": "a-0", "repo": "o/a"}`, // last line without a newline
	}
	rows, bad, err := ReadDataset(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	if want := []string{"a-0", "a-1", "b-2", "c-3"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ids = %v, want %v", ids, want)
	}
	var badLines []int
	for _, b := range bad {
		badLines = append(badLines, b.Line)
		if b.Err == "" {
			t.Errorf("line %d: no reason", b.Line)
		}
	}
	if want := []int{4, 5, 6, 10}; !reflect.DeepEqual(badLines, want) {
		t.Errorf("bad lines = %v, want %v", badLines, want)
	}
	if rows[1].Line != 3 || !reflect.DeepEqual(rows[1].GoldSymbols(), []string{"y.py::Y.f"}) {
		t.Errorf("a-1: line %d, gold symbols %v", rows[1].Line, rows[1].GoldSymbols())
	}
	if got := (Instance{GoldFunctions: []string{"y.py::f"}, GoldFunctionsSrc: []string{}}).GoldSymbols(); !reflect.DeepEqual(got, []string{"y.py::f"}) {
		t.Errorf("empty source functions should fall back: %v", got)
	}
}

// The expected selections are those of the work-tree tool's select() on the same rows.
func TestSelect(t *testing.T) {
	var rows []Instance
	for _, r := range [][2]string{{"b__y-2", "b/y"}, {"a__x-2", "a/X"}, {"c__z-1", "c/z"}, {"a__x-1", "A/x"}, {"b__y-1", "b/y"}, {"a__x-3", "a/x"}} {
		rows = append(rows, Instance{ID: r[0], Repo: r[1]})
	}
	cases := []struct {
		sel  Selection
		want []string
	}{
		{Selection{}, []string{"a__x-1", "a__x-2", "a__x-3", "b__y-1", "b__y-2", "c__z-1"}},
		{Selection{Repos: "A/X, c/z"}, []string{"a__x-1", "a__x-2", "a__x-3", "c__z-1"}},
		{Selection{PerRepo: 1}, []string{"a__x-1", "b__y-1", "c__z-1"}},
		{Selection{Limit: 2}, []string{"a__x-1", "a__x-2"}},
		{Selection{PerRepo: 2, Limit: 3}, []string{"a__x-1", "a__x-2", "b__y-1"}},
		{Selection{Repos: ","}, nil},
		{Selection{Repos: "b/y", PerRepo: 1}, []string{"b__y-1"}},
	}
	for _, c := range cases {
		var got []string
		for _, r := range Select(rows, c.sel) {
			got = append(got, r.ID)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Select(%+v) = %v, want %v", c.sel, got, c.want)
		}
	}
}

func TestFindWorktree(t *testing.T) {
	dir := t.TempDir()
	in := Instance{ID: "owner__name-1", Repo: "owner/name", BaseCommit: "0123456789abcdef0123"}
	if WorktreeName(in) != "owner+name@0123456789ab" {
		t.Fatalf("name %s", WorktreeName(in))
	}
	if _, err := FindWorktree(dir, in); err == nil || !strings.Contains(err.Error(), "no work tree") {
		t.Errorf("missing tree: %v", err)
	}
	tree := filepath.Join(dir, "Owner+Name@0123456789ab")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := FindWorktree(dir, in); err == nil || !strings.Contains(err.Error(), "not finished") {
		t.Errorf("tree without marker: %v", err)
	}
	if err := os.WriteFile(tree+".done", []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := FindWorktree(dir, in)
	if err != nil || got != tree {
		t.Errorf("FindWorktree = %q, %v; want %q", got, err, tree)
	}
	if _, err := FindWorktree(dir, Instance{ID: "x", Repo: "owner/name", BaseCommit: "abc"}); err == nil {
		t.Error("a short commit should be refused")
	}
}
