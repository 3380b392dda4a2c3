package query

import (
	"regexp"
	"strconv"
	"strings"
)

const (
	maxFrames   = 200
	maxTraceGap = 20 // lines between two frames of one trace (source lines, pytest output)
)

// A block is one printed trace (or one "Caused by:" section of a Java trace).
type block struct {
	lang          string
	frames        []Frame
	innermostLast bool // Python prints the frame that failed last
	causedBy      bool // a Java "Caused by:" section: its root cause is more relevant than the wrapper
	start, last   int  // lines from the block's header or first frame to its last frame
}

var (
	rePytest     = regexp.MustCompile(`^(\S+\.py):(\d+):(?: in (\S+)| \w+)?$`)
	reGoLocation = regexp.MustCompile(`^(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
	reJava       = regexp.MustCompile(`^at ([\w$.<>/-]+)\(([^()]*)\)$`)
	reJSCall     = regexp.MustCompile(`^at (?:async )?(?:new )?(.+?) \((.+?):(\d+)(?::(\d+))?\)$`)
	reJSBare     = regexp.MustCompile(`^at (?:async )?(\S+?):(\d+)(?::(\d+))?$`)
	reFirefox    = regexp.MustCompile(`^([\w$.<>/]*)@(\S+?):(\d+):(\d+)$`)
	reRustPanic  = regexp.MustCompile(`panicked at (?:'.*', |".*", )?(\S+?\.rs):(\d+)(?::(\d+))?:?$`)
	reRustFrame  = regexp.MustCompile(`^(\d+):\s+(?:0x[0-9a-f]+ - )?(\S.*)$`)
	reRustHash   = regexp.MustCompile(`::h[0-9a-f]{16}$`)
	reAsan       = regexp.MustCompile(`^#\d+ 0x[0-9a-f]+ in (\S+) (\S+?):(\d+)(?::\d+)?$`)
	reGdb        = regexp.MustCompile(`^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*\) at (\S+?):(\d+)$`)
)

type traceReader struct {
	doc       *document
	blocks    []*block
	rustTrace bool // inside a Rust "stack backtrace:"
}

func findFrames(doc *document) []Frame {
	r := &traceReader{doc: doc}
	for i := range doc.lines {
		r.read(i)
	}
	// A trace is code, not prose: its lines give no terms and no intent, and their names are code anchors.
	for _, b := range r.blocks {
		end := b.last
		if b.lang == "python" { // the source line under the last frame
			for end+1 < len(doc.lines) && strings.TrimSpace(doc.lines[end+1].raw) != "" && r.continues("python", end+1, end+2) {
				end++
			}
		}
		for j := b.start; j <= end && j < len(doc.lines); j++ {
			doc.lines[j].code = true
		}
	}
	return r.ordered()
}

func (r *traceReader) read(i int) {
	raw := r.doc.lines[i].raw
	t := strings.TrimSpace(strings.TrimLeft(raw, " \t>"))
	if t == "" {
		r.rustTrace = r.rustTrace && i > 0 && strings.TrimSpace(r.doc.lines[i-1].raw) != ""
		return
	}
	switch {
	case strings.HasPrefix(t, "Traceback (most recent call last)"):
		r.blocks = append(r.blocks, &block{lang: "python", innermostLast: true, start: i, last: i})
	case strings.HasPrefix(t, "Caused by:"):
		r.blocks = append(r.blocks, &block{lang: "java", causedBy: true, start: i, last: i})
	case strings.HasPrefix(t, "stack backtrace:"):
		r.rustTrace = true
		r.doc.lines[i].code = true
	case strings.HasPrefix(t, "goroutine ") && strings.HasSuffix(t, "]:"):
		r.doc.lines[i].code = true
	case strings.HasPrefix(t, "File \""):
		r.python(i, t)
	case strings.HasPrefix(t, "at "):
		r.at(i, t)
	case strings.Contains(t, "panicked at "):
		if m := reRustPanic.FindStringSubmatch(t); m != nil {
			r.add(i, "rust", Frame{Path: m[1], Line: atoi(m[2])}, false)
		}
	case t[0] == '#':
		if m := reAsan.FindStringSubmatch(t); m != nil {
			r.add(i, "c", Frame{Function: m[1], Path: m[2], Line: atoi(m[3])}, false)
		} else if m := reGdb.FindStringSubmatch(t); m != nil {
			r.add(i, "c", Frame{Function: m[1], Path: m[2], Line: atoi(m[3])}, false)
		}
	case r.rustTrace && t[0] >= '0' && t[0] <= '9':
		if m := reRustFrame.FindStringSubmatch(t); m != nil {
			fn := reRustHash.ReplaceAllString(m[2], "")
			r.add(i, "rust", Frame{Function: fn}, false)
		}
	case strings.Contains(t, ".go:"):
		r.goFrame(i, t)
	case strings.Contains(t, ".py:"):
		if m := rePytest.FindStringSubmatch(t); m != nil {
			r.add(i, "python", Frame{Path: m[1], Line: atoi(m[2]), Function: m[3]}, false)
			r.blocks[len(r.blocks)-1].innermostLast = true
		}
	case strings.IndexByte(t, '@') >= 0:
		if m := reFirefox.FindStringSubmatch(t); m != nil && isScriptPath(m[2]) {
			r.add(i, "javascript", Frame{Function: m[1], Path: cleanScriptPath(m[2]), Line: atoi(m[3])}, false)
		}
	}
}

// python reads `File "x.py", line 12, in func`.
func (r *traceReader) python(i int, t string) {
	rest := t[len(`File "`):]
	q := strings.IndexByte(rest, '"')
	if q < 0 {
		return
	}
	path, rest := rest[:q], rest[q+1:]
	rest, ok := strings.CutPrefix(rest, ", line ")
	if !ok {
		return
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	f := Frame{Path: path, Line: atoi(rest[:n])}
	if fn, ok := strings.CutPrefix(rest[n:], ", in "); ok {
		f.Function = strings.TrimSpace(fn)
	}
	if b := r.current("python", i); b == nil || !b.innermostLast {
		r.blocks = append(r.blocks, &block{lang: "python", innermostLast: true, start: i, last: i})
	}
	r.add(i, "python", f, false)
}

// at reads the lines that start with "at ": Java, JavaScript, and the locations in Rust backtraces.
func (r *traceReader) at(i int, t string) {
	if m := reJava.FindStringSubmatch(t); m != nil {
		file, line, _ := strings.Cut(m[2], ":")
		if !strings.Contains(file, ".") || strings.Contains(file, " ") {
			return // Native Method, Unknown Source
		}
		fn := m[1]
		if slash := strings.LastIndexByte(fn, '/'); slash >= 0 {
			fn = fn[slash+1:] // java.base/java.lang.Thread.run
		}
		r.add(i, "java", Frame{Function: fn, Path: javaPath(fn, file), Line: atoi(line)}, false)
		return
	}
	if b := r.current("rust", i); b != nil && len(b.frames) > 0 && b.frames[len(b.frames)-1].Path == "" && i == b.last+1 {
		loc := strings.TrimPrefix(t, "at ")
		path, line := splitLocation(loc)
		if path != "" {
			f := &b.frames[len(b.frames)-1]
			f.Path, f.Line = path, line
			b.last = i
			r.doc.lines[i].frame = true
		}
		return
	}
	if m := reJSCall.FindStringSubmatch(t); m != nil {
		if isScriptPath(m[2]) {
			r.add(i, "javascript", Frame{Function: m[1], Path: cleanScriptPath(m[2]), Line: atoi(m[3])}, false)
		}
		return
	}
	if m := reJSBare.FindStringSubmatch(t); m != nil && isScriptPath(m[1]) {
		r.add(i, "javascript", Frame{Path: cleanScriptPath(m[1]), Line: atoi(m[2])}, false)
	}
}

// goFrame reads a location line `\t/path/x.go:12 +0x1d`; the function is on the line before.
func (r *traceReader) goFrame(i int, t string) {
	m := reGoLocation.FindStringSubmatch(t)
	if m == nil {
		return
	}
	f := Frame{Path: m[1], Line: atoi(m[2])}
	if i > 0 {
		prev := strings.TrimSpace(r.doc.lines[i-1].raw)
		if fn := goFunction(prev); fn != "" {
			f.Function = fn
			r.doc.lines[i-1].frame = true
			r.doc.lines[i-1].code = true
		}
	}
	skip := f.Function == "panic" || strings.Contains(f.Path, "/src/runtime/") && strings.HasPrefix(f.Function, "runtime.")
	r.add(i, "go", f, skip)
}

// goFunction strips the arguments from `main.(*T).M(0x0, ...)` and the frame of a `created by`.
func goFunction(s string) string {
	if s == "" || strings.HasPrefix(s, "goroutine ") || strings.HasPrefix(s, "panic: ") {
		return ""
	}
	if rest, ok := strings.CutPrefix(s, "created by "); ok {
		if j := strings.Index(rest, " in goroutine"); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	if !strings.HasSuffix(s, ")") {
		return ""
	}
	depth := 0
	for j := len(s) - 1; j >= 0; j-- {
		switch s[j] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				fn := s[:j]
				if fn == "" || strings.ContainsAny(fn, " \t") {
					return ""
				}
				return fn
			}
		}
	}
	return ""
}

// current returns the open block of a language if line i continues it.
func (r *traceReader) current(lang string, i int) *block {
	if len(r.blocks) == 0 {
		return nil
	}
	b := r.blocks[len(r.blocks)-1]
	if b.lang != lang || i-b.last > maxTraceGap {
		return nil
	}
	for j := b.last + 1; j < i; j++ {
		if !r.continues(lang, j, i) {
			return nil
		}
	}
	return b
}

// continues reports whether line j, between two frames, keeps them in one trace.
func (r *traceReader) continues(lang string, j, next int) bool {
	raw := r.doc.lines[j].raw
	t := strings.TrimSpace(raw)
	switch lang {
	case "python":
		// source lines are indented; pytest adds "E   " message lines, "> " markers and "_ _ _" rules
		return t == "" || raw != strings.TrimLeft(raw, " \t") || strings.HasPrefix(t, "^") ||
			strings.HasPrefix(t, "E ") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "_ _")
	case "go":
		return j == next-1 || t == "" // the function line
	case "java": // "at x.Y.z(Native Method)" and "... 2 more" keep a trace together
		return strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "...") && strings.HasSuffix(t, "more")
	case "rust":
		return r.doc.lines[j].frame
	}
	return false
}

func (r *traceReader) add(i int, lang string, f Frame, skip bool) {
	if f.Path == "" && f.Function == "" {
		return
	}
	r.doc.lines[i].frame = true
	f.Language = lang
	b := r.current(lang, i)
	if b == nil {
		b = &block{lang: lang, start: i}
		r.blocks = append(r.blocks, b)
	}
	b.last = i
	if !skip {
		b.frames = append(b.frames, f)
	}
}

// ordered puts the frames most relevant first: each trace innermost first, a Java chain root cause
// first, traces in order of appearance.
func (r *traceReader) ordered() []Frame {
	var out []Frame
	emit := func(b *block) {
		for k := range b.frames {
			f := b.frames[k]
			if b.innermostLast {
				f = b.frames[len(b.frames)-1-k]
			}
			if f.Language == "rust" && rustRuntime(f.Function, f.Path) {
				continue // the panic machinery, not where the error is
			}
			out = append(out, f)
		}
	}
	for k := 0; k < len(r.blocks); k++ {
		b := r.blocks[k]
		if b.lang == "java" {
			end := k + 1
			for end < len(r.blocks) && r.blocks[end].lang == "java" && r.blocks[end].causedBy {
				end++
			}
			for c := end - 1; c >= k; c-- {
				emit(r.blocks[c])
			}
			k = end - 1
			continue
		}
		emit(b)
	}
	if len(out) > maxFrames {
		out = out[:maxFrames]
	}
	for k := range out {
		out[k].Index = k
	}
	return out
}

// javaPath places a Java file in its package's folders: com.x.Foo$Inner.run + Foo.java -> com/x/Foo.java.
func javaPath(fn, file string) string {
	base := strings.TrimSuffix(file, file[strings.LastIndexByte(file, '.'):])
	segs := strings.Split(fn, ".")
	for k := len(segs) - 2; k >= 0; k-- {
		cls, _, _ := strings.Cut(segs[k], "$")
		if cls == base {
			if k == 0 {
				return file
			}
			return strings.Join(segs[:k], "/") + "/" + file
		}
	}
	return file
}

func rustRuntime(fn, path string) bool {
	for _, p := range []string{"std::", "core::", "alloc::", "<std::", "<core::", "<alloc::", "rust_begin_unwind", "__rust", "_start", "__libc_start"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return strings.HasPrefix(path, "/rustc/")
}

func isScriptPath(p string) bool {
	if strings.HasPrefix(p, "node:") || strings.HasPrefix(p, "internal/") || p == "<anonymous>" || p == "native" {
		return false
	}
	return strings.ContainsAny(p, "./")
}

func cleanScriptPath(p string) string {
	for _, prefix := range []string{"file://", "webpack:///", "webpack://"} {
		p = strings.TrimPrefix(p, prefix)
	}
	return p
}

// splitLocation splits "path:line" and "path:line:col" into the path and the line.
func splitLocation(s string) (string, int) {
	path, last, ok := cutLastNumber(s)
	if !ok {
		return "", 0
	}
	if p, line, ok := cutLastNumber(path); ok {
		return p, line
	}
	return path, last
}

func cutLastNumber(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return s[:i], n, true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
