package parse

import (
	"bytes"
	"regexp"
	"strings"
)

type line struct {
	text       []byte // without the newline
	start, end int    // byte offsets; end excludes the newline
}

func splitSource(src []byte) []line {
	var out []line
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		next := 0
		if end < 0 {
			end = len(src)
			next = len(src)
		} else {
			end += start
			next = end + 1
		}
		t := bytes.TrimSuffix(src[start:end], []byte("\r"))
		out = append(out, line{text: t, start: start, end: start + len(t)})
		start = next
	}
	return out
}

type heading struct {
	level int
	name  string
	line  int // 0-based
}

// codeSpan is an inline `identifier` in prose: a pointer from the text to the code.
var codeSpan = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]{2,})(?:\\(\\))?`")

// parseMarkdown makes each heading a section that runs until the next heading of the same or a
// higher level. Fenced code is not searched for headings; HTML comments become comments and inline
// code spans naming identifiers become references.
func parseMarkdown(src []byte) *File {
	f := &File{Language: "markdown", Definitions: []Definition{}, References: []Reference{},
		Comments: []Comment{}, Imports: []Import{}, Literals: []Literal{}}
	lines := splitSource(src)
	var heads []heading
	var fence []byte // the opening fence while inside fenced code
	inComment := -1  // first line of an open HTML comment
	var commentText []string
	prose := make([]bool, len(lines)) // lines outside code, comments and front matter
	i := 0
	if len(lines) > 0 && string(bytes.TrimSpace(lines[0].text)) == "---" {
		for i = 1; i < len(lines); i++ {
			if t := string(bytes.TrimSpace(lines[i].text)); t == "---" || t == "..." {
				i++
				break
			}
		}
	}
	for ; i < len(lines); i++ {
		t := lines[i].text
		trim := bytes.TrimSpace(t)
		if fence != nil {
			if bytes.HasPrefix(trim, fence) && len(bytes.Trim(trim, string(fence[:1]))) == 0 {
				fence = nil
			}
			continue
		}
		if inComment >= 0 {
			commentText = append(commentText, string(t))
			if bytes.Contains(t, []byte("-->")) {
				f.Comments = append(f.Comments, htmlComment(commentText, inComment, i))
				inComment = -1
			}
			continue
		}
		if fc := fenceOf(t); fc != nil {
			fence = fc
			continue
		}
		if bytes.HasPrefix(trim, []byte("<!--")) {
			commentText = []string{string(t)}
			if bytes.Contains(trim, []byte("-->")) {
				f.Comments = append(f.Comments, htmlComment(commentText, i, i))
			} else {
				inComment = i
			}
			continue
		}
		if level, name := atx(t); level > 0 {
			heads = append(heads, heading{level, name, i})
			continue
		}
		if level := setext(t); level > 0 && i > 0 && prose[i-1] && paragraph(lines[i-1].text) {
			heads = append(heads, heading{level, oneLine(lines[i-1].text), i - 1})
			prose[i-1] = false
			continue
		}
		prose[i] = true
	}
	if inComment >= 0 {
		f.Comments = append(f.Comments, htmlComment(commentText, inComment, len(lines)-1))
	}

	for k, h := range heads {
		end := len(lines) - 1
		for _, later := range heads[k+1:] {
			if later.level <= h.level {
				end = later.line - 1
				break
			}
		}
		for end > h.line && len(bytes.TrimSpace(lines[end].text)) == 0 {
			end--
		}
		parent := ""
		for j := k - 1; j >= 0; j-- {
			if heads[j].level < h.level {
				parent = heads[j].name
				break
			}
		}
		f.Definitions = append(f.Definitions, Definition{
			Name:      h.name,
			Kind:      "section",
			Signature: clip(strings.Repeat("#", h.level)+" "+h.name, maxSignature),
			Parent:    parent,
			StartLine: h.line + 1,
			EndLine:   end + 1,
			StartByte: lines[h.line].start,
			EndByte:   lines[end].end,
		})
	}

	sec := -1
	for n, l := range lines {
		for sec+1 < len(heads) && heads[sec+1].line <= n {
			sec++
		}
		if !prose[n] {
			continue
		}
		// the latest heading is the deepest section open at this line
		for _, m := range codeSpan.FindAllSubmatch(l.text, -1) {
			f.References = append(f.References, Reference{Name: string(m[1]), Line: n + 1, Enclosing: sec})
		}
	}
	return f
}

func htmlComment(lines []string, first, last int) Comment {
	t := joinLines(commentLines([]byte(strings.Join(lines, "\n"))))
	return Comment{Text: t, StartLine: first + 1, EndLine: last + 1, Marker: markerOf(t)}
}

func fenceOf(t []byte) []byte {
	s := bytes.TrimLeft(t, " ")
	if len(t)-len(s) > 3 || len(s) < 3 {
		return nil
	}
	c := s[0]
	if c != '`' && c != '~' {
		return nil
	}
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 {
		return nil
	}
	return s[:n]
}

// atx reads "## Heading ##".
func atx(t []byte) (int, string) {
	s := bytes.TrimLeft(t, " ")
	if len(t)-len(s) > 3 {
		return 0, ""
	}
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(s) && s[n] != ' ' && s[n] != '\t') {
		return 0, ""
	}
	name := bytes.TrimSpace(s[n:])
	if k := bytes.LastIndexByte(name, ' '); k >= 0 && len(bytes.Trim(name[k+1:], "#")) == 0 {
		name = bytes.TrimSpace(name[:k])
	} else if len(bytes.Trim(name, "#")) == 0 {
		name = nil
	}
	if len(name) == 0 {
		return 0, ""
	}
	return n, oneLine(name)
}

// paragraph reports whether a line can be the text of a setext heading: not blank, not a list item,
// quote or table row.
func paragraph(t []byte) bool {
	s := bytes.TrimSpace(t)
	if len(s) == 0 {
		return false
	}
	switch s[0] {
	case '-', '*', '+', '>', '|':
		return false
	}
	return true
}

// setext reads the underline of a "Heading\n=======" heading.
func setext(t []byte) int {
	s := bytes.TrimSpace(t)
	if len(s) == 0 || len(t)-len(bytes.TrimLeft(t, " ")) > 3 {
		return 0
	}
	switch {
	case len(bytes.Trim(s, "=")) == 0:
		return 1
	case len(bytes.Trim(s, "-")) == 0:
		return 2
	}
	return 0
}
