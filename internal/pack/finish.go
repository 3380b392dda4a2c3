package pack

import (
	"slices"
	"strings"
)

// finish renders the pack, and if the whole text counts over the budget (the parts' counts should add
// up to it exactly) drops the lowest-ranked items until it fits.
func (a *assembly) finish() {
	items := a.byRank()
	for {
		text, n := a.settle(items)
		if n <= a.p.Budget || len(items) == 0 {
			if n > a.p.Budget {
				a.detail = headerDetails[len(headerDetails)-1]
				text = a.tok.clip(a.render(nil), a.p.Budget)
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
	a.p.Items = make([]Item, 0, len(items))
	a.p.Sections = map[string]int{}
	for _, x := range items {
		a.p.Sections[x.bucket] += x.tokens
		a.p.Items = append(a.p.Items, Item{
			Kind: x.kind, Path: x.path, Symbol: x.symbol, StartLine: x.start, EndLine: x.end,
			Tokens: x.tokens, Score: x.score, Size: x.size, Why: x.why, Probability: x.prob,
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
func (a *assembly) settle(items []*piece) (string, int) {
	spent := a.spends(items)
	body := a.renderBody(items, spent)
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

// spends is what the header lists: the tokens of each bucket the items use.
func (a *assembly) spends(items []*piece) []spend {
	per := map[string]int{}
	for _, x := range items {
		per[x.bucket] += a.count(x)
	}
	var out []spend
	for _, b := range buckets {
		if per[b] > 0 {
			out = append(out, spend{b, per[b]})
		}
	}
	return out
}

func (a *assembly) render(items []*piece) string {
	spent := a.spends(items)
	return renderHeader(a.format, a.p, a.detail, spent, a.tok) + a.renderBody(items, spent)
}

// renderBody is everything after the header: the items (in XML, in their sections) and the footer.
func (a *assembly) renderBody(items []*piece, spent []spend) string {
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
			for _, x := range items {
				if x.bucket == b {
					sb.WriteString(x.text)
				}
			}
			sb.WriteString(sectionClose(b))
		}
	} else {
		for _, x := range items {
			sb.WriteString(x.text)
		}
	}
	sb.WriteString(renderFooter(a.format, omitted))
	return sb.String()
}
