package query

import (
	"strconv"
	"strings"

	"github.com/ctxmap/ctxmap/internal/words"
)

// line is one line of the query with what markdown made of it.
type line struct {
	raw   string
	code  bool     // inside a fenced code block (or a >>> prompt line)
	fence bool     // the fence line itself
	title bool     // the first line of prose
	prose string   // prose with inline code, URLs and e-mail addresses blanked (same length as raw); a code span leaves a 0 byte
	spans []string // contents of inline code spans, in order
	links []Anchor // file anchors read from repository links (…/blob/<ref>/path#L12)
	frame bool     // consumed as a stack frame
	head  bool     // a markdown heading or a line of bold text: an issue template's scaffolding
	skip  bool     // set aside: an HTML comment (template instructions), a template's answer, an environment block
	diff  bool     // inside a quoted diff
	kept  string   // the line as ranking reads its words (entities, vectors): "" when set aside; links and images blanked
}

const maxSpan = 2000 // bytes of inline code; a longer "span" is a stray backtick

type document struct {
	lines []line
	multi bool     // more than one line of content: the title weighs more
	aside SetAside // what was set aside
}

func parseDocument(text string) *document {
	raws := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	d := &document{lines: make([]line, 0, len(raws))}
	inFence, fenceMark, inComment := false, "", false
	titled, content := false, 0
	for _, raw := range raws {
		raw = strings.TrimRight(raw, "\r")
		l := line{raw: raw}
		trimmed := strings.TrimLeft(raw, " \t>")
		switch {
		case inComment:
			l.skip = true
			if strings.Contains(raw, "-->") {
				inComment = false
			}
			d.lines = append(d.lines, l)
			continue
		case !inFence && strings.HasPrefix(trimmed, "<!--") && !strings.Contains(trimmed, "-->"):
			l.skip, inComment = true, true
			d.lines = append(d.lines, l)
			continue
		case inFence:
			l.code = true
			if strings.HasPrefix(trimmed, fenceMark) && strings.Trim(trimmed, fenceMark[:1]+" \t") == "" {
				inFence, l.fence = false, true
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			inFence, l.code, l.fence = true, true, true
			fenceMark = trimmed[:3]
		case strings.HasPrefix(trimmed, ">>> ") || strings.HasPrefix(trimmed, "In ["):
			l.code = true
		}
		if strings.TrimSpace(raw) != "" {
			content++
			if !l.code && !titled {
				l.title, titled = true, true
			}
		}
		if !l.code {
			var images int
			l.prose, l.kept, l.spans, l.links, images = scanProse(raw)
			d.aside.Images += images
			h := strings.TrimSpace(trimmed)
			l.head = strings.HasPrefix(h, "#") && (len(h) == 1 || h[1] == '#' || h[1] == ' ') ||
				len(h) > 4 && strings.HasPrefix(h, "**") && strings.HasSuffix(h, "**")
		}
		d.lines = append(d.lines, l)
	}
	d.multi = content > 1
	d.classify()
	return d
}

// keptText is the text as ranking reads its words: the parts set aside left out, links and images blanked.
func (d *document) keptText() string {
	kept := make([]string, len(d.lines))
	for i, l := range d.lines {
		switch {
		case l.skip:
		case l.code:
			kept[i] = l.raw
		default:
			kept[i] = l.kept
		}
	}
	return strings.Join(kept, "\n")
}

// scanProse blanks inline code, URLs, images and e-mail addresses from a prose line, returning the
// code spans' contents, the file anchors found in repository links and the images it held; kept is
// the line with its links, images and e-mail addresses blanked but its code.
func scanProse(raw string) (prose, kept string, spans []string, links []Anchor, images int) {
	if !strings.ContainsAny(raw, "`:@<") && !strings.Contains(raw, "![") {
		return raw, raw, nil, nil, 0
	}
	b := []byte(raw)
	k := []byte(raw)
	for i := 0; i < len(b); {
		switch {
		case b[i] == '!' && i+1 < len(b) && b[i+1] == '[':
			end := imageEnd(raw, i)
			if end < 0 {
				i++
				continue
			}
			blank(b, i, end)
			blank(k, i, end)
			images++
			i = end
		case b[i] == '`':
			n := run(b, i, '`')
			if i > 0 && isAlnum(b[i-1]) {
				i += n // doesn`t: a typographic quote, not code
				continue
			}
			end := findRun(b[:min(len(b), i+n+maxSpan)], i+n, '`', n)
			if end < 0 {
				i += n
				continue
			}
			spans = append(spans, strings.TrimSpace(raw[i+n:end]))
			blank(b, i, end+n)
			b[i] = 0 // one placeholder word where the span was
			i = end + n
		case b[i] == ':' && i+2 < len(b) && b[i+1] == '/' && b[i+2] == '/':
			start := i
			for start > 0 && isSchemeByte(b[start-1]) {
				start--
			}
			end := i + 3
			for end < len(b) && !isURLEnd(b[end]) {
				end++
			}
			if a, ok := repoLink(raw[start:end]); ok {
				links = append(links, a)
			} else if imageURL(raw[start:end]) {
				images++
			}
			blank(b, start, end)
			blank(k, start, end)
			i = end
		case b[i] == '<':
			end := htmlEnd(raw, i)
			if end < 0 {
				i++
				continue
			}
			if strings.HasPrefix(strings.ToLower(raw[i:]), "<img") {
				images++
			}
			blank(b, i, end)
			blank(k, i, end)
			i = end
		case b[i] == '@' && i > 0 && isAlnum(b[i-1]):
			start, end := i, i+1
			for start > 0 && i-start < 100 && isEmailByte(b[start-1]) {
				start--
			}
			for end < len(b) && isEmailByte(b[end]) {
				end++
			}
			addr := raw[start:end]
			if at := strings.IndexByte(addr, '@'); strings.Contains(addr[at:], ".") && !strings.ContainsAny(addr, "/") {
				blank(b, start, end)
				blank(k, start, end)
			}
			i = end
		default:
			i++
		}
	}
	return string(b), string(k), spans, links, images
}

// imageEnd is the end of a markdown image starting at i (![alt](url)), or -1.
func imageEnd(s string, i int) int {
	close := strings.Index(s[i:min(len(s), i+300)], "](")
	if close < 0 {
		return -1
	}
	end := strings.IndexByte(s[i+close:], ')')
	if end < 0 {
		return -1
	}
	return i + close + end + 1
}

var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp", ".mp4", ".mov"}

// imageURL tells a link to a picture or a screen recording, and the attachments of issue trackers.
func imageURL(u string) bool {
	u = strings.ToLower(u)
	u, _, _ = strings.Cut(u, "?")
	for _, e := range imageExts {
		if strings.HasSuffix(u, e) {
			return true
		}
	}
	return strings.Contains(u, "/user-attachments/assets/") || strings.Contains(u, "user-images.githubusercontent.com")
}

// repoLink reads the file and line from a link into a repository host's file view:
// https://host/org/repo/blob/main/src/x.py#L12 -> src/x.py:12.
func repoLink(u string) (Anchor, bool) {
	u = strings.TrimRight(u, ".,;:)")
	var rest string
	for _, marker := range []string{"/blob/", "/tree/", "/-/blob/"} {
		if i := strings.Index(u, marker); i >= 0 {
			rest = u[i+len(marker):]
			break
		}
	}
	if rest == "" {
		return Anchor{}, false
	}
	slash := strings.IndexByte(rest, '/') // skip the ref
	if slash < 0 {
		return Anchor{}, false
	}
	path, frag, _ := strings.Cut(rest[slash+1:], "#")
	path, _, _ = strings.Cut(path, "?")
	if path == "" || !strings.ContainsAny(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return Anchor{}, false
	}
	if strings.HasPrefix(frag, "L") {
		num := frag[1:]
		if j := strings.IndexFunc(num, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
			num = num[:j]
		}
		if n, err := strconv.Atoi(num); err == nil && n > 0 {
			return Anchor{Text: path + ":" + num, Kind: KindFileLine, Path: path, Line: n}, true
		}
	}
	return Anchor{Text: path, Kind: KindPath, Path: path}, true
}

var htmlTags = words.Set(`a abbr b blockquote br code details dd div dl dt em h1 h2 h3 h4 h5 h6 hr i img kbd li
ol p picture pre s source span strong sub summary sup table tbody td th thead tr u ul video`)

// htmlEnd returns the end of an HTML tag or comment starting at i, or -1: <img src=...>, </details>,
// <!-- ... -->. A generic type (Map<String, Integer>) is not a tag.
func htmlEnd(s string, i int) int {
	if strings.HasPrefix(s[i:], "<!--") {
		if j := strings.Index(s[i:], "-->"); j >= 0 {
			return i + j + 3
		}
		return len(s)
	}
	j := i + 1
	if j < len(s) && s[j] == '/' {
		j++
	}
	k := j
	for k < len(s) && isAlnum(s[k]) {
		k++
	}
	if !htmlTags[strings.ToLower(s[j:k])] || k < len(s) && s[k] != '>' && s[k] != ' ' && s[k] != '/' {
		return -1
	}
	if end := strings.IndexByte(s[k:min(len(s), k+500)], '>'); end >= 0 {
		return k + end + 1
	}
	return -1
}

func run(b []byte, i int, c byte) int {
	n := 0
	for i+n < len(b) && b[i+n] == c {
		n++
	}
	return n
}

// findRun finds the next run of exactly n c's at or after i.
func findRun(b []byte, i int, c byte, n int) int {
	for i < len(b) {
		if b[i] != c {
			i++
			continue
		}
		m := run(b, i, c)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

func blank(b []byte, from, to int) {
	for i := from; i < to && i < len(b); i++ {
		b[i] = ' '
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '+' || c == '-' || c == '.'
}

func isURLEnd(c byte) bool {
	return c == ' ' || c == '\t' || c == ')' || c == ']' || c == '>' || c == '"' || c == '\'' || c == '`' || c == '<'
}

func isEmailByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == '@'
}
