package rules

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNoRules is returned when a profile activates no rule at all.
var ErrNoRules = errors.New("profile has no rules")

// Rule is one check a quality profile can activate.
type Rule struct {
	Key      string
	Name     string
	Severity string
	Tags     []string
}

// RuleIndex holds the rules of every profile by key, for lookups while an analysis runs.
type RuleIndex struct {
	byKey     map[string]*Rule
	byProfile map[string][]string
	loaded    bool
}

// NewRuleIndex builds an index from the rules and the profiles that activate them.
func NewRuleIndex(rules []*Rule, profiles map[string][]string) *RuleIndex {
	idx := &RuleIndex{byKey: map[string]*Rule{}, byProfile: map[string][]string{}}
	for _, r := range rules {
		idx.byKey[r.Key] = r
	}
	for p, keys := range profiles {
		idx.byProfile[p] = append([]string(nil), keys...)
	}
	idx.loaded = true
	return idx
}

// Active returns the rules a profile activates, sorted by key.
func (x *RuleIndex) Active(profile string) ([]*Rule, error) {
	keys, ok := x.byProfile[profile]
	if !ok {
		return nil, fmt.Errorf("profile %q: unknown", profile)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("profile %q: %w", profile, ErrNoRules)
	}
	out := make([]*Rule, 0, len(keys))
	for _, k := range keys {
		out = append(out, x.byKey[k]) // nil when the key is stale: the crash in the issue
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Describe renders a rule for the report, with `backticks` and ]]> kept verbatim.
func (r *Rule) Describe() string {
	return fmt.Sprintf("```%s``` [%s] %s ]]>", r.Key, r.Severity, strings.Join(r.Tags, ","))
}
