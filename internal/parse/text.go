package parse

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

const (
	maxSignature = 240
	maxLiteral   = 200
	minLiteral   = 12
	maxDoc       = 2000
)

// oneLine collapses every run of whitespace to one space, trims, and repairs invalid UTF-8.
func oneLine(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	space := false
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			space = sb.Len() > 0
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteByte(c)
	}
	return valid(sb.String())
}

func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// clip cuts s to at most n bytes without splitting a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// bodyTypes are the node types that hold a declaration's body, beyond those named "...body".
var bodyTypes = map[string]bool{
	"block": true, "statement_block": true, "compound_statement": true, "declaration_list": true,
	"field_declaration_list": true, "enum_variant_list": true, "enumerator_list": true,
	"enum_member_declaration_list": true, "accessor_list": true, "template_body": true,
	"do_block": true, "body_statement": true, "enum_declaration_list": true, "object_type": true,
}

func isBody(n *sitter.Node) bool {
	t := n.Type()
	return bodyTypes[t] || strings.HasSuffix(t, "_body") || t == "body"
}

// signature is the declaration up to its body (or up to a comment inside its head), on one line.
// Variables and the like keep their first line only, so a large initialiser does not become the
// signature. commentStarts holds the file's comment start bytes, sorted.
func signature(n *sitter.Node, start, end uint32, kind string, src []byte, commentStarts []uint32) string {
	if kind != "constant" && kind != "variable" && kind != "field" && kind != "macro" {
		if cut, ok := bodyStart(n); ok && cut >= start && cut <= end {
			end = cut
		}
	}
	if i := sort.Search(len(commentStarts), func(i int) bool { return commentStarts[i] > start }); i < len(commentStarts) && commentStarts[i] < end {
		end = commentStarts[i]
	}
	code := text(n, src)
	if int(end-start) < len(code) {
		code = code[:end-start]
	}
	switch kind {
	case "constant", "variable", "field", "macro":
		if i := bytes.IndexByte(code, '\n'); i >= 0 {
			code = code[:i]
		}
	}
	s := strings.TrimRight(oneLine(code), " {:=;")
	if len(s) > maxSignature {
		s = strings.TrimRight(clip(s, maxSignature), " ")
	}
	return s
}

// bodyStart finds where the declaration's body begins: its "body" field, or else a body-like child
// or an opening brace, looking down the chain of last children where declarations keep their bodies.
func bodyStart(n *sitter.Node) (uint32, bool) {
	if b := n.ChildByFieldName("body"); b != nil {
		return b.StartByte(), true
	}
	cur := n
	for depth := 0; depth < 4 && cur != nil; depth++ {
		count := int(cur.ChildCount())
		var last *sitter.Node
		for i := 0; i < count; i++ {
			c := cur.Child(i)
			if c == nil {
				continue
			}
			if !c.IsNamed() {
				if c.Type() == "{" {
					return c.StartByte(), true
				}
				continue
			}
			if isBody(c) || (depth > 0 && cur.FieldNameForChild(i) == "body") {
				return c.StartByte(), true
			}
			last = c
		}
		cur = last
	}
	return 0, false
}

func lastRow(n *sitter.Node) uint32 {
	s, e := n.StartPoint(), n.EndPoint()
	if e.Column == 0 && e.Row > s.Row {
		return e.Row - 1
	}
	return e.Row
}

// ownLine reports whether only blanks precede n on its line.
func ownLine(n *sitter.Node, src []byte) bool {
	i := int(n.StartByte())
	if i > len(src) {
		return false
	}
	for i > 0 {
		c := src[i-1]
		if c == '\n' {
			return true
		}
		if c != ' ' && c != '\t' {
			return false
		}
		i--
	}
	return true
}

// commentLines strips comment markers: //, ///, //!, #, /* */, /** */ with leading stars, Ruby's
// =begin/=end, HTML's <!-- -->, and the quotes of a docstring used as a comment.
func commentLines(raw []byte) []string {
	s := valid(string(bytes.TrimSpace(raw)))
	block := false
	switch {
	case strings.HasPrefix(s, "/*"):
		s = strings.TrimSuffix(strings.TrimPrefix(s, "/*"), "*/")
		s = strings.TrimLeft(s, "*!")
		block = true
	case strings.HasPrefix(s, "<!--"):
		s = strings.TrimSuffix(strings.TrimPrefix(s, "<!--"), "-->")
		block = true
	case strings.HasPrefix(s, "=begin"):
		s = strings.TrimSuffix(strings.TrimPrefix(s, "=begin"), "=end")
		block = true
	case s != "" && strings.ContainsRune(`"'`, rune(s[0])) || strings.HasPrefix(s, `r"`):
		return splitDoc(unquote(s))
	}
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case block:
			if strings.HasPrefix(l, "*") && !strings.HasPrefix(l, "*/") {
				l = strings.TrimPrefix(l, "*")
			}
		case strings.HasPrefix(l, "//"):
			l = strings.TrimPrefix(strings.TrimLeft(l, "/"), "!")
		case strings.HasPrefix(l, "#"):
			l = strings.TrimLeft(l, "#")
		}
		out = append(out, xmlDocTags.Replace(strings.TrimSpace(l)))
	}
	return trimBlank(out)
}

// xmlDocTags are C#'s wrappers that say nothing about the code.
var xmlDocTags = strings.NewReplacer("<summary>", "", "</summary>", "", "<remarks>", "", "</remarks>", "", "<para>", "", "</para>", "")

func splitDoc(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return trimBlank(lines)
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// joinLines joins with newlines, keeping at most one blank line in a row.
func joinLines(lines []string) string {
	var sb strings.Builder
	blank := false
	for _, l := range trimBlank(lines) {
		if l == "" {
			blank = true
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
			if blank {
				sb.WriteByte('\n')
			}
		}
		blank = false
		sb.WriteString(l)
	}
	return sb.String()
}

func docstring(raw []byte) string {
	return clip(joinLines(splitDoc(unquote(valid(string(raw))))), maxDoc)
}

// unquote removes a string literal's prefix (r, b, f, u, @, $, L, u8, Scala's s and raw...) and its
// quotes, keeping the content as written.
func unquote(s string) string {
	i := 0
	for i < len(s) && i < 4 && (wordByte(s, i) || s[i] == '@' || s[i] == '$') {
		i++
	}
	hashes := 0
	for i < len(s) && s[i] == '#' { // Rust r#"..."#, Swift #"..."#
		i++
		hashes++
	}
	if i >= len(s) {
		return s
	}
	q := s[i]
	if q != '"' && q != '\'' && q != '`' {
		return s
	}
	body := s[i:]
	for _, quote := range []string{`"""`, `'''`, string(q)} {
		if len(body) >= 2*len(quote) && strings.HasPrefix(body, quote) {
			body = strings.TrimPrefix(body, quote)
			body = strings.TrimSuffix(body, strings.Repeat("#", hashes))
			return strings.TrimSuffix(body, quote)
		}
	}
	return strings.TrimPrefix(body, string(q))
}

// importPath cleans an import as written: quotes and brackets off, whitespace collapsed.
func importPath(b []byte) string {
	s := strings.TrimSuffix(oneLine(b), ";")
	s = strings.TrimPrefix(s, "import ") // where the grammar has no node for the path alone
	if len(s) >= 2 {
		switch s[0] {
		case '"', '\'', '`', '<':
			s = s[1 : len(s)-1]
		}
	}
	return strings.TrimSpace(s)
}

// markers that flag a comment, found as whole upper-case words.
var markers = []string{"TODO", "FIXME", "BUG", "XXX"}

func markerOf(s string) string {
	best, at := "", len(s)
	for _, m := range markers {
		from := 0
		for {
			i := strings.Index(s[from:], m)
			if i < 0 {
				break
			}
			i += from
			if i < at && !wordByte(s, i-1) && !wordByte(s, i+len(m)) {
				best, at = m, i
				break
			}
			from = i + len(m)
		}
	}
	return best
}

func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

type commentBlock struct {
	text       string
	lines      []string
	start, end int // 1-based lines
	lineStyle  bool
	own        bool // nothing but blanks before it on its first line
}

// comments strips and merges comments: consecutive line comments that each start their own line
// become one block.
func comments(nodes []*sitter.Node, src []byte) []commentBlock {
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].StartByte() < nodes[j].StartByte() })
	var blocks []commentBlock
	for _, n := range nodes {
		raw := text(n, src)
		if n.StartByte() == 0 && bytes.HasPrefix(raw, []byte("#!")) {
			continue // shebang
		}
		trimmed := bytes.TrimSpace(raw)
		b := commentBlock{
			lines:     commentLines(raw),
			start:     int(n.StartPoint().Row) + 1,
			end:       int(lastRow(n)) + 1,
			lineStyle: bytes.HasPrefix(trimmed, []byte("//")) || bytes.HasPrefix(trimmed, []byte("#")),
			own:       ownLine(n, src),
		}
		if k := len(blocks) - 1; k >= 0 {
			prev := &blocks[k]
			if prev.lineStyle && b.lineStyle && prev.own && b.own && prev.end+1 == b.start {
				prev.lines = append(prev.lines, b.lines...)
				prev.end = b.end
				continue
			}
		}
		blocks = append(blocks, b)
	}
	out := blocks[:0]
	for _, b := range blocks {
		b.text = clip(joinLines(b.lines), maxDoc)
		if b.text != "" {
			out = append(out, b)
		}
	}
	return out
}

func commentsOf(blocks []commentBlock) []Comment {
	out := make([]Comment, 0, len(blocks))
	for _, b := range blocks {
		out = append(out, Comment{Text: b.text, StartLine: b.start, EndLine: b.end, Marker: markerOf(b.text)})
	}
	return out
}

// docs finds a declaration's doc comment: the comment block on its own lines that ends right above
// the declaration, or above the attributes and decorators written over it.
type docs struct {
	byEnd map[int]string // last line -> text, for blocks that start their line
	lines []int          // byte offset of each line start
	src   []byte
}

func newDocs(blocks []commentBlock, src []byte) *docs {
	d := &docs{byEnd: make(map[int]string, len(blocks)), src: src}
	d.lines = make([]int, 1, bytes.Count(src, []byte("\n"))+1)
	for _, b := range blocks {
		if b.own {
			d.byEnd[b.end] = b.text
		}
	}
	for i, c := range src {
		if c == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
	return d
}

func (d *docs) above(line int) string {
	for at := line - 1; at >= 1; at-- {
		if t, ok := d.byEnd[at]; ok {
			return t
		}
		if !d.attribute(at) {
			return ""
		}
	}
	return ""
}

// attribute reports whether a line holds a decorator or attribute: @x, #[x], [X].
func (d *docs) attribute(line int) bool {
	if line < 1 || line > len(d.lines) {
		return false
	}
	end := len(d.src)
	if line < len(d.lines) {
		end = d.lines[line] - 1
	}
	t := bytes.TrimSpace(d.src[d.lines[line-1]:end])
	switch {
	case bytes.HasPrefix(t, []byte("@")), bytes.HasPrefix(t, []byte("#[")):
		return true
	case bytes.HasPrefix(t, []byte("[")) && bytes.HasSuffix(t, []byte("]")):
		return true
	}
	return false
}

// literals keeps the string literals that read like messages, once per line.
func literals(nodes []*sitter.Node, skip map[uint32]bool, src []byte) []Literal {
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].StartByte() < nodes[j].StartByte() })
	out := []Literal{}
	seen := map[Literal]bool{}
	for _, n := range nodes {
		if skip[n.StartByte()] {
			continue
		}
		s := oneLine([]byte(unquote(string(text(n, src)))))
		for strings.HasSuffix(s, `\n`) {
			s = strings.TrimSpace(strings.TrimSuffix(s, `\n`)) // a trailing newline escape is not part of the message
		}
		if !messageLike(s) {
			continue
		}
		l := Literal{Text: clip(s, maxLiteral), Line: int(n.StartPoint().Row) + 1}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

func messageLike(s string) bool {
	if len(s) < minLiteral {
		return false
	}
	return strings.IndexByte(s, ' ') >= 0 || hasVerb(s)
}

// hasVerb spots printf verbs (%s, %-5d, %.2f) and brace placeholders ({}, {0}).
func hasVerb(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '%':
			j := i + 1
			for j < len(s) && strings.IndexByte("-+# 0123456789.", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				return true
			}
		case '{':
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j < len(s) && s[j] == '}' {
				return true
			}
		}
	}
	return false
}
