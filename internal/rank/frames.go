package rank

// The signals of where a text points: the files it names by path and the frames of its stack traces,
// each frame's function looked up in its package's folder where the trace says (Go).

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strings"
)

// paths: files the text names by path.
func (r *ranker) paths() {
	l := r.list("paths")
	for _, an := range r.a.Anchors {
		if an.Kind != "path" && an.Kind != "file_line" {
			continue
		}
		for _, p := range r.resolvePath(an.Path) {
			e := l.add(p, 1, fmt.Sprintf("path `%s` in the text", an.Path))
			if an.Line > 0 {
				e.lines = append(e.lines, an.Line)
			}
		}
	}
}

// resolvePath finds the workspace files a printed path stands for, by the longest common suffix.
func (r *ranker) resolvePath(p string) []string {
	if out, ok := r.resolved[p]; ok {
		return out
	}
	if r.resolved == nil {
		r.resolved = map[string][]string{}
	}
	out := r.findPath(p)
	r.resolved[p] = out
	return out
}

func (r *ranker) findPath(p string) []string {
	p = strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "./")
	if p == "" {
		return nil
	}
	if r.s.HasFile(p) {
		return []string{p}
	}
	base := path.Base(p)
	var out []string
	best := 0
	for _, q := range r.s.Paths {
		if path.Base(q) != base {
			continue
		}
		n := commonSuffixSegments(p, q)
		switch {
		case n > best:
			best, out = n, []string{q}
		case n == best:
			out = append(out, q)
		}
	}
	switch {
	case len(out) > 3:
		return nil // a bare "utils.py" that matches everywhere names nothing
	case !absPath(p) && best < len(strings.Split(p, "/")):
		return nil // a relative path names its folders: basic/test_basic.py is not tests/test_basic.py
	case best == 1 && len(out) > 1:
		return nil // only the base name of an outside path: ambiguous
	case best == 1 && strings.Contains(out[0], "/"):
		return nil // C:\Python38\lib\pathlib.py is not src/_pytest/pathlib.py: the folders differ
	}
	return out
}

func absPath(p string) bool {
	return strings.HasPrefix(p, "/") || len(p) > 2 && p[1] == ':' && p[2] == '/'
}

func commonSuffixSegments(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[len(as)-1-n] == bs[len(bs)-1-n] {
		n++
	}
	return n
}

// frames: stack frames resolved to workspace files and their enclosing definitions.
func (r *ranker) frames() {
	l := r.list("frames")
	for _, f := range r.a.Frames {
		for _, p := range r.resolvePath(f.Path) {
			sc := 1 / (1 + 0.3*float64(f.Index))
			e := l.add(p, sc, fmt.Sprintf("stack frame %d (%s:%d)", f.Index, path.Base(f.Path), f.Line))
			if f.Line > 0 {
				e.lines = append(e.lines, f.Line)
				if d := r.enclosing(p, f.Line); d >= 0 {
					e.defs[d] = math.Max(e.defs[d], sc)
				}
			}
		}
		if f.Function != "" {
			fn, pkg := f.Function, ""
			if f.Language == "go" {
				pkg, fn = goPackage(f.Function)
			}
			name, _ := symbolNames(fn)
			for _, ref := range r.s.Symbols[name] {
				if pkg != "" && !r.inGoPackage(ref.Path, pkg) {
					continue // another package's function of the same name
				}
				sc := 0.6 / (1 + 0.3*float64(f.Index))
				e := l.add(ref.Path, sc, fmt.Sprintf("stack frame %d (%s)", f.Index, f.Function))
				e.defs[ref.Def] = math.Max(e.defs[ref.Def], sc)
			}
		}
	}
}

// goPackage splits a Go frame's function into its package's import path and the function:
// "example.com/app/pkg/a/view.(*T).run.func1" -> "example.com/app/pkg/a/view", "(*T).run". A closure's
// suffix (.func1, .gowrap2) goes; the package of "main" is none (any folder may hold it).
func goPackage(fn string) (pkg, name string) {
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return "", fn
	}
	pkg, name = fn[:slash+1+dot], fn[slash+1+dot+1:]
	for {
		i := strings.LastIndexByte(name, '.')
		if i < 0 || !closureSuffix(name[i+1:]) {
			break
		}
		name = name[:i]
	}
	if pkg == "main" {
		pkg = ""
	}
	return pkg, name
}

// closureSuffix tells the parts Go names a function literal by: func1, gowrap2, 1.
func closureSuffix(s string) bool {
	s = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(s, "func"), "gowrap"), "0123456789")
	return s == ""
}

// inGoPackage tells whether a file lies in the folder of a package's import path: the folder is the
// path's end (pkg/a/view of example.com/app/pkg/a/view), or the root when the path is go.mod's module.
func (r *ranker) inGoPackage(p, pkg string) bool {
	dir := path.Dir(p)
	if dir == "." {
		m := goModule.FindSubmatch(r.source("go.mod"))
		return m != nil && string(m[1]) == pkg
	}
	return pkg == dir || strings.HasSuffix(pkg, "/"+dir)
}

var goModule = regexp.MustCompile(`(?m)^\s*module\s+(\S+)`)

// enclosing is the innermost definition of a file containing a line, or -1.
func (r *ranker) enclosing(p string, line int) int {
	rec := r.s.Record(p)
	if rec == nil || rec.File == nil {
		return -1
	}
	best, size := -1, math.MaxInt
	for i, d := range rec.File.Definitions {
		if d.StartLine <= line && line <= d.EndLine && d.EndLine-d.StartLine < size && d.Kind != "section" {
			best, size = i, d.EndLine-d.StartLine
		}
	}
	return best
}
