package pack

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Every rendered part (header, item, section tag, footer) ends with a newline and the next one starts
// with "#", "<" or "_": a boundary no pre-token crosses (see nextCut), so the parts' token counts add
// up to the count of the whole text.

// xmlSection names a bucket's section as idea 003 does.
var xmlSection = map[string]string{
	"definitions": "definitions",
	"snippets":    "relevant_code",
	"imports":     "imports",
	"tests":       "test_context",
	"callers":     "callers",
	"outlines":    "outlines",
}

// headerDetail is how much of the query and the entities the header shows; small budgets get less.
type headerDetail struct {
	queryTokens, entities, files, related int
	spend                                 bool // list the tokens spent per section
}

var headerDetails = []headerDetail{
	{64, 8, 3, 5, true},
	{32, 3, 2, 3, true},
	{16, 1, 1, 0, true},
	{8, 0, 0, 0, true},
	{0, 0, 0, 0, false}, // the smallest budgets: every token for code; Pack.Sections still has the spend
}

// spend is a bucket's tokens as the header lists them.
type spend struct {
	bucket string
	tokens int
}

func renderHeader(format string, p *Pack, d headerDetail, spent []spend, tok *Tokenizer) string {
	query := ""
	if line, _, _ := strings.Cut(p.Query, "\n"); strings.TrimSpace(line) != "" {
		query = tok.clip(strings.TrimSpace(line), d.queryTokens)
	}
	if !d.spend {
		spent = nil
	}
	intent := tok.clip(oneLine(p.Intent.Name), 8)
	conf := strconv.FormatFloat(p.Intent.Confidence, 'f', 2, 64)
	ents := p.Entities
	if len(ents) > d.entities {
		ents = ents[:d.entities]
	}
	var b strings.Builder
	if format == "xml" {
		b.WriteString("<context>\n")
		if query != "" {
			b.WriteString("<query>" + xmlEscape(query, false) + "</query>\n")
		}
		if intent != "" {
			b.WriteString(`<intent name="` + xmlEscape(intent, true) + `" confidence="` + conf + "\"/>\n")
		}
		if len(ents) > 0 {
			b.WriteString("<entities>\n")
			for _, e := range ents {
				b.WriteString(`<entity name="` + xmlEscape(tok.clip(oneLine(e.Name), 12), true) + `" importance="` +
					strconv.FormatFloat(e.Importance, 'f', 2, 64) + `"`)
				if fs := entityList(e.Files, d.files, 24, tok); fs != "" {
					b.WriteString(` files="` + xmlEscape(fs, true) + `"`)
				}
				if rs := entityList(e.Related, d.related, 12, tok); rs != "" {
					b.WriteString(` related="` + xmlEscape(rs, true) + `"`)
				}
				b.WriteString("/>\n")
			}
			b.WriteString("</entities>\n")
		}
		b.WriteString(`<budget limit="` + strconv.Itoa(p.Budget) + `" tokens="` + strconv.Itoa(p.Tokens) + `" tokenizer="` + xmlEscape(p.Tokenizer, true) + `"`)
		for _, s := range spent {
			b.WriteString(" " + s.bucket + `="` + strconv.Itoa(s.tokens) + `"`)
		}
		b.WriteString("/>\n")
		if pt := p.Partial; pt != nil {
			b.WriteString(`<partial files="` + strconv.Itoa(pt.Files) + `" total="` + strconv.Itoa(pt.Total) + `" built="` +
				strconv.FormatFloat(pt.Built, 'f', 2, 64) + "\"/>\n")
		}
		return b.String()
	}
	if query != "" {
		b.WriteString("# Context: " + query + "\n\n")
	} else {
		b.WriteString("# Context\n\n")
	}
	if intent != "" {
		b.WriteString("- intent: " + intent + " (" + conf + ")\n")
	}
	if len(ents) > 0 {
		b.WriteString("- entities:\n")
		for _, e := range ents {
			b.WriteString("  - " + tok.clip(oneLine(e.Name), 12) + " (" + strconv.FormatFloat(e.Importance, 'f', 2, 64) + ")")
			sep := ": "
			if fs := entityList(e.Files, d.files, 24, tok); fs != "" {
				b.WriteString(sep + fs)
				sep = "; "
			}
			if rs := entityList(e.Related, d.related, 12, tok); rs != "" {
				b.WriteString(sep + "related: " + rs)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("- pack: " + strconv.Itoa(p.Tokens) + " of " + strconv.Itoa(p.Budget) + " tokens (" + p.Tokenizer + ")")
	for i, s := range spent {
		if i == 0 {
			b.WriteString(":")
		} else {
			b.WriteString(",")
		}
		b.WriteString(" " + s.bucket + " " + strconv.Itoa(s.tokens))
	}
	b.WriteString("\n")
	if pt := p.Partial; pt != nil {
		b.WriteString("- partial: from " + Thousands(pt.Files) + " of " + Thousands(pt.Total) + " files; the index is " +
			strconv.Itoa(int(pt.Built*100)) + "% built\n")
	}
	if p.SetAside != "" {
		b.WriteString("- set aside: " + p.SetAside + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// Thousands writes n with comma separators: 38,420.
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func entityList(xs []string, n, maxTokens int, tok *Tokenizer) string {
	var out []string
	for _, x := range xs {
		if len(out) == n {
			break
		}
		if x = oneLine(x); x != "" {
			out = append(out, tok.clip(x, maxTokens))
		}
	}
	return strings.Join(out, ", ")
}

func renderFooter(format string, omitted int) string {
	var b strings.Builder
	if format == "xml" {
		if omitted > 0 {
			b.WriteString(`<omitted candidates="` + strconv.Itoa(omitted) + "\"/>\n")
		}
		b.WriteString("</context>\n")
		return b.String()
	}
	switch {
	case omitted == 1:
		b.WriteString("_1 more candidate did not fit the budget._\n")
	case omitted > 0:
		b.WriteString("_" + strconv.Itoa(omitted) + " more candidates did not fit the budget._\n")
	}
	return b.String()
}

// probText is a probability as the pack prints it: two decimals.
func probText(p float64) string { return strconv.FormatFloat(p, 'f', 2, 64) }

func sectionOpen(bucket string) string  { return "<" + xmlSection[bucket] + ">\n" }
func sectionClose(bucket string) string { return "</" + xmlSection[bucket] + ">\n" }

func renderItem(format string, p *piece) string {
	if format == "xml" {
		return renderXMLItem(p)
	}
	return renderMarkdownItem(p)
}

// headingPath is a path as a Markdown heading shows it: quoted, escapes and all, when it holds a line
// break or another control character, so the heading stays one line and the name stays exact.
func headingPath(path string) string {
	if strings.ContainsFunc(path, unicode.IsControl) {
		return strconv.Quote(path)
	}
	return path
}

func renderMarkdownItem(p *piece) string {
	var b strings.Builder
	b.Grow(len(p.code) + 128)
	if p.kind == "outline" { // a signature or two: the heading says no more than the file's probability
		b.WriteString("### " + headingPath(p.path) + " (outline")
		if p.prob > 0 {
			b.WriteString(", p=" + probText(p.prob))
		}
		f := fence(p.code)
		b.WriteString(")\n" + f + p.lang + "\n" + p.code + "\n" + f + "\n\n")
		return b.String()
	}
	b.WriteString("### " + headingPath(p.path) + lineRange(p.start-p.before, p.end+p.after, ":"))
	if p.symbol != "" {
		b.WriteString(" · " + p.symbol)
	}
	var notes []string
	if p.kind != "definition" && p.kind != "snippet" {
		notes = append(notes, p.kind)
	}
	switch {
	case p.size == sizeCompact && p.symbol != "":
		notes = append(notes, "signature only")
	case p.size == sizeStandard:
		notes = append(notes, "outline")
	}
	if len(notes) > 0 {
		b.WriteString(" (" + strings.Join(notes, ", ") + ")")
	}
	b.WriteString("\nwhy: " + strings.Join(p.why, "; "))
	if p.prob > 0 {
		b.WriteString(" (p=" + probText(p.prob) + ")")
	}
	b.WriteString("\n")
	f := fence(p.code)
	b.WriteString(f + p.lang + "\n" + p.code + "\n" + f + "\n\n")
	return b.String()
}

// renderFileBlock renders pieces of one file, in line order, as one block: a heading with the lines
// they span and the symbols they show, the why of the best-ranked one, and their code in one fence,
// each gap between them a line that says how many lines it hides. The parts, one per piece, add up to
// the block.
func renderFileBlock(ps []*piece) []string {
	best := ps[0]
	var syms []string
	end := 0
	for _, p := range ps {
		if p.rank < best.rank {
			best = p
		}
		if p.symbol != "" && !slices.Contains(syms, p.symbol) {
			syms = append(syms, p.symbol)
		}
		end = max(end, p.end+p.after)
	}
	codes := make([]string, len(ps))
	for i, p := range ps {
		codes[i] = p.code
	}
	f := fence(strings.Join(codes, "\n"))
	var head strings.Builder
	head.WriteString("### " + best.path + lineRange(ps[0].start-ps[0].before, end, ":"))
	if len(syms) > 0 {
		head.WriteString(" · " + strings.Join(syms, ", "))
	}
	head.WriteString("\nwhy: " + strings.Join(best.why, "; "))
	if best.prob > 0 {
		head.WriteString(" (p=" + probText(best.prob) + ")")
	}
	head.WriteString("\n" + f + best.lang + "\n")
	parts := make([]string, len(ps))
	reached := 0 // the last line shown or stood for so far
	for i, p := range ps {
		var b strings.Builder
		code, before, after := p.code, p.before, p.after
		if i > 0 && before > 0 {
			// the lines above a body that the piece before shows are said once, by it
			before = max(0, min(before, p.start-reached-1))
		}
		if i == 0 {
			b.WriteString(head.String())
		} else if gap := p.start - before - reached - 1; gap > 0 {
			b.WriteString(elision(p.lang, "", gap) + "\n")
		}
		if i+1 < len(ps) && after > 0 {
			// the lines below a body that the next piece shows itself are said once, by it
			after = max(0, min(after, ps[i+1].start-p.end-1))
		}
		if before != p.before || after != p.after {
			code = p.around(before, after)
		}
		b.WriteString(code + "\n")
		if i == len(ps)-1 {
			b.WriteString(f + "\n\n")
		}
		parts[i] = b.String()
		reached = max(reached, p.end+after)
	}
	return parts
}

func renderXMLItem(p *piece) string {
	var b strings.Builder
	b.Grow(len(p.code) + 160)
	b.WriteString(`<item kind="` + xmlEscape(p.kind, true) + `" path="` + xmlEscape(p.path, true) + `"`)
	if r := lineRange(p.start-p.before, p.end+p.after, ""); r != "" {
		b.WriteString(` lines="` + r + `"`)
	}
	if p.symbol != "" {
		b.WriteString(` symbol="` + xmlEscape(p.symbol, true) + `"`)
	}
	b.WriteString(` size="` + p.size + `" why="` + xmlEscape(strings.Join(p.why, "; "), true) + `"`)
	if p.prob > 0 {
		b.WriteString(` probability="` + probText(p.prob) + `"`)
	}
	b.WriteString("><![CDATA[\n")
	b.WriteString(cdata(p.code))
	b.WriteString("\n]]></item>\n")
	return b.String()
}

func lineRange(start, end int, prefix string) string {
	switch {
	case start <= 0:
		return ""
	case end <= start:
		return prefix + strconv.Itoa(start)
	}
	return prefix + strconv.Itoa(start) + "-" + strconv.Itoa(end)
}

// fence is a run of backticks longer than any in the code, so the code cannot close it.
func fence(code string) string {
	longest, run := 0, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	if longest < 3 {
		return "```"
	}
	return strings.Repeat("`", longest+1)
}

func xmlEscape(s string, attr bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"' && attr:
			b.WriteString("&quot;")
		case r == '\n' && attr:
			b.WriteString("&#10;")
		case r == '\r' && attr:
			b.WriteString("&#13;")
		case r == '\t' && attr:
			b.WriteString("&#9;")
		case !xmlChar(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cdata keeps code verbatim inside CDATA: "]]>" is split across two sections and characters XML
// forbids become U+FFFD.
func cdata(s string) string {
	clean := true
	for _, r := range s {
		if !xmlChar(r) {
			clean = false
			break
		}
	}
	if !clean {
		s = strings.Map(func(r rune) rune {
			if xmlChar(r) {
				return r
			}
			return utf8.RuneError
		}, s)
	}
	return strings.ReplaceAll(s, "]]>", "]]]]><![CDATA[>")
}

func xmlChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20:
		return false
	case r == utf8.RuneError:
		return true
	case r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
		return false
	}
	return true
}
