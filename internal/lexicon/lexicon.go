// Package lexicon holds graded synonyms for query expansion: "delete" also finds "remove" (strong),
// "drop" (moderate) and "clear" (weak), so an issue written in one vocabulary reaches code written in
// another.
//
// A lexicon file is YAML with four optional sections:
//
//	synonyms:            # a word and its related words by grade; relations go both ways
//	  delete:
//	    strong: [remove, erase]
//	    moderate: [drop, purge]
//	    weak: [clear]
//	    0.75: [wipe]     # a weight in (0, 1] instead of a grade
//	groups:              # every word related to every other, at one grade
//	  - strong: [config, configuration, settings]
//	oneway:              # like synonyms, but only from the key to the listed words
//	  auth:
//	    strong: [authentication]
//	ignore: [log]        # words never expanded and never reached by expansion
//
// Grades weigh strong 0.9, moderate 0.6, weak 0.3. Words are single words (no phrases, no
// identifiers: queries are split into words before lookup); they are lower-cased and stemmed with
// words.Stem, so "removes" and "remove" are one entry. A project's .ctxmap/lexicon.yaml is layered over
// the built-in lexicon with With: its relations replace or extend the built-in ones pair by pair.
package lexicon

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/ctxmap/ctxmap/internal/words"
)

// Synonym is a related word and how strongly it stands in for the word looked up.
type Synonym struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
}

// Pair is a relation mined from the workspace, e.g. entity words that occur together.
// Weight in (0, 1] says how strong the evidence is; it is mapped onto weak..moderate.
type Pair struct {
	A, B   string
	Weight float64
}

// Grade weights.
const (
	Strong   = 0.9
	Moderate = 0.6
	Weak     = 0.3
)

var grades = map[string]float64{"strong": Strong, "moderate": Moderate, "weak": Weak}

// Lexicon is immutable once built; With and WithPairs return new ones, so a lexicon can be shared
// between concurrent queries.
type Lexicon struct {
	rel    map[string]map[string]float64 // from -> to -> weight
	ignore map[string]bool
	syn    map[string][]Synonym // rel without ignored words, best first
	spaced []string             // keys of languages written without spaces (Chinese, Japanese), longest first
}

func newLexicon() *Lexicon {
	return &Lexicon{rel: map[string]map[string]float64{}, ignore: map[string]bool{}}
}

// Synonyms returns the words related to a stemmed word, best first (ties alphabetical).
func (l *Lexicon) Synonyms(word string) []Synonym {
	if l == nil {
		return nil
	}
	return slices.Clone(l.syn[key(word)])
}

// Len is the number of words that have synonyms.
func (l *Lexicon) Len() int {
	if l == nil {
		return 0
	}
	return len(l.syn)
}

// With returns a new lexicon: l's relations, then other's, which replace l's weight for the same pair
// and add the rest. Ignored words of both stay ignored.
func (l *Lexicon) With(other *Lexicon) *Lexicon {
	out := l.clone()
	if other != nil {
		for from, tos := range other.rel {
			for to, w := range tos {
				out.set(from, to, w)
			}
		}
		for w := range other.ignore {
			out.ignore[w] = true
		}
	}
	out.finish()
	return out
}

// WithPairs returns a new lexicon with relations mined from the workspace. Curated relations win: a
// pair already related keeps its weight. A pair's weight w in (0, 1] becomes 0.3 + 0.3*w, between
// weak and moderate, in both directions. Pairs that are not two distinct single words are skipped.
func (l *Lexicon) WithPairs(pairs []Pair) *Lexicon {
	out := l.clone()
	for _, p := range pairs {
		a, b := key(p.A), key(p.B)
		if !isWord(a) || !isWord(b) || a == b || !(p.Weight > 0) {
			continue
		}
		w := Weak + (Moderate-Weak)*min(p.Weight, 1)
		if _, ok := out.rel[a][b]; !ok {
			out.set(a, b, w)
		}
		if _, ok := out.rel[b][a]; !ok {
			out.set(b, a, w)
		}
	}
	out.finish()
	return out
}

func (l *Lexicon) clone() *Lexicon {
	out := newLexicon()
	if l == nil {
		return out
	}
	for from, tos := range l.rel {
		m := make(map[string]float64, len(tos))
		for to, w := range tos {
			m[to] = w
		}
		out.rel[from] = m
	}
	for w := range l.ignore {
		out.ignore[w] = true
	}
	return out
}

func (l *Lexicon) set(from, to string, w float64) {
	if from == to {
		return
	}
	m := l.rel[from]
	if m == nil {
		m = map[string]float64{}
		l.rel[from] = m
	}
	m[to] = w
}

// raise keeps the higher weight when one file states a pair twice.
func (l *Lexicon) raise(from, to string, w float64) {
	if old, ok := l.rel[from][to]; !ok || w > old {
		l.set(from, to, w)
	}
}

func (l *Lexicon) finish() {
	l.syn = make(map[string][]Synonym, len(l.rel))
	for from, tos := range l.rel {
		if l.ignore[from] {
			continue
		}
		list := make([]Synonym, 0, len(tos))
		for to, w := range tos {
			if !l.ignore[to] {
				list = append(list, Synonym{Word: to, Weight: w})
			}
		}
		if len(list) == 0 {
			continue
		}
		slices.SortFunc(list, func(a, b Synonym) int {
			if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
				return c
			}
			return strings.Compare(a.Word, b.Word)
		})
		l.syn[from] = list
		if Unspaced(from) {
			l.spaced = append(l.spaced, from)
		}
	}
	slices.SortFunc(l.spaced, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// Inside finds the words of a language written without spaces inside a run of its text, in the
// order they stand, each once: "解析配置文件失败" holds 解析, 配置 and 文件. The longest word at a
// place wins: a shorter one inside it is not found there.
func (l *Lexicon) Inside(run string) []string {
	if l == nil || len(l.spaced) == 0 || !Unspaced(run) {
		return nil
	}
	taken := make([]bool, len(run))
	at := map[string]int{}
	for _, k := range l.spaced {
		for from := 0; ; {
			i := strings.Index(run[from:], k)
			if i < 0 {
				break
			}
			i += from
			if !slices.Contains(taken[i:i+len(k)], true) {
				for j := i; j < i+len(k); j++ {
					taken[j] = true
				}
				if _, ok := at[k]; !ok {
					at[k] = i
				}
			}
			from = i + len(k)
		}
	}
	out := make([]string, 0, len(at))
	for k := range at {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(at[a], at[b]) })
	return out
}

// Unspaced tells a text holding letters of a script written without spaces between words.
func Unspaced(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)) {
			return true
		}
	}
	return false
}

// key is the form words are stored and looked up under.
func key(w string) string {
	return words.Stem(strings.ToLower(strings.TrimSpace(w)))
}

// isWord reports whether a lower-case word survives words.Split whole, i.e. can be a query term.
func isWord(w string) bool {
	parts := words.Split(w)
	return len(parts) == 1 && parts[0] == w
}
