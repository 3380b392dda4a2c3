package index

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/records"
)

// TestFoldedFindsWhatLowerCasingFinds compares folded with lower-casing every name: the same names in
// the same order, for ASCII names and for names whose lower case crosses into or out of ASCII (the
// Kelvin sign lower-cases to k, İ to i).
func TestFoldedFindsWhatLowerCasingFinds(t *testing.T) {
	names := []string{"RuleIndex", "ruleIndex", "RULEINDEX", "ruleindex", "Rule", "rule", "RULE", "\u212Aey", "Key",
		"KEY", "key", "\u0130d", "Id", "ID", "caf\u00e9", "CAF\u00c9", "Caf\u00e9s", "x", "X", "indexRule", "r\u00fcle"}
	s := &Snapshot{Symbols: map[string][]records.SymbolRef{}}
	for i, n := range names {
		// the first definitions in an order unlike the names' own
		s.Symbols[n] = []records.SymbolRef{{Path: string(rune('z' - i%7)), Def: i}}
	}
	s.Symbols["orphan"] = nil
	s.Symbols["ORPHAN"] = []records.SymbolRef{{Path: "a"}}
	for _, l := range []string{"ruleindex", "rule", "key", "id", "café", "x", "orphan", "r\u00fcle", "missing", "", "RULE"} {
		var want []string
		for n, refs := range s.Symbols {
			if len(refs) > 0 && strings.ToLower(n) == l {
				want = append(want, n)
			}
		}
		slices.SortFunc(want, func(a, b string) int {
			x, y := s.Symbols[a][0], s.Symbols[b][0]
			return cmp.Or(strings.Compare(x.Path, y.Path), cmp.Compare(x.Def, y.Def))
		})
		if got := s.folded(l); !slices.Equal(got, want) {
			t.Errorf("folded(%q) = %q, want %q", l, got, want)
		}
	}
}
