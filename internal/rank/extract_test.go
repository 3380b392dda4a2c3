package rank

import (
	"context"
	"testing"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// A candidate's sibling (the header beside its source, its test) and its folder's best other file
// give it their score; a file alone in its folder with no sibling gets none.
func TestPairedRelReadsSiblingsAndFolders(t *testing.T) {
	files := []RankedFile{
		{Path: "src/format.cc", Score: 10},
		{Path: "include/fmt/format.h", Score: 6},
		{Path: "include/fmt/format-inl.h", Score: 3},
		{Path: "include/fmt/core.h", Score: 2},
		{Path: "test/format_test.cc", Score: 1},
		{Path: "docs/api.rst", Score: 1},
	}
	got := pairedRel(files, 10)
	want := []paired{
		{sibling: 0.6}, // format.h (and format-inl.h, the test, weaker)
		{sibling: 1, folder: 0.3},
		{sibling: 1, folder: 0.6},
		{folder: 0.6},
		{sibling: 1},
		{},
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("%s: got %+v, want %+v", files[i].Path, got[i], w)
		}
	}
}

func TestFileStemDropsWhatMarksAPair(t *testing.T) {
	for p, want := range map[string]string{
		"include/fmt/format-inl.h": "format",
		"src/Format.cpp":           "format",
		"tests/test_format.py":     "format",
		"pkg/format_test.go":       "format",
		"lib/format.spec.ts":       "format",
		"src/FormatTest.java":      "format",
		"src/test.c":               "test",
	} {
		if got := fileStem(p); got != want {
			t.Errorf("fileStem(%q) = %q, want %q", p, got, want)
		}
	}
}

// The definitions one call away from the evidence's first pick, either way, are near it; the others
// and the pick itself are not.
func TestNearDefsFollowsCallsBothWays(t *testing.T) {
	src := `package p

func caller() { pick() }

func pick() { callee() }

func callee() {}

func apart() {}
`
	p := parse.NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), "p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, d := range f.Definitions {
		at[d.Name] = i
	}
	near := nearDefs(f.Definitions, f.References, []int{at["pick"]})
	for name, want := range map[string]bool{"caller": true, "callee": true, "pick": false, "apart": false} {
		if near[at[name]] != want {
			t.Errorf("%s: near = %v, want %v", name, near[at[name]], want)
		}
	}
	if len(nearDefs(f.Definitions, f.References, nil)) != 0 {
		t.Error("no pick, yet definitions are near it")
	}
}
