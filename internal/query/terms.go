package query

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/ctxmap/ctxmap/internal/lexicon"
	"github.com/ctxmap/ctxmap/internal/words"
)

const (
	titleWeight   = 1.25 // a title word, when there is a body
	secondPass    = 0.5  // a synonym of a synonym weighs half its product
	minExpansion  = 0.1  // below this an expansion is noise
	firstPassMax  = 6    // synonyms taken per query word
	secondPassMax = 4    // synonyms taken per expansion
	secondPassMin = 0.5  // only strong enough expansions expand again
	maxExpansions = 120
)

// Chatty words of issue prose that stopwords miss and that name nothing in code.
var chatter = stems(`really actually currently probably maybe perhaps basically simply anyway anymore always
never sometimes lot lots bit thing things stuff someone anyone everyone somebody anybody hey ok okay yeah
btw imo afaik lgtm cc fyi tia regards cheers sorry guess hope seemingly apparently somehow whatever wrt
didnt doesnt dont isnt wasnt cant wont im ive am lets something anything everything somewhere anywhere whereas
although unless whether either neither besides otherwise meanwhile therefore thus hence indeed during within
without across around among toward towards upon onto since ago yet
thank thanks hi hello issue bug problem expected actual behavior behaviour version describe description
following example`)

// Chatter reports whether a stemmed word is the reporter's chatter (thanks, version, expected...), which
// names nothing in the code even where the project has a word like it.
func Chatter(stem string) bool { return chatter[stem] }

func stems(s string) map[string]bool {
	m := map[string]bool{}
	for w := range words.Set(s) {
		m[words.Stem(w)] = true
	}
	return m
}

// findTerms lists the prose's own words (weight 1, title words more), then their lexicon expansions
// best first: the first pass takes a word's synonyms at their grade, the second pass the synonyms of
// strong and moderate expansions at half the product. An expansion never lowers a weight already there.
func findTerms(doc *document, lex *lexicon.Lexicon) []Term {
	out := make([]Term, 0, 256)
	at := make(map[string]int, 256)
	addWord := func(t string, w float64) {
		if i, ok := at[t]; ok {
			out[i].Weight = max(out[i].Weight, w)
			return
		}
		at[t] = len(out)
		out = append(out, Term{Word: t, Weight: w, Source: "query"})
	}
	addQuery := func(text string, w float64) {
		for _, t := range words.Terms(splitScripts(text)) {
			if chatter[t] {
				continue
			}
			addWord(t, w)
			// a run of Chinese is many words: those the lexicon knows are the reporter's words in English
			for _, k := range lex.Inside(t) {
				for _, s := range lex.Synonyms(k) {
					if !words.Stopword(s.Word) {
						addWord(s.Word, w*s.Weight)
					}
				}
			}
		}
	}
	for _, l := range doc.lines {
		if l.code || l.skip || l.head {
			continue
		}
		w := 1.0
		if l.title && doc.multi {
			w = titleWeight
		}
		addQuery(l.prose, w)
		for _, sp := range l.spans {
			addQuery(sp, w)
		}
	}
	if lex == nil {
		return out
	}
	nq := len(out)
	expand := func(word string, w float64, source string) {
		if w < minExpansion || len(word) < 2 || words.Stopword(word) {
			return
		}
		if i, ok := at[word]; ok {
			if out[i].Source != "query" && out[i].Weight < w {
				out[i].Weight, out[i].Source = w, source
			}
			return
		}
		at[word] = len(out)
		out = append(out, Term{Word: word, Weight: w, Source: source})
	}
	for i := 0; i < nq; i++ {
		q := out[i]
		source := "lexicon:" + q.Word
		for k, s := range lex.Synonyms(q.Word) {
			if k == firstPassMax {
				break
			}
			expand(s.Word, min(q.Weight, 1)*s.Weight, source)
		}
	}
	first := slices.Clone(out[nq:])
	// The second pass can only add words lighter than its sources; when the first pass already fills
	// the list with heavier words, those could never make the cut.
	floor := 0.0
	if len(first) >= maxExpansions {
		ws := make([]float64, len(first))
		for i, e := range first {
			ws[i] = e.Weight
		}
		slices.Sort(ws)
		floor = ws[len(ws)-maxExpansions]
	}
	for _, e := range first {
		if e.Weight < secondPassMin || e.Weight*secondPass <= floor {
			continue
		}
		source := "lexicon:" + e.Word
		for k, s := range lex.Synonyms(e.Word) {
			if k == secondPassMax {
				break
			}
			expand(s.Word, e.Weight*s.Weight*secondPass, source)
		}
	}
	exp := out[nq:]
	slices.SortFunc(exp, func(a, b Term) int {
		if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
			return c
		}
		return strings.Compare(a.Word, b.Word)
	})
	if len(exp) > maxExpansions {
		out = out[:nq+maxExpansions]
	}
	return out
}

// splitScripts puts a space where a script written without spaces (Chinese, Japanese) meets letters
// or digits of another: "调用TokenValidator校验" -> "调用 TokenValidator 校验".
func splitScripts(s string) string {
	if !lexicon.Unspaced(s) {
		return s
	}
	var b strings.Builder
	prev := 0 // 1: unspaced script, 2: other letters and digits, 0: anything else
	for _, r := range s {
		cur := 0
		switch {
		case unspacedRune(r):
			cur = 1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			cur = 2
		}
		if cur != 0 && prev != 0 && cur != prev {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = cur
	}
	return b.String()
}

func unspacedRune(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
