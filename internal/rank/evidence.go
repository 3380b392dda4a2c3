package rank

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/words"
)

// Evidence that points at a place: a stack frame in a project file, a quoted identifier that names one
// definition, an error message the code holds in one place. A person reading the text finds these
// places at once, so a pack always shows the definitions they point at, each labelled with its own
// evidence, the innermost frame first; the ranking orders everything else around them.

// pin is a definition the text points at, or a small file whole (def is wholeFile) where a frame's
// line lies outside every definition.
type pin struct {
	path string
	def  int
	why  string
}

const (
	wholeFile      = -2 // not a definition's index, nor enclosing's "none"
	smallFileLines = 120
)

// smallFile tells a file a pin may show whole.
func (r *ranker) smallFile(p string) bool {
	rec := r.s.Record(p)
	return rec != nil && rec.File != nil && rec.Lines <= smallFileLines && int(rec.Size)/bytesPerToken <= tightPlan.cap(pinMinProb)
}

// How many definitions each kind of evidence may pin: a trace's first frames are where the error is;
// past them a long trace walks through the framework.
const (
	maxFramePins = 3
	maxNamePins  = 3
	maxFlagPins  = 2
	// a flag declared in more places than this is one every command has
	maxFlagPlaces = 2
	maxErrorPins  = 2
)

// pins are the definitions the text's evidence points at, in the order a person would read them:
// frames innermost first, then quoted names, then error messages.
func (r *ranker) pins() []pin {
	if r.pinned != nil {
		return r.pinned
	}
	r.pinned = []pin{}
	seen := map[string]bool{}
	add := func(p string, d int, why string) bool {
		key := fmt.Sprintf("%s#%d", p, d)
		if seen[key] || !r.project(p) {
			return false
		}
		seen[key] = true
		r.pinned = append(r.pinned, pin{path: p, def: d, why: why})
		return true
	}
	// each kind of evidence pins at most most definitions: pin(i) says whether its item i pinned one
	upTo := func(signal string, most, items int, pin func(i int) bool) {
		if !r.on(signal) {
			return
		}
		for i, n := 0, 0; i < items && n < most; i++ {
			if pin(i) {
				n++
			}
		}
	}
	upTo("frames", maxFramePins, len(r.a.Frames), func(i int) bool {
		f := r.a.Frames[i]
		ps := r.resolvePath(f.Path)
		if len(ps) != 1 || f.Line <= 0 {
			return false
		}
		d := r.enclosing(ps[0], f.Line)
		if d < 0 && len(r.pinned) == 0 && r.smallFile(ps[0]) {
			d = wholeFile // the innermost frame in a module's top-level code: the file is its place
		}
		return (d >= 0 || d == wholeFile) && add(ps[0], d, frameWhy(f))
	})
	upTo("symbols", maxNamePins, len(r.a.Anchors), func(i int) bool {
		an := r.a.Anchors[i]
		switch an.Kind {
		case query.KindBacktick:
			ref, ok := r.uniqueDefinition(an.Text, "")
			return ok && add(ref.Path, ref.Def, fmt.Sprintf("`%s` quoted in the text", an.Text))
		case query.KindMacro:
			ref, ok := r.uniqueDefinition(an.Text, "macro")
			return ok && add(ref.Path, ref.Def, fmt.Sprintf("`%s!` quoted in the text", an.Text))
		}
		return false
	})
	upTo("symbols", maxFlagPins, len(r.a.Anchors), func(i int) bool {
		an := r.a.Anchors[i]
		if an.Kind != query.KindFlag || !strings.HasPrefix(an.Text, "--") {
			return false // a short flag (-v) is declared alike by every tool
		}
		decls := r.flagDeclarations(an.Text)
		if len(decls) > maxFlagPlaces {
			return false // a flag every command has (-v, --help) names no place
		}
		pinned := false
		for _, at := range decls {
			if d := r.enclosing(at.path, at.line); d >= 0 {
				pinned = add(at.path, d, fmt.Sprintf("flag `%s` declared at line %d", an.Text, at.line)) || pinned
			}
		}
		return pinned
	})
	upTo("errors", maxErrorPins, len(r.a.Errors), func(i int) bool {
		p, d, line, ok := r.uniqueMessage(i)
		return ok && add(p, d, fmt.Sprintf("error message %q at line %d", words.Clip(r.a.Errors[i], 60), line))
	})
	return r.pinned
}

// project tells the files a fix goes in: not tests (unless the task is writing them), not code copied
// from other projects, not prose.
func (r *ranker) project(p string) bool {
	if records.IsTest(p) && r.a.Intent.Name != query.TestWriting {
		return false
	}
	return !records.IsVendored(p) && !parse.ProseOrData(p) && !parse.Document(p)
}

func frameWhy(f query.Frame) string {
	in := ""
	if f.Function != "" {
		name, _ := symbolNames(f.Function)
		in = ", in " + name
	}
	return fmt.Sprintf("stack frame %d (%s:%d%s)", f.Index, path.Base(f.Path), f.Line, in)
}

// uniqueDefinition is the one project definition a quoted name (`Name`, `Type.name`) stands for; kind,
// when not "", is the only kind of definition it may be (a macro's name written with its bang).
func (r *ranker) uniqueDefinition(text, kind string) (records.SymbolRef, bool) {
	name, parent, pkg := r.nameOf(text)
	if len(name) < 3 {
		return records.SymbolRef{}, false
	}
	var found []records.SymbolRef
	for _, ref := range r.s.Symbols[name] {
		d, ok := r.s.Definition(ref)
		if !ok || d.Kind == "section" || kind != "" && d.Kind != kind || parent != "" && d.Parent != parent || !r.project(ref.Path) ||
			pkg != "" && !r.inGoPackage(ref.Path, pkg) {
			continue
		}
		found = append(found, ref)
	}
	if len(found) != 1 {
		return records.SymbolRef{}, false
	}
	return found[0], true
}

// uniqueMessage is the one definition whose string literals hold the text's i-th error message (as the
// errors signal found them): every place that matches lies in it.
func (r *ranker) uniqueMessage(i int) (string, int, int, bool) {
	if i >= len(r.quoted) {
		return "", -1, 0, false
	}
	where, def, line := "", -1, 0
	for _, lit := range r.quoted[i] {
		if !r.project(lit.Path) {
			continue
		}
		d := r.enclosing(lit.Path, lit.Line)
		if d < 0 || where != "" && (where != lit.Path || def != d) {
			return "", -1, 0, false
		}
		where, def, line = lit.Path, d, lit.Line
	}
	return where, def, line, where != ""
}

// fileLine is a line of a file.
type fileLine struct {
	path string
	line int
}

// flagDeclarations are the lines of the project's files that a signal ranked where a string literal
// declares a command-line flag: "--dry-run" or "dry-run" (argparse, clap, cobra's long name), a
// commander-style "-n, --dry-run <x>"; a short flag only as "-n" itself. In path order.
func (r *ranker) flagDeclarations(flag string) []fileLine {
	name := strings.TrimLeft(flag, "-")
	long := strings.HasPrefix(flag, "--")
	var files []string
	seen := map[string]bool{}
	for _, l := range r.lists {
		for p := range l.files {
			if !seen[p] && r.project(p) {
				seen[p] = true
				files = append(files, p)
			}
		}
	}
	slices.Sort(files)
	var out []fileLine
	for _, p := range files {
		src := r.source(p)
		if !bytes.Contains(src, []byte(flag)) && !(long && strings.Contains(name, "-") && bytes.Contains(src, []byte(name))) {
			continue
		}
		for n, line := range bytes.Split(src, []byte("\n")) {
			if declaresFlag(string(line), flag, name, long) {
				out = append(out, fileLine{p, n + 1})
			}
		}
	}
	return out
}

// declaresFlag tells a line whose string literal is the flag: quoted whole, or (a long flag) among
// the names of a commander-style declaration.
func declaresFlag(line, flag, name string, long bool) bool {
	for _, q := range []string{`"`, `'`, "`"} {
		if strings.Contains(line, q+flag+q) || long && strings.Contains(name, "-") && strings.Contains(line, q+name+q) {
			return true
		}
	}
	if !long {
		return false
	}
	for i := 0; ; {
		j := strings.Index(line[i:], flag)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(flag)
		before := j > 0 && strings.ContainsRune(`"', `, rune(line[j-1]))
		after := end < len(line) && strings.ContainsRune(`"' <=[,`, rune(line[end]))
		if before && after && strings.ContainsAny(line[:j], `"'`) {
			return true
		}
		i = end
	}
}

// pinnedCandidates are the pins as the pack's first items, each with its own evidence, then what
// the ranking says of its file (files: the ranking, with probabilities when a learned ranker gave them).
func (r *ranker) pinnedCandidates(files []RankedFile) []pack.Candidate {
	pins := r.pins()
	if len(pins) == 0 {
		return nil
	}
	rankOf := map[string]int{}
	for k, f := range files {
		if _, ok := rankOf[f.Path]; !ok {
			rankOf[f.Path] = k
		}
	}
	var out []pack.Candidate
	for _, p := range pins {
		rec := r.s.Record(p.path)
		if rec == nil || rec.File == nil || p.def >= len(rec.File.Definitions) {
			continue
		}
		f := RankedFile{Path: p.path}
		why := []string{p.why}
		prob, limit := 0.0, 0
		if k, ok := rankOf[p.path]; ok {
			f = files[k]
			if f.Prob > 0 {
				why = append(why, fmt.Sprintf("file #%d, p=%.2f", k+1, f.Prob))
				prob, limit = f.Prob, r.plan.cap(max(f.Prob, pinMinProb))
			} else {
				why = append(why, fmt.Sprintf("file #%d", k+1))
			}
			for _, w := range r.fileWhy(f) {
				if !strings.HasPrefix(w, "defines `") {
					why = append(why, w)
				}
			}
		}
		if p.def == wholeFile {
			c := outlineCandidate(rec, r.source(p.path), f, why)
			c.Kind, c.Bucket, c.Score, c.Probability, c.Cap = "file", "definitions", 1, prob, max(limit, r.plan.cap(pinMinProb))
			out = append(out, c)
			continue
		}
		c := defCandidate(rec, r.lines(p.path), rec.File.Definitions[p.def], 1, why)
		c.Kind, c.Bucket, c.Probability, c.Cap = "definition", "definitions", prob, limit
		out = append(out, c)
	}
	return out
}

// pinMinProb: a pinned definition may take the room of one this likely, whatever the model says of its file.
const pinMinProb = 0.5

// isPinned tells whether a definition of a file is pinned.
func (r *ranker) isPinned(p string, def int) bool {
	for _, x := range r.pins() {
		if x.path == p && x.def == def {
			return true
		}
	}
	return false
}

// hasPins tells whether any definition of a file is pinned: its evidence is then said by the pins.
func (r *ranker) hasPins(p string) bool {
	for _, x := range r.pins() {
		if x.path == p {
			return true
		}
	}
	return false
}

// projectNames are the words of the project's own name (its folder, module or package, its commands'
// folders): every file says them, so as an entity they say nothing.
func (r *ranker) projectNames() map[string]bool {
	if r.names != nil {
		return r.names
	}
	r.names = map[string]bool{}
	add := func(s string) {
		for _, w := range words.Terms(s) {
			r.names[w] = true
		}
	}
	add(filepath.Base(r.s.Root))
	for _, f := range []string{"go.mod", "package.json", "Cargo.toml", "pyproject.toml", "setup.cfg"} {
		if m := projectName.FindSubmatch(r.source(f)); m != nil {
			add(path.Base(string(m[1]) + string(m[2]) + string(m[3])))
		}
	}
	for _, p := range r.s.Paths { // the commands a repository builds: cmd/gh/main.go
		if dir, rest, ok := strings.Cut(p, "/"); ok && dir == "cmd" {
			if name, _, ok := strings.Cut(rest, "/"); ok {
				add(name)
			}
		}
	}
	return r.names
}

// projectName reads the name a manifest declares: go.mod's module, package.json's, Cargo's or Python's name.
var projectName = regexp.MustCompile(`(?m)^\s*(?:module\s+(\S+)|"name"\s*:\s*"([^"]+)"|name\s*=\s*["']([^"']+)["'])`)

// holdsPin tells whether a definition encloses a pinned definition of its file.
func (r *ranker) holdsPin(p string, d parse.Definition) bool {
	rec := r.s.Record(p)
	for _, x := range r.pins() {
		if x.path != p || rec == nil || rec.File == nil || x.def == wholeFile {
			continue
		}
		in := rec.File.Definitions[x.def]
		if in.StartLine != d.StartLine && d.StartLine <= in.StartLine && in.EndLine <= d.EndLine {
			return true
		}
	}
	return false
}
