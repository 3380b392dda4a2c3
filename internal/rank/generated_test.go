package rank

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/query"
)

// sourceHeaders are six C++ headers of ten functions each, and single.hpp their concatenation, as a
// single-header library ships it.
func sourceHeaders() map[string]string {
	files := map[string]string{}
	var single strings.Builder
	for h := 0; h < 6; h++ {
		var b strings.Builder
		fmt.Fprintf(&b, "#pragma once\nnamespace lib {\n")
		for f := 0; f < 10; f++ {
			fmt.Fprintf(&b, "inline int convert_part%d_step%d(int value) {\n    int scaled = value * %d;\n    return scaled + %d;\n}\n\n", h, f, f+2, h)
		}
		fmt.Fprintf(&b, "}\n")
		files[fmt.Sprintf("include/lib/part%d.hpp", h)] = b.String()
		single.WriteString(b.String())
	}
	files["single_include/lib.hpp"] = single.String()
	return files
}

func TestAmalgamationIsToldFromItsSources(t *testing.T) {
	files := sourceHeaders()
	// a header and its source share their names one to one: not a copy of several files
	var decl, impl strings.Builder
	for f := 0; f < 45; f++ {
		fmt.Fprintf(&decl, "int parse_field_%d(const char* text);\n", f)
		fmt.Fprintf(&impl, "int parse_field_%d(const char* text) {\n    return text[%d];\n}\n", f, f)
	}
	files["src/fields.h"], files["src/fields.cpp"] = decl.String(), impl.String()
	r := &ranker{s: testView(t, files), a: query.Analyze("x", nil), without: map[string]bool{}}
	for p, want := range map[string]bool{
		"single_include/lib.hpp": true,
		"include/lib/part0.hpp":  false,
		"src/fields.h":           false,
		"src/fields.cpp":         false,
	} {
		if got := r.amalgamated(p); got != want {
			t.Errorf("amalgamated(%s) = %v, want %v", p, got, want)
		}
	}
}

// A pack about code that a single-header copy repeats shows the source the fix edits first, even when
// the reporter names the copy they include.
func TestPackShowsTheSourceBeforeItsCopy(t *testing.T) {
	v := testView(t, sourceHeaders())
	got, err := Rank(context.Background(), v, query.Analyze("Using single_include/lib.hpp, convert_part3_step4 returns the wrong value for negative input", nil), Options{Ranker: Learned, Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for i, c := range got.Candidates {
		if c.Bucket == "outlines" {
			continue
		}
		if _, ok := first[c.Path]; !ok {
			first[c.Path] = i
		}
	}
	src, ok := first["include/lib/part3.hpp"]
	if !ok {
		t.Fatalf("the source of convert_part3_step4 is not shown: %v", first)
	}
	if cp, ok := first["single_include/lib.hpp"]; ok && cp < src {
		t.Errorf("the copy is shown (item %d) before its source (item %d)", cp, src)
	}
}

// A copy changes with each of its sources, which seldom change together: raised by every one of them,
// it would come before them all. It comes after the likeliest source that raised it.
func TestACopyRaisedByItsSourcesStaysBehind(t *testing.T) {
	v := testView(t, sourceHeaders())
	var commits []history.Commit
	for i := 0; i < 40; i++ {
		source := fmt.Sprintf("include/lib/part%d.hpp", 2+i%2)
		commits = append(commits, history.Commit{Hash: fmt.Sprintf("%040d", i), Time: time.Unix(int64(1e9+i), 0),
			Subject: "convert a part", Files: []string{source, "single_include/lib.hpp"}})
	}
	v.History = &history.Log{Available: true, Commits: commits}
	got, err := Rank(context.Background(), v, query.Analyze("convert_part3_step4 and convert_part2_step1 return the wrong value for negative input", nil), Options{Ranker: Learned, Budget: 8000})
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for i, c := range got.Candidates {
		if _, ok := first[c.Path]; !ok && c.Bucket != "outlines" {
			first[c.Path] = i
		}
	}
	cp, ok := first["single_include/lib.hpp"]
	if !ok {
		t.Fatalf("the copy, which changed with both sources, is not shown: %v", first)
	}
	if src, ok := first["include/lib/part3.hpp"]; !ok || cp < src {
		t.Errorf("the copy is item %d, before its likeliest source: %v", cp, first)
	}
}

// A copy's own ranking of its thousands of definitions is weak, and the fix changes there what it
// changes in the source: a shown copy shows first the definition its shown source shows first.
func TestACopyShowsWhatItsSourceShows(t *testing.T) {
	v := testView(t, sourceHeaders())
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	r := &ranker{s: v, a: query.Analyze("convert_part3_step4 returns the wrong value for negative input", nil), without: map[string]bool{}, plan: recallPlan}
	qw := r.queryWords()
	var prims []primary
	copyFile := tightFile{f: RankedFile{Path: "single_include/lib.hpp", Prob: 0.08, Score: 1}, copy: true} // not likely enough to show whole
	firstName := func(got []valued) string {
		if len(got) == 0 {
			return ""
		}
		return got[0].Symbol
	}
	// on its own, the copy shows the function the text names
	if got := firstName(r.showFile(copyFile, m, qw, &prims, sourceDefs{})); got != "lib.convert_part3_step4" {
		t.Fatalf("the copy alone shows %q first", got)
	}
	// after a source that shows another function of it, the copy shows that one first
	sources := sourceDefs{}
	src := tightFile{f: RankedFile{Path: "include/lib/part5.hpp", Prob: 0.09, Score: 1}}
	r.a = query.Analyze("convert_part5_step7 returns the wrong value", nil)
	if got := firstName(r.showFile(src, m, r.queryWords(), &prims, sources)); got != "lib.convert_part5_step7" {
		t.Fatalf("the source shows %q first", got)
	}
	r.a = query.Analyze("convert_part3_step4 returns the wrong value for negative input", nil)
	if got := firstName(r.showFile(copyFile, m, qw, &prims, sources)); got != "lib.convert_part5_step7" {
		t.Errorf("after its source, the copy shows %q first, not the source's convert_part5_step7", got)
	}
}
