package main

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ctxmap/ctxmap"

var updateArchitecture = flag.Bool("update-architecture", false, "rewrite the import table of docs/architecture.md from the code")

// sourceFiles calls f with each Go file of the project that is not a test, testdata or an editor's.
func sourceFiles(t *testing.T, f func(path string)) {
	t.Helper()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == "editors" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			f(p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// packageImports maps each package of the project (a folder with Go files other than tests, relative
// to the root: "." for the command) to the project's packages it imports.
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	sourceFiles(t, func(p string) {
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if dep, ok := strings.CutPrefix(path, module+"/"); ok && !slices.Contains(out[pkg], dep) {
				out[pkg] = append(out[pkg], dep)
			}
		}
	})
	for _, deps := range out {
		slices.Sort(deps)
	}
	return out
}

// level is a package's floor in the house: a package imports only packages on lower floors (higher
// numbers) or, under internal/, its neighbours there.
func level(pkg string) int {
	switch {
	case pkg == ".":
		return 0
	case pkg == "cli":
		return 1
	case pkg == "server" || pkg == "mcp" || pkg == "bench":
		return 2
	case pkg == "session" || pkg == "mine":
		return 3
	case pkg == "index":
		return 4
	case strings.HasPrefix(pkg, "internal/"):
		return 5
	}
	return -1
}

// above are the packages over index that reach the engine through it, with what alone each may import
// of internal/, a floor down: a front end (a person or a program talks to it) its protocol helper, the
// session its feed, the watcher (files -> watch -> session). The benchmark, which mines the engine's
// parts for the ranker's training data, is not held.
var above = map[string][]string{
	"cli":     {"internal/rpcerr"},
	"server":  {"internal/rpcerr"},
	"mcp":     {"internal/rpcerr"},
	"session": {"internal/watch"},
}

// groupLine is a line of the house's floor 5: a group's name and its packages ("meaning:  entity/ ...").
var groupLine = regexp.MustCompile(`^\s+([a-z' ]+):\s+(.*\S)\s*$`)

// internalGroups reads the groups of internal/ from the house drawn in the document: the lines below
// "floor 5", the highest group first. It maps each package drawn there to its group's height (0 for
// the lowest) and names the groups.
func internalGroups(t *testing.T, doc string) (map[string]int, []string) {
	t.Helper()
	lines := strings.Split(doc, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "floor 5") })
	if i < 0 {
		t.Fatal("the house in docs/architecture.md has no floor 5")
	}
	var names []string
	var pkgs [][]string
	for _, l := range lines[i+1:] {
		m := groupLine.FindStringSubmatch(l)
		if m == nil {
			break
		}
		names = append(names, m[1])
		var ps []string
		for _, f := range strings.Fields(m[2]) {
			if f = strings.Trim(f, "(+)"); strings.HasSuffix(f, "/") {
				ps = append(ps, "internal/"+strings.TrimSuffix(f, "/"))
			}
		}
		pkgs = append(pkgs, ps)
	}
	out := map[string]int{}
	for g, ps := range pkgs {
		for _, p := range ps {
			out[p] = len(pkgs) - 1 - g
		}
	}
	return out, names
}

// groupOf is the height of an internal package's group: its own, or that of the nearest folder above
// it the house draws (internal/embed/embedtest is embed's); -1 when the house does not draw it.
func groupOf(groups map[string]int, pkg string) int {
	for p := pkg; strings.HasPrefix(p, "internal/"); p = filepath.ToSlash(filepath.Dir(p)) {
		if g, ok := groups[p]; ok {
			return g
		}
	}
	return -1
}

// The architecture document is held against the code: it names every package, its table of imports is
// the code's, no package imports one on a floor above its own, no package of internal/ imports one of a
// group the house draws above its own, and a front end or the session imports nothing of internal/ but
// its helper or its feed.
func TestArchitectureIsCurrent(t *testing.T) {
	t.Parallel()
	const doc = "docs/architecture.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	groups, names := internalGroups(t, text)
	imports := packageImports(t)
	pkgs := slices.Sorted(func(yield func(string) bool) {
		for p := range imports {
			if !yield(p) {
				return
			}
		}
	})
	for _, p := range pkgs {
		if level(p) < 0 {
			t.Errorf("package %s has no floor in the house: give it one in level and in docs/architecture.md", p)
		}
		if level(p) == 5 && groupOf(groups, p) < 0 {
			t.Errorf("package %s is in no group of floor 5 in the house of %s", p, doc)
		}
		for _, dep := range imports[p] {
			if level(dep) < level(p) || level(dep) == level(p) && level(p) != 5 {
				t.Errorf("%s imports %s, on a floor above or beside its own", p, dep)
			}
			if level(p) == 5 && level(dep) == 5 {
				if g, d := groupOf(groups, p), groupOf(groups, dep); g >= 0 && d > g {
					t.Errorf("%s (%s) imports %s (%s), a group the house draws above its own", p, names[len(names)-1-g], dep, names[len(names)-1-d])
				}
			}
			if allowed, held := above[p]; held && level(dep) == 5 && !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s: it should reach the engine through index (of internal/ it imports only %s)", p, dep, strings.Join(allowed, ", "))
			}
		}
	}
	var table strings.Builder
	table.WriteString("| package | imports of the project |\n| --- | --- |\n")
	for _, p := range pkgs {
		deps := "-"
		if len(imports[p]) > 0 {
			deps = strings.Join(imports[p], ", ")
		}
		name := p
		if p == "." {
			name = "(root) main"
		}
		table.WriteString("| " + name + " | " + deps + " |\n")
	}
	const begin, end = "<!-- imports: begin -->\n", "<!-- imports: end -->"
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", doc, begin, end)
	}
	if got := text[i+len(begin) : j]; got != table.String() {
		if *updateArchitecture {
			if err := os.WriteFile(doc, []byte(text[:i+len(begin)]+table.String()+text[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("the import table of %s is not the code's; go test -run TestArchitectureIsCurrent . -args -update-architecture rewrites it:\n%s", doc, table.String())
		}
	}
	// every package is named where the rooms are described, not only in the generated table
	rooms := text[:i]
	for _, p := range pkgs {
		if p != "." && !strings.Contains(rooms, "`"+p+"/`") {
			t.Errorf("%s does not describe package %s (as `%s/`)", doc, p, p)
		}
	}
}

// Every exported identifier outside tests has a doc comment: types, functions, methods of exported
// types, constants and variables (a comment over a group of them counts for the group).
func TestExportedIdentifiersHaveDocComments(t *testing.T) {
	t.Parallel()
	sourceFiles(t, func(p string) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" {
			return // a command's names are not an API
		}
		missing := func(pos token.Pos, name string) {
			t.Errorf("%s: %s has no doc comment", fset.Position(pos), name)
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Name.IsExported() && decl.Doc == nil && exportedReceiver(decl) {
					missing(decl.Pos(), decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if spec.Name.IsExported() && spec.Doc == nil && decl.Doc == nil {
							missing(spec.Pos(), spec.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() && spec.Doc == nil && spec.Comment == nil && decl.Doc == nil {
								missing(n.Pos(), n.Name)
							}
						}
					}
				}
			}
		}
	})
}

// exportedReceiver reports whether a function is a plain function or a method of an exported type.
func exportedReceiver(fn *ast.FuncDecl) bool {
	if fn.Recv == nil {
		return true
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if generic, ok := typ.(*ast.IndexExpr); ok {
		typ = generic.X
	}
	id, ok := typ.(*ast.Ident)
	return !ok || id.IsExported()
}
