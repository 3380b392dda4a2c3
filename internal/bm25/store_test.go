package bm25

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/records"
)

func doc(id, code string) Doc {
	return Doc{ID: id, Fields: NewFields("", PathOf(id), "", code)}
}

func scores(t *testing.T, s *Store, stats *Stats) map[string]float64 {
	t.Helper()
	hits, err := s.Search(context.Background(), []Term{{Word: "rule", Weight: 1}, {Word: "profil", Weight: 0.5}}, 100, stats)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, h := range hits {
		out[h.ID] = h.Score
	}
	return out
}

// TestScoresDoNotDependOnHistory: chunks indexed and then deleted leave their words in bleve's segments
// until a merge, and bleve's average field length counts them. With the chunks' own statistics, the
// files that remain score exactly as in an index that never held the others.
func TestScoresDoNotDependOnHistory(t *testing.T) {
	kept := []Doc{
		doc("rule/index.go#0", "RuleIndex finds rules by their descriptions"),
		doc("rule/rule.go#0", "a rule has a key and a quality profile"),
		doc("profile/profile.go#0", "QualityProfile activates rules"),
	}
	var gone []Doc
	var goneIDs []string
	for i := range 40 {
		var words []string
		for j := range 60 {
			words = append(words, fmt.Sprintf("word%dx%d", i, j))
		}
		id := fmt.Sprintf("gone/f%d.go#0", i)
		gone = append(gone, doc(id, "rule "+strings.Join(words, " ")))
		goneIDs = append(goneIDs, id)
	}
	var stats Stats
	for _, d := range kept {
		stats.Add(d.Fields.Lengths())
	}

	fresh, err := Open(filepath.Join(t.TempDir(), "lex"))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.Replace(nil, kept); err != nil {
		t.Fatal(err)
	}
	updated, err := Open(filepath.Join(t.TempDir(), "lex"))
	if err != nil {
		t.Fatal(err)
	}
	defer updated.Close()
	if err := updated.Replace(nil, append(append([]Doc{}, kept...), gone...)); err != nil {
		t.Fatal(err)
	}
	if err := updated.Replace(goneIDs, nil); err != nil {
		t.Fatal(err)
	}

	want, got := scores(t, fresh, &stats), scores(t, updated, &stats)
	if len(want) != len(kept) {
		t.Fatalf("fresh index: %d hits, want %d: %v", len(want), len(kept), want)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %v after the deletions, %v in a fresh index", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("after the deletions: %v, want %v", got, want)
	}
}

func TestLengthsCountTerms(t *testing.T) {
	f := Fields{"rule index", "rule index go", "", " find  rule\tby descript "}
	if got, want := f.Lengths(), (records.Lengths{2, 3, 0, 4}); got != want {
		t.Errorf("lengths of %q = %v, want %v", f, got, want)
	}
}
