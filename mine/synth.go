package mine

import (
	"fmt"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Issue-shaped texts for training. A commit message never carries a stack trace, a quoted error or a
// code block, and issues do: a model that learns only from commit messages gives those signals no
// weight. So each mined commit is also asked as an issue would ask it: its message with evidence drawn
// from the commit (the definitions it changed) and from the index at its snapshot (their callers, the
// strings they raise, the tests that call them), each kind at the rate the benchmark's issues carry it.

// issueRates are the shares of the dev set's issues that carry each kind of evidence (ReadEvidence over
// its problem statements): rates, never instances.
// A commit message already names a changed definition in a fifth of the cases, a trace and a call
// site name the functions they pass through, and a text gets a code block or a trace only where the
// index has a caller, a message only where the code has one; so the rates below are what brings the
// synthetic texts to the dev set's (trace 0.08, code block 0.61, error 0.28, path 0.44, changed name
// 0.17, its type's name 0.02). The mining log reports what the texts carry.
var issueRates = struct{ trace, errorMsg, changedName, parentName, path, codeBlock float64 }{
	trace: 0.1, errorMsg: 0.4, changedName: 0.03, parentName: 0, path: 0.4, codeBlock: 0.65,
}

// target is a definition the commit changed, as the snapshot's index has it.
type target struct {
	path string
	lang string
	def  parse.Definition
	file *parse.File
}

// call is a place that names a definition: a definition elsewhere whose body refers to it.
type call struct {
	path string
	def  parse.Definition
	line int
}

// issueShaped returns the text with evidence added, and whether any was; the same seed gives the same text.
func issueShaped(rng *rand.Rand, s *index.Snapshot, text string, goldDefs []string) (string, bool) {
	ts := targets(s, goldDefs)
	if len(ts) == 0 || len(goldDefs) > maxTargets {
		return text, false
	}
	t := ts[rng.Intn(len(ts))]
	var parts []string
	added := false
	say := func(p string) {
		parts = append(parts, p)
		added = true
	}
	callers := callersOf(s, t, 12)
	// A reporter names what they see, which is often one step up the call path from the fix: a name or
	// a path is the changed definition's only some of the time, else a caller's.
	named, where := t.def.Name, t.path
	if len(callers) > 0 && rng.Float64() < 0.4 {
		c := callers[rng.Intn(len(callers))]
		named, where = c.def.Name, c.path
	}
	if rng.Float64() < issueRates.changedName && !query.HasName(text, named) {
		say(fmt.Sprintf(nameSentences[rng.Intn(len(nameSentences))], "`"+named+"`"))
	}
	if t.def.Parent != "" && rng.Float64() < issueRates.parentName && !query.HasName(text, t.def.Parent) {
		say(fmt.Sprintf("This happens with `%s`.", t.def.Parent))
	}
	if rng.Float64() < issueRates.path {
		say(fmt.Sprintf("Looking at %s, the behaviour seems to come from there.", where))
	}
	if rng.Float64() < issueRates.codeBlock {
		if block := callSnippet(rng, s, t, callers); block != "" {
			say("Reproduce:\n\n```" + fenceName(t.lang) + "\n" + block + "\n```")
		}
	}
	msg := ""
	if rng.Float64() < issueRates.errorMsg {
		msg = raisedMessage(rng, t)
	}
	if rng.Float64() < issueRates.trace {
		if tr := trace(rng, s, t, callers, msg); tr != "" {
			say("```\n" + tr + "\n```")
			msg = ""
		}
	}
	if msg != "" {
		say(fmt.Sprintf("The error is:\n\n```\n%s\n```", msg))
	}
	if !added {
		return text, false
	}
	return text + "\n\n" + strings.Join(parts, "\n\n"), true
}

// maxTargets: a commit that changes more definitions than this is a sweep; no issue reports one.
const maxTargets = 10

var nameSentences = []string{
	"I think the problem is in %s.",
	"It looks like %s does not handle this case.",
	"The culprit seems to be %s.",
	"Calling %s gives the wrong result.",
}

// targets are the changed definitions the snapshot holds, functions first.
func targets(s *index.Snapshot, goldDefs []string) []target {
	var funcs, others []target
	for _, g := range goldDefs {
		p, q, ok := strings.Cut(g, "::")
		if !ok {
			continue
		}
		rec := s.Record(p)
		if rec == nil || rec.File == nil {
			continue
		}
		for _, d := range rec.File.Definitions {
			if d.Qualified() != q {
				continue
			}
			t := target{path: p, lang: rec.Language, def: d, file: rec.File}
			if isFunction(d.Kind) {
				funcs = append(funcs, t)
			} else if d.Kind != "section" {
				others = append(others, t)
			}
			break
		}
	}
	if len(funcs) > 0 {
		return funcs
	}
	return others
}

func isFunction(kind string) bool {
	return kind == "function" || kind == "method" || kind == "constructor"
}

// callersOf finds definitions in other files (the reference graph's neighbours of t's file) and in t's
// own file whose bodies name t, at most n.
func callersOf(s *index.Snapshot, t target, n int) []call {
	if len(t.def.Name) < 3 || len(s.Symbols[t.def.Name]) > 6 {
		return nil // a name defined everywhere says nothing about who calls this one
	}
	files := []string{t.path}
	if g := s.Graph; g != nil {
		if i := sort.SearchStrings(g.Nodes, t.path); i < len(g.Nodes) && g.Nodes[i] == t.path {
			for _, e := range g.Edges[i] {
				files = append(files, g.Nodes[e.To])
			}
		}
	}
	var out []call
	for _, p := range files {
		rec := s.Record(p)
		if rec == nil || rec.File == nil {
			continue
		}
		seen := map[int]bool{}
		for _, ref := range rec.File.References {
			if ref.Name != t.def.Name || ref.Enclosing < 0 || seen[ref.Enclosing] {
				continue
			}
			d := rec.File.Definitions[ref.Enclosing]
			if p == t.path && d.StartLine == t.def.StartLine {
				continue // itself
			}
			seen[ref.Enclosing] = true
			out = append(out, call{path: p, def: d, line: ref.Line})
			if len(out) == n {
				return out
			}
		}
	}
	return out
}

// callSnippet is a few lines around a call of t or, more often, of one of its callers, a test's
// first: a reporter shows how they use the program, which is seldom the very function at fault.
func callSnippet(rng *rand.Rand, s *index.Snapshot, t target, callers []call) string {
	if len(callers) == 0 {
		return ""
	}
	if rng.Float64() < 0.7 { // one step up the call path
		c := callers[rng.Intn(len(callers))]
		if rec := s.Record(c.path); rec != nil && rec.File != nil {
			if up := callersOf(s, target{path: c.path, lang: rec.Language, def: c.def, file: rec.File}, 12); len(up) > 0 {
				callers = up
			}
		}
	}
	c := callers[rng.Intn(len(callers))]
	for _, x := range callers {
		if records.IsTest(x.path) {
			c = x
			break
		}
	}
	src := readLines(s, c.path)
	if len(src) == 0 {
		return ""
	}
	from, to := max(c.def.StartLine, c.line-2), min(c.def.EndLine, c.line+2)
	if from < 1 || to > len(src) || from > to {
		return ""
	}
	return dedent(src[from-1 : to])
}

// raisedMessage is a string literal of t that reads like a message (words and spaces), if it has one.
func raisedMessage(rng *rand.Rand, t target) string {
	var msgs []string
	for _, l := range t.file.Literals {
		if l.Line >= t.def.StartLine && l.Line <= t.def.EndLine && readsAsMessage(l.Text) {
			msgs = append(msgs, l.Text)
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	m := msgs[rng.Intn(len(msgs))]
	switch t.lang {
	case "python":
		return "ValueError: " + m
	case "java":
		return "java.lang.IllegalStateException: " + m
	case "go":
		return "Error: " + m
	case "rust":
		return "Error: " + m
	}
	return "Error: " + m
}

// readsAsMessage tells a message a program prints (words, spaces, a few format verbs) from a template,
// a script or a pattern.
func readsAsMessage(s string) bool {
	if len(s) < 12 || len(s) > 160 || strings.Count(s, " ") < 2 || strings.ContainsAny(s, "\n{}[]<>$\\|`=") {
		return false
	}
	letters := 0
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == ' ' {
			letters++
		}
	}
	first := s[0]
	return float64(letters) >= 0.8*float64(len(s)) && (first >= 'a' && first <= 'z' || first >= 'A' && first <= 'Z')
}

// frame is one printed frame of a synthetic trace.
type frame struct {
	path, fn string
	line     int
	outside  bool // a library's or the runtime's frame, not the project's
}

// trace prints a stack through t and up to two of its callers, with a library frame below and an entry
// frame above as real traces have, in the format of t's language; "" where the language prints none
// that ctxmap reads.
func trace(rng *rand.Rand, s *index.Snapshot, t target, callers []call, msg string) string {
	line := t.def.StartLine + 1 + rng.Intn(max(1, t.def.EndLine-t.def.StartLine))
	line = min(line, t.def.EndLine)
	frames := []frame{{path: t.path, fn: t.def.Qualified(), line: line}} // innermost first
	seen := map[string]bool{t.path + "#" + t.def.Name: true}
	cur := callers
	for depth := 0; depth < 2 && len(cur) > 0; depth++ {
		c := cur[rng.Intn(len(cur))]
		if seen[c.path+"#"+c.def.Name] {
			break
		}
		seen[c.path+"#"+c.def.Name] = true
		frames = append(frames, frame{path: c.path, fn: c.def.Qualified(), line: c.line})
		rec := s.Record(c.path)
		if rec == nil {
			break
		}
		cur = callersOf(s, target{path: c.path, lang: rec.Language, def: c.def, file: rec.File}, 6)
	}
	if rng.Float64() < 0.5 {
		frames = append([]frame{libraryFrame(rng, t.lang)}, frames...)
	}
	if rng.Float64() < 0.5 {
		frames = append(frames, entryFrame(t.lang))
	}
	if msg == "" {
		msg = map[string]string{"python": "AttributeError: 'NoneType' object has no attribute 'get'",
			"go":   "panic: runtime error: invalid memory address or nil pointer dereference",
			"java": "java.lang.NullPointerException", "rust": "called `Option::unwrap()` on a `None` value"}[t.lang]
		if msg == "" {
			msg = "TypeError: Cannot read properties of undefined (reading 'length')"
		}
	}
	return printTrace(t.lang, frames, msg)
}

var libraryFrames = map[string][]frame{
	"python":     {{"/usr/lib/python3.11/json/decoder.py", "raw_decode", 355, true}, {"/usr/lib/python3.11/re/__init__.py", "_compile", 294, true}},
	"go":         {{"/usr/local/go/src/runtime/panic.go", "runtime.gopanic", 770, true}, {"/usr/local/go/src/reflect/value.go", "reflect.Value.Elem", 1229, true}},
	"java":       {{"java/util/ArrayList.java", "java.util.ArrayList.get", 427, true}, {"java/util/HashMap.java", "java.util.HashMap.get", 556, true}},
	"javascript": {{"node:internal/modules/cjs/loader", "Module._compile", 1256, true}},
	"typescript": {{"node:internal/modules/cjs/loader", "Module._compile", 1256, true}},
	"rust":       {{"/rustc/library/core/src/option.rs", "core::option::Option<T>::unwrap", 931, true}},
}

func libraryFrame(rng *rand.Rand, lang string) frame {
	fs := libraryFrames[lang]
	if len(fs) == 0 {
		return frame{path: "lib/runtime.c", fn: "runtime_call", line: 120, outside: true}
	}
	return fs[rng.Intn(len(fs))]
}

func entryFrame(lang string) frame {
	switch lang {
	case "python":
		return frame{"/home/user/project/run.py", "<module>", 12, true}
	case "go":
		return frame{"/home/user/project/main.go", "main.main", 21, true}
	case "java":
		return frame{"com/example/app/Main.java", "com.example.app.Main.main", 9, true}
	case "rust":
		return frame{"src/bin/app.rs", "app::main", 7, true}
	}
	return frame{"/home/user/project/index.js", "Object.<anonymous>", 3, true}
}

// printTrace writes frames (innermost first) as the language's runtime prints them.
func printTrace(lang string, frames []frame, msg string) string {
	var b strings.Builder
	switch lang {
	case "python":
		b.WriteString("Traceback (most recent call last):\n")
		for i := len(frames) - 1; i >= 0; i-- {
			f := frames[i]
			if !f.outside { // installed, as a reporter runs it
				f.path = "/home/user/.venv/lib/python3.11/site-packages/" + strings.TrimPrefix(f.path, "src/")
			}
			fn := f.fn
			if k := strings.LastIndex(fn, "."); k >= 0 {
				fn = fn[k+1:]
			}
			fmt.Fprintf(&b, "  File \"%s\", line %d, in %s\n", f.path, f.line, fn)
		}
		b.WriteString(msg)
	case "go":
		b.WriteString(msg + "\n\ngoroutine 1 [running]:\n")
		for _, f := range frames {
			p := f.path
			if !f.outside {
				p = "/home/user/src/project/" + p
			}
			fmt.Fprintf(&b, "%s(...)\n\t%s:%d +0x%x\n", goFunc(f), p, f.line, 0x1c+f.line%200)
		}
	case "java":
		b.WriteString(msg + "\n")
		for _, f := range frames {
			fmt.Fprintf(&b, "\tat %s(%s:%d)\n", javaFunc(f), path.Base(f.path), f.line)
		}
	case "rust":
		fmt.Fprintf(&b, "thread 'main' panicked at %s:%d:5:\n%s\nstack backtrace:\n", frames[0].path, frames[0].line, msg)
		for i, f := range frames {
			fmt.Fprintf(&b, "  %d: %s\n             at %s:%d:5\n", i, strings.ReplaceAll(f.fn, ".", "::"), f.path, f.line)
		}
	case "javascript", "typescript", "tsx":
		b.WriteString(msg + "\n")
		for _, f := range frames {
			fmt.Fprintf(&b, "    at %s (%s:%d:%d)\n", f.fn, f.path, f.line, 5+f.line%30)
		}
	default: // C, C++ and the rest: gdb's backtrace
		b.WriteString(msg + "\n")
		for i, f := range frames {
			fmt.Fprintf(&b, "#%d  0x%012x in %s () at %s:%d\n", i, 0x555555554000+f.line*16, strings.ReplaceAll(f.fn, ".", "::"), f.path, f.line)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// goFunc is a Go frame's function as the runtime prints it: the package folder, then the name.
func goFunc(f frame) string {
	if f.outside {
		return f.fn
	}
	pkg := "example.com/project"
	if d := path.Dir(f.path); d != "." {
		pkg += "/" + d
	}
	if recv, name, ok := strings.Cut(f.fn, "."); ok {
		return fmt.Sprintf("%s.(*%s).%s", pkg, recv, name)
	}
	return pkg + "." + f.fn
}

// javaFunc is a Java frame's method with its class's package, from the file's folders.
func javaFunc(f frame) string {
	if f.outside {
		return f.fn
	}
	dir := path.Dir(f.path)
	for _, root := range []string{"src/main/java/", "src/test/java/", "src/"} {
		if k := strings.Index(dir, root); k >= 0 {
			dir = dir[k+len(root):]
			break
		}
	}
	cls := strings.TrimSuffix(path.Base(f.path), path.Ext(f.path))
	fn := f.fn
	if k := strings.LastIndex(fn, "."); k >= 0 {
		fn = fn[k+1:]
	}
	return strings.ReplaceAll(dir, "/", ".") + "." + cls + "." + fn
}

func fenceName(lang string) string {
	if lang == "text" || lang == "markdown" {
		return ""
	}
	return lang
}

func readLines(s *index.Snapshot, p string) []string {
	b, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(p)))
	if err != nil {
		return nil
	}
	return strings.Split(string(b), "\n")
}

// dedent removes the indentation the lines share.
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		}
		out[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(out, "\n")
}
