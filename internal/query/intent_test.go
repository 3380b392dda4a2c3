package query

import (
	"math"
	"reflect"
	"testing"
)

func TestIntent(t *testing.T) {
	cases := []struct {
		text string
		want string
	}{
		{"Fix crash when the config file is empty", BugFix},
		{"Export to CSV doesn't work since 2.3\n\nSteps to reproduce:\n1. open a report\n2. click export\n\nExpected behavior: a file. Actual behavior: nothing.", BugFix},
		{"Regression: login page shows unexpected error after upgrade", BugFix},
		{"Add support for YAML config files\n\nIt would be nice to read settings from a .yaml file too.", Implementation},
		{"[Feature request] Allow users to pick a theme", Implementation},
		{"Implement retry with backoff for webhook delivery", Implementation},
		{"Refactor the payment module and rename ChargeService to BillingService", Refactor},
		{"Clean up the dead code in the importer and extract the CSV parsing", Refactor},
		{"Write unit tests for the rate limiter", TestWriting},
		{"Missing tests for binary values\n\nThe coverage of the binary reader is low.", TestWriting},
		{"Where is RuleIndex defined?", DefinitionLookup},
		{"what is `QualityProfile`", DefinitionLookup},
		{"Show me the definition of parse_config", DefinitionLookup},
		{"Who calls RuleIndex.search?", UsageExploration},
		{"Where is `token_bucket` used", UsageExploration},
		{"find all usages of LegacyClient", UsageExploration},
	}
	for _, c := range cases {
		got := analyze(c.text, nil).Intent
		if got.Name != c.want {
			t.Errorf("intent of %q = %+v, want %s", c.text, got, c.want)
		}
		if got.Confidence <= defaultConfidence || got.Confidence > 1 {
			t.Errorf("confidence of %q = %v, want in (%v, 1]", c.text, got.Confidence, defaultConfidence)
		}
	}
}

func TestIntentDefaultIsLowConfidence(t *testing.T) {
	got := analyze("quarterly revenue dashboard", nil).Intent
	if got != (Intent{Name: Implementation, Confidence: defaultConfidence}) {
		t.Errorf("got %+v", got)
	}
}

func TestIntentTitleWeighsMore(t *testing.T) {
	// The body mentions errors and failures, but the title asks for a feature.
	text := "Add a dry-run flag to the migrator\n\nToday a failed migration leaves errors in the log and we see a failure in CI."
	if got := analyze(text, nil).Intent; got.Name != Implementation {
		t.Errorf("got %+v, want implementation", got)
	}
	swapped := "A failed migration leaves errors in the log\n\nWe could add a dry-run flag."
	if got := analyze(swapped, nil).Intent; got.Name != BugFix {
		t.Errorf("got %+v, want bug_fix", got)
	}
}

func TestIntentIgnoresCode(t *testing.T) {
	text := "Support custom separators\n\n```python\ntry:\n    fix_error(crash)\nexcept Exception:\n    raise\n```\n"
	if got := analyze(text, nil).Intent; got.Name != Implementation {
		t.Errorf("got %+v: words in code must not vote", got)
	}
}

func TestMoreEvidenceMoreConfidence(t *testing.T) {
	weak := analyze("the export is wrong", nil).Intent
	strong := analyze("Crash: export is broken, regression since 2.3, it fails with an exception", nil).Intent
	if weak.Name != BugFix || strong.Name != BugFix || strong.Confidence <= weak.Confidence {
		t.Errorf("weak %+v, strong %+v", weak, strong)
	}
}

func TestParseIntent(t *testing.T) {
	good := map[string]string{
		"bug_fix": BugFix, "bug-fix": BugFix, "bugfix": BugFix, "BUG_FIX": BugFix, " Bug Fix ": BugFix,
		"implementation": Implementation, "feature": Implementation, "refactor": Refactor,
		"test-writing": TestWriting, "tests": TestWriting, "definition_lookup": DefinitionLookup,
		"Definition-Lookup": DefinitionLookup, "usage_exploration": UsageExploration, "usages": UsageExploration,
	}
	for in, want := range good {
		got, err := ParseIntent(in)
		if err != nil || got != want {
			t.Errorf("ParseIntent(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "debugging", "bug_fixx"} {
		if got, err := ParseIntent(in); err == nil {
			t.Errorf("ParseIntent(%q) = %q, want an error", in, got)
		}
	}
}

func TestProfiles(t *testing.T) {
	names := IntentNames()
	if !reflect.DeepEqual(names, []string{BugFix, Implementation, Refactor, TestWriting, DefinitionLookup, UsageExploration}) {
		t.Fatalf("IntentNames = %v", names)
	}
	names[0] = "changed"
	if IntentNames()[0] != BugFix {
		t.Fatal("IntentNames exposes its slice")
	}
	for _, n := range IntentNames() {
		p := ProfileOf(n)
		if sum := p.Definitions + p.Snippets + p.Imports + p.Tests + p.Callers; math.Abs(sum-1) > 1e-9 {
			t.Errorf("%s profile sums to %v", n, sum)
		}
	}
	if ProfileOf(UsageExploration).Callers <= ProfileOf(Implementation).Callers {
		t.Error("usage exploration should spend most on callers")
	}
	if ProfileOf(TestWriting).Tests <= ProfileOf(BugFix).Tests {
		t.Error("test writing should spend most on tests")
	}
	if ProfileOf("nonsense") != ProfileOf(Implementation) {
		t.Error("an unknown intent should get the default profile")
	}
}
