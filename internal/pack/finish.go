package pack

import (
	"cmp"
	"slices"
	"strings"
)

// finish renders the pack, and if the whole text counts over the budget (the parts' counts should add
// up to it exactly) drops the lowest-ranked items until it fits. The items stay in rank order (what
// an agent reads first); the rendering lays them out by file (what a person reads).
func (a *assembly) finish() {
	a.reclaim()
	items := a.byRank()
	var laid []*piece
	var parts []string
	var counts []int
	for {
		var text string
		var n int
		laid, parts, counts = a.layout(items)
		text, n = a.settle(laid, parts, counts)
		if n <= a.p.Budget || len(items) == 0 {
			if n > a.p.Budget {
				a.detail = headerDetails[len(headerDetails)-1]
				text = a.tok.clip(a.render(), a.p.Budget)
				n = a.tok.Count(text)
			}
			a.p.Text, a.p.Tokens = text, n
			break
		}
		last := items[len(items)-1]
		for _, r := range last.c.parts() {
			a.state[r] = dropped
		}
		items = items[:len(items)-1]
	}
	tokens := map[*piece]int{}
	for i, x := range laid {
		tokens[x] = counts[i]
	}
	a.p.Items = make([]Item, 0, len(items))
	a.p.Sections = map[string]int{}
	for _, x := range items {
		n := tokens[x]
		a.p.Sections[x.bucket] += n
		a.p.Items = append(a.p.Items, Item{
			Kind: x.kind, Path: x.path, Symbol: x.symbol, StartLine: x.start, EndLine: x.end,
			Tokens: n, Score: x.score, Size: x.size, Why: x.why, Probability: x.prob,
			Code: x.code, Shown: x.shown,
		})
	}
	if a.p.Entities == nil {
		a.p.Entities = []Entity{}
	}
}

// maxHeaderShare is the most of a pack its header may take: what it says (the query, the entities,
// the spend) is worth less than the code.
const maxHeaderShare = 0.10

// settle renders the pack with a header that states the pack's own total and takes at most
// maxHeaderShare of it, at the most detail that allows.
func (a *assembly) settle(items []*piece, parts []string, counts []int) (string, int) {
	spent := a.spends(items, counts)
	body := a.renderBody(items, parts, spent)
	bodyTokens := a.tok.Count(body) // the parts' counts add up (see render.go): only the header varies
	var head string
	var h int
	for level := slices.Index(headerDetails, a.detail); level < len(headerDetails); level++ {
		a.detail = headerDetails[level]
		// the total is part of the text it counts: a few rounds settle it (a number's tokens rarely change)
		for range 3 {
			head = renderHeader(a.format, a.p, a.detail, spent, a.tok)
			if h = a.tok.Count(head); h+bodyTokens == a.p.Tokens {
				break
			}
			a.p.Tokens = h + bodyTokens
		}
		if float64(h) <= maxHeaderShare*float64(h+bodyTokens) {
			break
		}
	}
	return head + body, h + bodyTokens
}

// spends is what the header lists: the tokens of each bucket the items use, as laid out.
func (a *assembly) spends(items []*piece, counts []int) []spend {
	per := map[string]int{}
	for i, x := range items {
		per[x.bucket] += counts[i]
	}
	var out []spend
	for _, b := range buckets {
		if per[b] > 0 {
			out = append(out, spend{b, per[b]})
		}
	}
	return out
}

// render is the header and footer of a pack without items.
func (a *assembly) render() string {
	return renderHeader(a.format, a.p, a.detail, nil, a.tok) + a.renderBody(nil, nil, nil)
}

// renderBody is everything after the header: the items' parts (in XML, in their sections) and the
// footer.
func (a *assembly) renderBody(items []*piece, parts []string, spent []spend) string {
	per := map[string]int{}
	for _, s := range spent {
		per[s.bucket] = s.tokens
	}
	omitted := 0
	for _, c := range a.cands {
		if s := a.state[c.rank]; s == pending || s == dropped {
			omitted++
		}
	}
	var sb strings.Builder
	if a.format == "xml" {
		for _, b := range buckets {
			if per[b] == 0 {
				continue
			}
			sb.WriteString(sectionOpen(b))
			for i, x := range items {
				if x.bucket == b {
					sb.WriteString(parts[i])
				}
			}
			sb.WriteString(sectionClose(b))
		}
	} else {
		for _, part := range parts {
			sb.WriteString(part)
		}
	}
	sb.WriteString(renderFooter(a.format, omitted))
	return sb.String()
}

// layout orders the chosen pieces for reading and renders each: a file's pieces together in line
// order, the files in the order of their best piece, outlines last. In Markdown a file's pieces are
// one block, under one heading that gives the why of its best piece, with a line for each gap that
// says how many lines it hides; parts[i] is items[i]'s share of the text, so the parts add up to it,
// and counts[i] its tokens (a piece alone keeps the count it was placed with).
func (a *assembly) layout(items []*piece) (ordered []*piece, parts []string, counts []int) {
	first := map[string]int{}
	for _, x := range items {
		if r, ok := first[x.path]; !ok || x.rank < r {
			first[x.path] = x.rank
		}
	}
	ordered = slices.Clone(items)
	slices.SortStableFunc(ordered, func(x, y *piece) int {
		if ox, oy := x.kind == "outline", y.kind == "outline"; ox != oy {
			if ox {
				return 1
			}
			return -1
		}
		if x.path != y.path {
			return cmp.Compare(first[x.path], first[y.path])
		}
		return cmp.Compare(x.start, y.start)
	})
	parts, counts = make([]string, len(ordered)), make([]int, len(ordered))
	for i := 0; i < len(ordered); {
		j := i + 1
		for j < len(ordered) && ordered[j].path == ordered[i].path && joinable(ordered[j]) && joinable(ordered[i]) {
			j++
		}
		if a.format == "xml" || j == i+1 {
			for k := i; k < j; k++ {
				parts[k], counts[k] = ordered[k].text, a.count(ordered[k])
			}
		} else {
			copy(parts[i:j], renderFileBlock(ordered[i:j]))
			for k := i; k < j; k++ {
				counts[k] = a.tok.Count(parts[k])
			}
		}
		i = j
	}
	return ordered, parts, counts
}

// joinable: a piece that can share its file's block (code with its place; not an outline).
func joinable(x *piece) bool { return x.kind != "outline" && x.start > 0 && x.code != "" }

// reclaim gives the candidates that did not fit what laying the files out as blocks saves (a heading
// for each file rather than for each piece), once: the budget is the reader's, not the layout's.
func (a *assembly) reclaim() {
	items := a.byRank()
	_, _, counts := a.layout(items)
	saved := 0
	for _, x := range items {
		saved += a.count(x)
	}
	for _, n := range counts {
		saved -= n
	}
	if saved < minReclaim {
		return
	}
	a.avail += saved
	for _, c := range a.cands {
		if a.state[c.rank] == pending {
			a.place(c, leftOver)
		}
	}
}

// minReclaim is the least saving worth a second placement.
const minReclaim = 30
