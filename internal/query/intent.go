package query

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Intent is what the query asks for, with how sure the rules are (0..1).
type Intent struct {
	Name       string  `json:"name"`
	Confidence float64 `json:"confidence"`
}

// Intent names.
const (
	BugFix           = "bug_fix"
	Implementation   = "implementation"
	Refactor         = "refactor"
	TestWriting      = "test_writing"
	DefinitionLookup = "definition_lookup"
	UsageExploration = "usage_exploration"
)

// Profile splits a token budget between the kinds of context an intent needs; the shares sum to 1.
type Profile struct {
	Definitions float64 `json:"definitions"`
	Snippets    float64 `json:"snippets"`
	Imports     float64 `json:"imports"`
	Tests       float64 `json:"tests"`
	Callers     float64 `json:"callers"`
}

var profiles = map[string]Profile{
	DefinitionLookup: {0.50, 0.30, 0.10, 0.10, 0},
	UsageExploration: {0.20, 0.10, 0.05, 0, 0.65},
	Implementation:   {0.40, 0.35, 0.15, 0.10, 0},
	BugFix:           {0.30, 0.25, 0.10, 0.20, 0.15},
	Refactor:         {0.25, 0.20, 0.10, 0.15, 0.30},
	TestWriting:      {0.40, 0.15, 0.05, 0.40, 0},
}

var intentNames = []string{BugFix, Implementation, Refactor, TestWriting, DefinitionLookup, UsageExploration}

// IntentNames lists the intents in a fixed order.
func IntentNames() []string { return append([]string(nil), intentNames...) }

// ProfileOf returns an intent's budget profile; an unknown name gets the default intent's.
func ProfileOf(intent string) Profile {
	if p, ok := profiles[intent]; ok {
		return p
	}
	return profiles[Implementation]
}

var intentAliases = map[string]string{
	"bug": BugFix, "fix": BugFix, "bugfix": BugFix,
	"impl": Implementation, "implement": Implementation, "feature": Implementation, "refactoring": Refactor,
	"test": TestWriting, "tests": TestWriting, "testing": TestWriting, "testwriting": TestWriting,
	"definition": DefinitionLookup, "lookup": DefinitionLookup, "definitionlookup": DefinitionLookup,
	"usage": UsageExploration, "usages": UsageExploration, "callers": UsageExploration, "usageexploration": UsageExploration,
}

// ParseIntent validates an intent a user names: "bug-fix", "bugfix", "BUG_FIX" and "bug fix" are all bug_fix.
func ParseIntent(name string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.NewReplacer("-", "_", " ", "_").Replace(n)
	for _, known := range intentNames {
		if n == known {
			return known, nil
		}
	}
	if known, ok := intentAliases[strings.ReplaceAll(n, "_", "")]; ok {
		return known, nil
	}
	return "", fmt.Errorf("unknown intent %q: use one of %s", name, strings.Join(intentNames, ", "))
}

// How much more a signal in the title counts, what a stack trace adds to bug_fix, and the
// confidence of the default intent when nothing matched.
const (
	titleFactor       = 2.5
	traceScore        = 4
	traceConfidence   = 0.9
	errorScore        = 1.2 // a quoted error message: the reporter saw it fail
	defaultConfidence = 0.3
)

// A rule is a phrase of words; each slot lists the words it accepts, nil accepts any one word
// (a name in backticks counts as one word).
type rule struct {
	intent string
	weight float64
	slots  [][]string
	short  bool // only at the start of a short query: "what is RuleIndex"
}

var intentRules = compileRules([]struct {
	intent string
	weight float64
	phrase string
}{
	{BugFix, 1.0, "fix|fixes|fixed|fixing|fixme|hotfix|bugfix"},
	{BugFix, 1.0, "bug|bugs|buggy"},
	{BugFix, 0.7, "error|errors|err"},
	{BugFix, 1.2, "crash|crashes|crashed|crashing"},
	{BugFix, 0.7, "exception|exceptions|throws|thrown"},
	{BugFix, 1.2, "panic|panics|panicked|panicking|segfault|segfaults|segmentation|sigsegv|aborts|aborted"},
	{BugFix, 1.0, "traceback|backtrace|stacktrace"},
	{BugFix, 1.2, "doesn't|don't|didn't|won't|isn't|wasn't|aren't|can't work|works|working|worked"},
	{BugFix, 1.2, "not work|works|working"},
	{BugFix, 0.3, "does|do|did not"},
	{BugFix, 0.3, "doesn't|don't|didn't"},
	{BugFix, 1.2, "stopped|stops working"},
	{BugFix, 1.0, "no longer"},
	{BugFix, 0.8, "unexpected|unexpectedly"},
	{BugFix, 1.5, "regression|regressions|regressed"},
	{BugFix, 0.9, "broken|breaks|broke"},
	{BugFix, 0.8, "fail|fails|failed|failing|failure|failures"},
	{BugFix, 0.6, "wrong|incorrect|incorrectly|invalid|improperly|erroneous|bogus|inconsistent"},
	{BugFix, 0.3, "instead of"},
	{BugFix, 0.8, "hang|hangs|hanging|freezes|frozen|deadlock|deadlocks|leak|leaks|leaking|overflow|overflows"},
	{BugFix, 1.0, "steps to reproduce"},
	{BugFix, 0.6, "reproduce|reproducible|reproduction|repro|reproducer"},
	{BugFix, 0.6, "actual behavior|behaviour|result|results|output"},
	{BugFix, 0.4, "expected behavior|behaviour|result|results|output"},
	{BugFix, 1.0, "infinite loop|loops|recursion"},
	{BugFix, 1.0, "out of bounds|range|memory"},
	{BugFix, 1.0, "false positive|positives|negative|negatives"},
	{BugFix, 1.0, "off by one"},
	{BugFix, 1.0, "undefined behavior|behaviour"},
	{BugFix, 0.3, "warning|warnings"},
	{BugFix, 0.3, "should not|shouldn't"},
	{BugFix, 0.4, "ignored|ignores|mangles|mangled|truncated|corrupted|vanished|disappears|missing"},
	{BugFix, 0.8, "typo|typos"},

	{Implementation, 0.8, "add|adds|adding"},
	{Implementation, 1.0, "implement|implements|implementing|implementation"},
	{Implementation, 0.8, "support|supports|supporting"},
	{Implementation, 0.5, "supported|unsupported"},
	{Implementation, 0.8, "feature|features"},
	{Implementation, 1.5, "feature request|requests"},
	{Implementation, 1.2, "would be nice|great|good|useful|helpful|awesome|cool|better"},
	{Implementation, 0.5, "it would be"},
	{Implementation, 0.7, "allow|allows|allowing"},
	{Implementation, 0.8, "ability|possibility|option|options to"},
	{Implementation, 0.5, "way|possible to"},
	{Implementation, 0.6, "introduce|expose|provide|offer|introducing|exposing|providing|offering"},
	{Implementation, 0.4, "enable|enables"},
	{Implementation, 0.9, "proposal|propose|proposed|suggestion|suggest|rfe|enhancement|enhance"},
	{Implementation, 0.8, "new option|options|flag|flags|feature|features|method|methods|api|command|parameter|argument|setting|settings|endpoint|function|field|plugin|builtin|mode"},
	{Implementation, 0.5, "can|could we|you"},
	{Implementation, 0.6, "is it possible"},
	{Implementation, 0.5, "want to"},
	{Implementation, 0.5, "would like|love"},
	{Implementation, 0.5, "wish|todo"},
	{Implementation, 0.4, "improve|improvement|improvements|customize|customizable|configurable|custom"},

	{Refactor, 2.0, "refactor|refactors|refactoring|refactored"},
	{Refactor, 1.2, "rename|renames|renaming|renamed"},
	{Refactor, 0.5, "move|moving|moved"},
	{Refactor, 1.2, "clean|cleaning up"},
	{Refactor, 1.2, "cleanup|cleanups"},
	{Refactor, 0.6, "extract|extracting|extracted"},
	{Refactor, 0.4, "split|splitting"},
	{Refactor, 1.0, "restructure|restructuring|reorganize|reorganise|reorganizing|simplify|simplifying|simplification|deduplicate|decouple|decoupling|modularize|consolidate|streamline|unify"},
	{Refactor, 1.2, "dead code"},
	{Refactor, 1.2, "code smell|smells"},
	{Refactor, 1.2, "technical|tech debt"},
	{Refactor, 0.6, "duplicated|duplicate code|logic"},
	{Refactor, 0.3, "deprecate|deprecated|deprecation"},
	{Refactor, 0.5, "get rid of"},
	{Refactor, 0.8, "maintainability|readability"},
	{Refactor, 0.4, "hack|hacky|xxx"},

	{TestWriting, 0.4, "test|tests"},
	{TestWriting, 2.0, "write|add|adding|writing|missing|more|need|needs|improve|increase|lacks|lacking|no test|tests|testing|coverage"},
	{TestWriting, 2.0, "write|add|adding|writing|missing|more|need|needs|improve|increase|lacks|lacking|no unit|integration|e2e|regression|more|some test|tests"},
	{TestWriting, 1.0, "unit|integration test|tests|testing"},
	{TestWriting, 1.0, "test case|cases|suite|coverage"},
	{TestWriting, 1.0, "coverage"},
	{TestWriting, 0.5, "spec|specs|testable"},
	{TestWriting, 1.5, "untested"},

	{DefinitionLookup, 3.0, "where is|are * defined|declared|implemented|located"},
	{DefinitionLookup, 3.0, "where is|are * * defined|declared|implemented|located"},
	{DefinitionLookup, 3.0, "where's * defined|declared|implemented|located"},
	{DefinitionLookup, 2.0, "definition|definitions|declaration of"},
	{DefinitionLookup, 2.0, "how is|are * defined|implemented"},
	{DefinitionLookup, 2.0, "go to definition"},
	{DefinitionLookup, 2.0, "find definition|declaration|definitions"},
	{DefinitionLookup, 2.0, "find the definition|declaration"},
	{DefinitionLookup, 2.0, "which file|files|class|module|package defines|declares|implements"},
	{DefinitionLookup, 1.5, "how does * work"},
	{DefinitionLookup, 0.8, "explain|explanation"},

	{UsageExploration, 3.0, "who|what calls|uses|references|invokes"},
	{UsageExploration, 2.0, "usages|callers|references|invocations|uses of"},
	{UsageExploration, 1.0, "usage of"},
	{UsageExploration, 3.0, "where is|are * used|called|referenced|invoked"},
	{UsageExploration, 3.0, "where is|are * * used|called|referenced|invoked"},
	{UsageExploration, 2.0, "call site|sites"},
	{UsageExploration, 2.0, "callsite|callsites"},
	{UsageExploration, 2.5, "find usages|references|callers|uses"},
	{UsageExploration, 2.0, "all usages|references|callers|callsites"},
	{UsageExploration, 2.0, "how is|are * used"},
	{UsageExploration, 1.5, "what depends on"},
}, []struct {
	intent string
	weight float64
	phrase string
}{
	{DefinitionLookup, 2.0, "what is|are|does"},
})

// compileRules indexes rules by the words their first slot accepts.
func compileRules(list, short []struct {
	intent string
	weight float64
	phrase string
}) map[string][]*rule {
	idx := map[string][]*rule{}
	add := func(intent string, weight float64, phrase string, isShort bool) {
		r := &rule{intent: intent, weight: weight, short: isShort}
		for _, slot := range strings.Fields(phrase) {
			if slot == "*" {
				r.slots = append(r.slots, nil)
			} else {
				r.slots = append(r.slots, strings.Split(slot, "|"))
			}
		}
		for _, w := range r.slots[0] {
			idx[w] = append(idx[w], r)
		}
	}
	for _, r := range list {
		add(r.intent, r.weight, r.phrase, false)
	}
	for _, r := range short {
		add(r.intent, r.weight, r.phrase, true)
	}
	return idx
}

// word is a lower-case prose word; "" marks a sentence boundary, "`" a span of inline code.
type word struct {
	text  string
	title bool
}

const shortQuery = 12 // words; "what is X" is a definition question only in a query this short

func detectIntent(doc *document, trace, quotedError bool) Intent {
	ws := intentWords(doc)
	title := map[*rule]bool{}
	body := map[*rule]int{}
	for i, w := range ws {
		for _, r := range intentRules[w.text] {
			if r.short && (i != 0 || len(ws) > shortQuery) {
				continue
			}
			if !matchAt(ws, i, r.slots) {
				continue
			}
			if w.title && doc.multi {
				title[r] = true
			} else {
				body[r]++
			}
		}
	}
	scores := map[string]float64{}
	for r := range title {
		scores[r.intent] += r.weight * titleFactor
	}
	for r, n := range body {
		scores[r.intent] += r.weight * min(1+0.25*float64(n-1), 2)
	}
	if trace {
		scores[BugFix] += traceScore
	}
	if quotedError {
		scores[BugFix] += errorScore
	}
	best, first, second := Implementation, 0.0, 0.0
	for _, name := range intentNames { // fixed order: ties go to the earlier intent
		s := scores[name]
		switch {
		case s > first:
			best, first, second = name, s, first
		case s > second:
			second = s
		}
	}
	if first == 0 {
		return Intent{Name: Implementation, Confidence: defaultConfidence}
	}
	// share: how clearly the winner beats the runner-up; strength: how much evidence there is.
	conf := defaultConfidence + 0.65*(first/(first+second))*(1-math.Exp(-first/2.5))
	if trace && best == BugFix {
		conf = max(conf, traceConfidence)
	}
	return Intent{Name: best, Confidence: math.Round(conf*100) / 100}
}

func matchAt(ws []word, i int, slots [][]string) bool {
	if i+len(slots) > len(ws) {
		return false
	}
	for j, slot := range slots {
		w := ws[i+j].text
		if w == "" {
			return false
		}
		if slot != nil && !slices.Contains(slot, w) {
			return false
		}
	}
	return true
}

// intentWords lists the prose words, lower-cased, with sentence boundaries; code is left out.
func intentWords(doc *document) []word {
	ws := make([]word, 0, 256)
	for _, l := range doc.lines {
		if l.code || l.skip {
			continue
		}
		s := l.prose
		for i := 0; i < len(s); {
			c := s[i]
			switch {
			case c == 0:
				ws = append(ws, word{"`", l.title})
				i++
			case isWordByte(c):
				j := i
				for j < len(s) && (isWordByte(s[j]) || (s[j] == '\'' || s[j] == '`') && j+1 < len(s) && isWordByte(s[j+1])) {
					j++
				}
				w := strings.ToLower(strings.ReplaceAll(s[i:j], "`", "'"))
				ws = append(ws, word{w, l.title})
				i = j
			case c == '.' || c == '!' || c == '?' || c == ';' || c == ':' || c == ',' || c == '(' || c == ')':
				if len(ws) > 0 && ws[len(ws)-1].text != "" {
					ws = append(ws, word{"", l.title})
				}
				i++
			case c == 0xe2 && strings.HasPrefix(s[i:], "’"): // a typographic apostrophe inside a word
				if i > 0 && isWordByte(s[i-1]) && len(ws) > 0 {
					rest := s[i+len("’"):]
					j := 0
					for j < len(rest) && isWordByte(rest[j]) {
						j++
					}
					ws[len(ws)-1].text += "'" + strings.ToLower(rest[:j])
					i += len("’") + j
				} else {
					i++
				}
			default:
				i++
			}
		}
		if len(ws) > 0 && ws[len(ws)-1].text != "" {
			ws = append(ws, word{"", l.title})
		}
	}
	return ws
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
