package query

import (
	"math"
	"testing"

	"github.com/ctxmap/ctxmap/internal/lexicon"
	"github.com/ctxmap/ctxmap/internal/words"
)

func termMap(ts []Term) map[string]Term {
	m := map[string]Term{}
	for _, t := range ts {
		m[t.Word] = t
	}
	return m
}

func testLexicon(t *testing.T) *lexicon.Lexicon {
	t.Helper()
	lex, err := lexicon.Parse("test.yaml", []byte(`
synonyms:
  delete:
    strong: [remove]
    weak: [clear]
  remove:
    moderate: [evict]
  evict:
    strong: [expire]
  user:
    strong: [account]
`))
	if err != nil {
		t.Fatal(err)
	}
	return lex
}

func TestQueryTerms(t *testing.T) {
	a := analyze("Deleting users fails\n\nWhen the `RuleIndex` deletes a profile, nothing happens.\n```\nignored_in_code = 1\n```", nil)
	got := termMap(a.Terms)
	want := map[string]float64{"delete": titleWeight, "user": titleWeight, "fail": titleWeight, "rule": 1, "index": 1, "profile": 1, "happen": 1}
	for w, weight := range want {
		if got[w].Weight != weight || got[w].Source != "query" {
			t.Errorf("term %q = %+v, want weight %v from the query", w, got[w], weight)
		}
	}
	for _, w := range append(words.Terms("ignored_in_code"), "when", "the") {
		if _, ok := got[w]; ok {
			t.Errorf("unexpected term %q", w)
		}
	}
	if len(a.Terms) != len(got) {
		t.Errorf("duplicate terms: %+v", a.Terms)
	}
	single := termMap(analyze("deleting users fails", nil).Terms)
	if single["delete"].Weight != 1 {
		t.Errorf("a one-line query has no title boost: %+v", single["delete"])
	}
}

func TestExpansionPasses(t *testing.T) {
	lex := testLexicon(t)
	got := termMap(analyze("delete a user", lex).Terms)
	cases := []struct {
		word, source string
		weight       float64
	}{
		{"delete", "query", 1},
		{"user", "query", 1},
		{"remove", "lexicon:delete", lexicon.Strong},                                // pass 1
		{"clear", "lexicon:delete", lexicon.Weak},                                   // pass 1, weak
		{"account", "lexicon:user", lexicon.Strong},                                 // pass 1
		{"evict", "lexicon:remove", lexicon.Strong * lexicon.Moderate * secondPass}, // pass 2, falling
	}
	for _, c := range cases {
		term, ok := got[c.word]
		if !ok || term.Source != c.source || math.Abs(term.Weight-c.weight) > 1e-9 {
			t.Errorf("%s = %+v, want %v from %s", c.word, term, c.weight, c.source)
		}
	}
	if _, ok := got["expire"]; ok {
		t.Error("a third pass happened: expire comes from evict, itself a second-pass word")
	}
}

func TestExpansionNeverOverridesStrongerWords(t *testing.T) {
	lex := testLexicon(t)
	got := termMap(analyze("delete and remove", lex).Terms)
	if got["remove"].Weight != 1 || got["remove"].Source != "query" {
		t.Errorf("the query's own word was overridden: %+v", got["remove"])
	}
	// evict is reachable from remove (query, pass 1: 0.6) and would be weaker through delete (pass 2).
	if math.Abs(got["evict"].Weight-lexicon.Moderate) > 1e-9 || got["evict"].Source != "lexicon:remove" {
		t.Errorf("evict = %+v, want the stronger first-pass weight", got["evict"])
	}
}

func TestExpansionOrderAndNil(t *testing.T) {
	a := analyze("delete user accounts and configuration settings for authentication", lexicon.Builtin())
	seenExpansion := false
	prev := math.Inf(1)
	for _, term := range a.Terms {
		if term.Source == "query" {
			if seenExpansion {
				t.Fatalf("query term %q after expansions", term.Word)
			}
			continue
		}
		seenExpansion = true
		if term.Weight > prev {
			t.Fatalf("expansions not best first at %q", term.Word)
		}
		prev = term.Weight
		if term.Weight < minExpansion || term.Weight > 1 {
			t.Fatalf("expansion weight %v out of range", term.Weight)
		}
	}
	if !seenExpansion {
		t.Fatal("builtin lexicon expanded nothing")
	}
	for _, term := range analyze("delete user accounts", nil).Terms {
		if term.Source != "query" {
			t.Fatalf("nil lexicon expanded %q", term.Word)
		}
	}
}
