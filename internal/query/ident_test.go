package query

import (
	"slices"
	"strings"
	"testing"
)

func TestIdentifierCandidates(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"build the tree", []string{"build_tree", "buildTree", "BuildTree", "TreeBuilder", "tree_builder"}},
		{"slow tree building", []string{"build_tree", "buildTree", "BuildTree", "TreeBuilder", "tree_builder"}},
		{"grow the size of buffer", []string{"buffer_size", "bufferSize", "BufferSize"}},
		{"quality profile export", []string{"quality_profile", "QualityProfile", "quality_profile_export", "QualityProfileExport"}},
	}
	for _, c := range cases {
		got := analyze(c.text, nil).Identifiers
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("identifiers of %q lack %q: %v", c.text, w, got)
			}
		}
	}
}

func TestIdentifierCandidatesNoise(t *testing.T) {
	got := analyze("It works properly when the parser fails, `RuleIndex` rule index", nil).Identifiers
	for _, name := range got {
		if strings.Contains(name, "properly") || strings.Contains(strings.ToLower(name), "ruleindex") && name != "rule_index" && name != "ruleIndex" && name != "RuleIndex" {
			t.Errorf("noise candidate %q in %v", name, got)
		}
	}
	if !slices.Contains(got, "parser_fail") {
		t.Errorf("want parser_fail in %v", got)
	}
	if slices.Contains(got, "FailParser") {
		t.Errorf("fails is not a base-form verb: %v", got)
	}
}

func TestIdentifierCandidatesTitleFirstAndCapped(t *testing.T) {
	body := strings.Repeat("green apple basket, ", 3) + strings.Repeat("red wagon wheel; blue river stone; old castle gate; tall pine forest; cold winter night. ", 4)
	got := analyze("Token bucket limiter\n\n"+body, nil).Identifiers
	if len(got) > maxIdentifiers {
		t.Fatalf("%d candidates, cap %d", len(got), maxIdentifiers)
	}
	if len(got) == 0 || !strings.HasPrefix(got[0], "token_bucket") {
		t.Errorf("title pair should come first: %v", got)
	}
}

// A name counts where it stands whole: not inside a longer identifier, wherever else it also stands.
func TestHasName(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{"call RuleIndex.Active(p)", "Active", true},
		{"Active", "Active", true},
		{"the ActiveRule and Active_x", "Active", false},
		{"ActiveRule then Active", "Active", true},
		{"x1Active or Active2", "Active", false},
		{"", "Active", false},
	} {
		if got := HasName(c.text, c.name); got != c.want {
			t.Errorf("HasName(%q, %q) = %v, want %v", c.text, c.name, got, c.want)
		}
	}
}
