package scan

import (
	"path"
	"strings"
	"unicode"

	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/words"
)

// QueryOf is what the scan looks for in a text: the files of stack frames and paths the text names, the
// names it quotes (whole and by their parts), its error messages, and its own words, rarer ones
// counting more by the scan's own measure of rarity.
func QueryOf(a *query.Analysis) Query {
	// the full index ranks code before tests, prose and data (but tests when they are the task): so
	// does the scan, and the partial pack reads the code the full one would lead with
	q := Query{Weight: func(p string) float64 {
		if records.IsCode(p) || a.Intent.Name == query.TestWriting && records.IsTest(p) {
			return 1
		}
		return 0.5
	}}
	seen := map[string]bool{}
	word := func(w string, weight float64) {
		w = strings.ToLower(w)
		if len(w) < 3 || seen[w] || words.Stopword(w) {
			return
		}
		seen[w] = true
		q.Words = append(q.Words, Term{Text: w, Weight: weight})
	}
	filePath := func(p string) {
		p = strings.ToLower(strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, "\\", "/")), "/"))
		if p != "." && !seen["path:"+p] {
			seen["path:"+p] = true
			q.Paths = append(q.Paths, Term{Text: p, Weight: 4})
		}
	}
	for _, f := range a.Frames {
		if f.Path != "" {
			filePath(f.Path)
		}
		if f.Function != "" {
			fn := f.Function
			if i := strings.LastIndexAny(fn, ".:"); i >= 0 {
				fn = fn[i+1:]
			}
			word(fn, 3)
		}
	}
	for _, an := range a.Anchors {
		switch an.Kind {
		case query.KindPath, query.KindFileLine:
			filePath(an.Path)
		default:
			parts := strings.FieldsFunc(an.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
			for _, p := range parts {
				word(p, 3)
			}
		}
	}
	for _, e := range a.Errors {
		if p := longestLiteral(e); len(p) >= 8 && !seen["msg:"+p] {
			seen["msg:"+p] = true
			q.Phrases = append(q.Phrases, Term{Text: p, Weight: 3})
		}
	}
	for _, id := range a.Identifiers {
		word(id, 1.5)
	}
	for _, w := range strings.FieldsFunc(a.Words(), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		if !words.Common(words.Stem(strings.ToLower(w))) {
			word(w, 1)
		}
	}
	return q
}

// longestLiteral is the longest piece of an error message a string literal in code would hold as it
// is: the message cut at format verbs, quotes and interpolations, lower case.
func longestLiteral(msg string) string {
	best := ""
	for _, p := range strings.FieldsFunc(strings.ToLower(msg), func(r rune) bool { return strings.ContainsRune("%{}\"'`\n", r) }) {
		if p = strings.TrimSpace(p); len(p) > len(best) {
			best = p
		}
	}
	return best
}
