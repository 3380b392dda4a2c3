package pack

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// A body too long for its room is cut the way code search shows a hit: its signature, the lines the
// evidence lands on with a few lines around each and the headers of the blocks that hold them, the
// rest elided with a line that says how many lines it hides.

// focusRadius is how many lines on each side of a focus line come with it before any window grows.
const focusRadius = 2

// cutOrder is the order in which a cut keeps the lines of a body (full, whose first line is the
// file's line start): the signature, then each focus line with its enclosing headers and its window,
// best first, then every window and the body's opening growing a line at a time. Nil when no focus
// line falls inside the body: the cut keeps the opening lines.
func cutOrder(full []string, sig, start int, focus []int) []int {
	if start <= 0 || len(full) == 0 {
		return nil
	}
	var at []int // focus lines as indexes of full, past the signature
	for _, l := range focus {
		if i := l - start; i >= sig && i < len(full) && !slices.Contains(at, i) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil
	}
	order := make([]int, 0, len(full))
	taken := make([]bool, len(full))
	take := func(i int) {
		if i >= 0 && i < len(full) && !taken[i] {
			taken[i] = true
			order = append(order, i)
		}
	}
	for i := range sig {
		take(i)
	}
	for _, f := range at {
		for _, h := range headers(full, sig, f) {
			take(h)
		}
		take(f)
		for d := 1; d <= focusRadius; d++ {
			take(f - d)
			take(f + d)
		}
	}
	// then the windows grow, the opening with them (as a window that reaches down from the signature)
	grow := append(append([]int{}, at...), sig-1)
	for d := focusRadius + 1; len(order) < len(full); d++ {
		for _, f := range grow {
			if f != sig-1 {
				take(f - d)
			}
			take(f + d)
		}
		if d > len(full) {
			break
		}
	}
	return order
}

// headers are the lines above line f that open the blocks holding it, outermost first: each earlier
// line indented less than everything between it and f, down to the signature's block.
func headers(full []string, sig, f int) []int {
	var out []int
	width := indentWidth(full[f])
	for i := f - 1; i >= sig && width > 0; i-- {
		if strings.TrimSpace(full[i]) == "" {
			continue
		}
		if w := indentWidth(full[i]); w < width {
			out = append(out, i)
			width = w
		}
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}

// indentWidth is the width of a line's leading white space, a tab counted as four columns.
func indentWidth(s string) int {
	w := 0
	for _, r := range s {
		switch r {
		case ' ':
			w++
		case '\t':
			w += 4
		default:
			return w
		}
	}
	return w
}

// cutAround renders the first keep lines of c's cut order in the body's own order, each run of
// hidden lines as one line that says how many it hides (a single hidden line is shown instead: its
// marker would cost as much), and the lines it shows verbatim as file ranges.
func cutAround(c *cand, keep int) (string, []Lines) {
	kept := make([]bool, len(c.full))
	for _, i := range c.order[:keep] {
		kept[i] = true
	}
	for i := 1; i+1 < len(kept); i++ {
		if !kept[i] && kept[i-1] && kept[i+1] {
			kept[i] = true
		}
	}
	var b strings.Builder
	var shown []Lines
	for i := 0; i < len(c.full); {
		j := i
		for j < len(c.full) && kept[j] == kept[i] {
			j++
		}
		switch {
		case kept[i]:
			for _, l := range c.full[i:j] {
				b.WriteString(l + "\n")
			}
			shown = append(shown, Lines{c.StartLine + i, c.StartLine + j - 1})
		case j == len(c.full):
			b.WriteString(moreLines(j - i + c.more))
		default:
			b.WriteString(elision(c.Language, c.full[i], j-i) + "\n")
		}
		i = j
	}
	code := strings.TrimSuffix(b.String(), "\n")
	if kept[len(kept)-1] && c.more > 0 {
		code += "\n" + moreLines(c.more)
	}
	return code, shown
}

// elision is the line that stands for n hidden lines, indented as the first of them, as a comment of
// the language where it has one (its row of the language table says).
func elision(lang, first string, n int) string {
	indent := first[:len(first)-len(strings.TrimLeft(first, " \t"))]
	if n == 1 {
		return indent + parse.CommentPrefix(lang) + "... 1 line ..."
	}
	return indent + parse.CommentPrefix(lang) + "... " + strconv.Itoa(n) + " lines ..."
}

// cut keeps as many leading lines of c's body as fit in allowed tokens, never fewer than the
// signature and a few lines after it, nor fewer than minKeep.
func (a *assembly) cut(c *cand, allowed int, why []string, minKeep int) *piece {
	lo := c.sig + minBodyLines
	if c.Standard != "" {
		lo = max(lo, (len(c.full)+1)/2) // a short cut says less than the outline
	}
	lo = max(lo, minKeep)
	hi := len(c.full) - 1
	if lo > hi {
		return nil
	}
	base := a.count(a.build(c, sizeTruncated, 0, why))
	est, k := base, 0
	for k < hi {
		i := k
		if c.order != nil {
			i = c.order[k]
		}
		n := a.lineTokens(c, i)
		if est+n > allowed {
			break
		}
		est += n
		k++
	}
	for k >= lo {
		p := a.build(c, sizeTruncated, k, why)
		n := a.count(p)
		if n <= allowed {
			return p
		}
		// Lines counted one by one rarely undercount; when they do, step back by the excess.
		step := 1
		if avg := (n - base) / k; avg > 0 {
			step = max(1, (n-allowed+avg-1)/avg)
		}
		k -= step
	}
	return nil
}

// lineTokens is the tokens of body line i counted alone, plus one for its newline: an estimate for
// choosing where to cut. Lines are counted as far as a cut reaches.
func (a *assembly) lineTokens(c *cand, i int) int {
	t := a.lineToks[c]
	for len(t) <= i {
		t = append(t, a.tok.Count(c.full[len(t)])+1)
	}
	a.lineToks[c] = t
	return t[i]
}
