package walk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	filetest.NeedGit(t)
	filetest.Git(t, dir, "init", "-q")
}

func walkPaths(t *testing.T, root string, opts Options) ([]string, map[string]string) {
	t.Helper()
	res, err := Walk(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range res.Files {
		paths = append(paths, f.Path)
	}
	skipped := map[string]string{}
	for _, s := range res.Skipped {
		skipped[s.Path] = s.Reason
	}
	return paths, skipped
}

// The gitignore fixture shared by the git comparison and the matcher tests.
var gitignoreTree = map[string]string{
	".gitignore":              "# build output\n*.log\n/build\nout/\ndocs/*.tmp\n**/cache/**\n\\#hash.txt\n",
	"main.go":                 "package main\n",
	"app.log":                 "log\n",
	"#hash.txt":               "hash\n",
	"build/x.go":              "package build\n",
	"src/build/y.go":          "package build\n", // /build is anchored: this one stays
	"out/z.go":                "package out\n",
	"src/out/z.go":            "package out\n", // out/ matches at any depth
	"src/out.go":              "package src\n", // out/ is folder-only
	"docs/a.tmp":              "tmp\n",
	"docs/deep/a.tmp":         "tmp\n", // docs/*.tmp does not cross folders
	"src/cache/data.txt":      "cached\n",
	"sub/.gitignore":          "!keep.log\nlocal.txt\n",
	"sub/keep.log":            "kept\n",
	"sub/drop.log":            "dropped\n",
	"sub/local.txt":           "local\n",
	"local.txt":               "nested rules stay in their subtree\n",
	"sub/inner/keep.log":      "kept below too\n",
	"sub/inner/.gitignore":    "*.txt\n",
	"sub/inner/notes.txt":     "ignored by inner\n",
	"sub/inner/code.go":       "package inner\n",
	"secret.txt":              "excluded by info/exclude\n",
	"crlf/.gitignore":         "*.bak\r\nspaced.txt  \r\n",
	"crlf/a.bak":              "bak\n",
	"crlf/spaced.txt":         "trailing spaces are trimmed\n",
	"crlf/a.go":               "package crlf\n",
	"negated/.gitignore":      "*\n!*/\n!*.go\n",
	"negated/x.md":            "ignored\n",
	"negated/y.go":            "package negated\n",
	"negated/deeper/z.go":     "package deeper\n",
	"negated/deeper/skip.txt": "ignored\n",
	"globs/.gitignore":        "**/temp\na/**/b.txt\n*.py[co]\n\\!bang.txt\ndoc/**/*.txt\n/rooted/*.md\n!/rooted/keep.md\nsp\\ ace.txt\n",
	"globs/temp":              "ignored file named temp\n",
	"globs/x/temp/y.go":       "ignored folder named temp\n",
	"globs/a/b.txt":           "ignored\n",
	"globs/a/m/n/b.txt":       "ignored\n",
	"globs/a/m/c.txt":         "kept\n",
	"globs/m.pyc":             "ignored\n",
	"globs/m.py":              "kept\n",
	"globs/!bang.txt":         "ignored\n",
	"globs/doc/x/y/z.txt":     "ignored\n",
	"globs/doc/z.txt":         "ignored\n",
	"globs/doc/z.md":          "kept\n",
	"globs/rooted/r.md":       "ignored\n",
	"globs/rooted/keep.md":    "kept\n",
	"globs/rooted/sub/s.md":   "kept\n",
	"globs/sp ace.txt":        "ignored\n",
	"whitelist/.gitignore":    "/*\n!*/\n!*.go\n",
	"whitelist/top.md":        "ignored\n",
	"whitelist/a.go":          "kept\n",
	"whitelist/sub/readme.md": "kept: /* does not reach into sub\n",
	"brackets/.gitignore":     "[!a]*.txt\n",
	"brackets/a1.txt":         "kept\n",
	"brackets/b1.txt":         "ignored\n",
}

func TestWalkAgreesWithGit(t *testing.T) {
	root := t.TempDir()
	gitInit(t, root)
	filetest.Write(t, root, gitignoreTree)
	exclude := filepath.Join(root, ".git", "info", "exclude")
	if err := os.MkdirAll(filepath.Dir(exclude), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exclude, []byte("secret.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	got, skipped := walkPaths(t, root, Options{})
	want := strings.Fields(filetest.Git(t, root, "ls-files", "--others", "--cached", "--exclude-standard"))
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("walk and git disagree\nwalk: %v\ngit:  %v", got, want)
	}
	if len(skipped) != 0 {
		t.Errorf("nothing here deserves a reported skip, got %v", skipped)
	}
	for _, p := range []string{"sub/keep.log", "sub/inner/keep.log", "src/build/y.go", "src/out.go", "local.txt", "negated/deeper/z.go",
		"whitelist/sub/readme.md", "brackets/a1.txt", "globs/rooted/keep.md", "globs/a/m/c.txt"} {
		if !slices.Contains(got, p) {
			t.Errorf("%s should be listed", p)
		}
	}
	for _, p := range []string{"app.log", "sub/drop.log", "build/x.go", "out/z.go", "src/out/z.go", "secret.txt", "sub/local.txt", "crlf/spaced.txt",
		"negated/deeper/skip.txt", "whitelist/top.md", "brackets/b1.txt", "globs/a/m/n/b.txt", "globs/doc/x/y/z.txt", "globs/sp ace.txt"} {
		if slices.Contains(got, p) {
			t.Errorf("%s should be ignored", p)
		}
	}
}

// Every regular file on disk is listed by Walk exactly when the Matcher says it is not ignored.
func TestMatcherAgreesWithWalk(t *testing.T) {
	root := t.TempDir()
	filetest.Write(t, root, gitignoreTree)
	filetest.Write(t, root, map[string]string{
		".git/info/exclude":         "secret.txt\n",
		".git/HEAD":                 "ref: refs/heads/main\n",
		"pkg/.ignore":               "*.gen.go\n!keep.gen.go\n",
		"pkg/a.gen.go":              "package pkg\n",
		"pkg/keep.gen.go":           "package pkg\n",
		"node_modules/lib/index.js": "x\n",
		".vscode/settings.json":     "{}\n",
	})
	opts := Options{Excludes: []string{"*.md"}}
	listed, _ := walkPaths(t, root, opts)
	m, err := NewMatcher(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." || d.IsDir() {
			return nil
		}
		checked++
		if in := slices.Contains(listed, rel); in == m.Ignored(rel, false) {
			t.Errorf("%s: listed=%v but Ignored=%v", rel, in, m.Ignored(rel, false))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < len(gitignoreTree) {
		t.Fatalf("checked only %d files", checked)
	}
	for _, c := range []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"build", true, true},
		{"src/build", true, false},
		{"out", true, true},
		{"out", false, false},
		{"node_modules", true, true},
		{"a/vendor/b.go", false, true},
		{".git/HEAD", false, true},
		{".vscode", true, true},
		{"./sub/keep.log", false, false},
		{"../outside.go", false, true},
		{"", true, false},
		{"new/file.go", false, false},
	} {
		if got := m.Ignored(c.rel, c.isDir); got != c.want {
			t.Errorf("Ignored(%q, %v) = %v, want %v", c.rel, c.isDir, got, c.want)
		}
	}
}

func TestIsIgnoreFile(t *testing.T) {
	m, err := NewMatcher(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{
		".gitignore": true, "a/b/.gitignore": true, ".ignore": true, "x/.ignore": true,
		".git/info/exclude": true, "nested/.git/info/exclude": true,
		"gitignore": false, "exclude": false, "main.go": false, "a/.gitignore.bak": false,
	} {
		if got := m.IsIgnoreFile(rel); got != want {
			t.Errorf("IsIgnoreFile(%q) = %v, want %v", rel, got, want)
		}
	}
}

func TestWalkIgnoreFileAndExcludes(t *testing.T) {
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		".ignore":            "*.snap\n",
		".gitignore":         "*.snap\n!keep.snap\n", // .ignore wins over .gitignore in the same folder
		"keep.snap":          "s\n",
		"a.snap":             "s\n",
		"pkg/.ignore":        "!pkg.snap\n", // a deeper .ignore overrides the root's
		"pkg/pkg.snap":       "s\n",
		"pkg/x.go":           "package pkg\n",
		"gen/api.go":         "package gen\n",
		"docs/guide.md":      "guide\n",
		"docs/.gitignore":    "!guide.md\n", // a repository file cannot re-include a configured exclude
		"testdata/big/in.go": "package big\n",
	})
	got, _ := walkPaths(t, root, Options{Excludes: []string{"/gen", "*.md", "testdata/big/", "", "# comment"}})
	want := []string{".gitignore", ".ignore", "docs/.gitignore", "pkg/.ignore", "pkg/pkg.snap", "pkg/x.go"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}

	if _, err := Walk(context.Background(), root, Options{Excludes: []string{"src/[a-"}}); err == nil || !strings.Contains(err.Error(), "src/[a-") {
		t.Errorf("a malformed exclude should be an error naming it, got %v", err)
	}
	if _, err := NewMatcher(root, Options{Excludes: []string{"[z"}}); err == nil {
		t.Error("NewMatcher should reject a malformed exclude too")
	}
}

func TestWalkVendoredAndTools(t *testing.T) {
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		"main.go":                           "package main\n",
		"vendor/github.com/x/y/y.go":        "package y\n",
		"web/node_modules/react/index.js":   "x\n",
		"web/node_modules/.bin/tool":        "x\n",
		"web/app.js":                        "x\n",
		"py/.venv/lib/site.py":              "x\n",
		"py/pkg/__pycache__/m.cpython.pyc":  "x\n",
		"py/.tox/env/x.py":                  "x\n",
		"py/venv/bin/activate":              "x\n",
		"bower_components/jquery/jquery.js": "x\n",
		".git/config":                       "[core]\n",
		".hg/store":                         "x\n",
		".svn/entries":                      "x\n",
		".idea/workspace.xml":               "x\n",
		".vscode/settings.json":             "{}\n",
		"dist/lib.js":                       "kept: dist can be source\n",
		"vendor.go":                         "package main // a file named like a folder stays\n",
	})
	got, skipped := walkPaths(t, root, Options{})
	if want := []string{"dist/lib.js", "main.go", "vendor.go", "web/app.js"}; !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	wantSkipped := map[string]string{
		"vendor": ReasonVendored, "web/node_modules": ReasonVendored, "py/.venv": ReasonVendored,
		"py/pkg/__pycache__": ReasonVendored, "py/.tox": ReasonVendored, "py/venv": ReasonVendored,
		"bower_components": ReasonVendored,
	}
	if fmt.Sprint(skipped) != fmt.Sprint(wantSkipped) {
		t.Errorf("skipped %v\nwant %v", skipped, wantSkipped)
	}

	got, skipped = walkPaths(t, root, Options{Vendored: true})
	if !slices.Contains(got, "vendor/github.com/x/y/y.go") || !slices.Contains(got, "web/node_modules/react/index.js") {
		t.Errorf("Vendored: true should list dependency folders, got %v", got)
	}
	if slices.Contains(got, ".idea/workspace.xml") || slices.Contains(got, ".git/config") || len(skipped) != 0 {
		t.Errorf("tool folders stay skipped and unreported: %v %v", got, skipped)
	}
}

func TestWalkTooLarge(t *testing.T) {
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		"small.go": strings.Repeat("a", 100),
		"exact.go": strings.Repeat("a", 1000),
		"big.go":   strings.Repeat("a", 1001),
	})
	res, err := Walk(context.Background(), root, Options{MaxFileSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 || res.Files[0].Path != "exact.go" || res.Files[0].Size != 1000 || res.Files[1].Path != "small.go" {
		t.Errorf("files %+v", res.Files)
	}
	if res.Files[0].ModTime.IsZero() {
		t.Error("ModTime not set")
	}
	if len(res.Skipped) != 1 || res.Skipped[0] != (Skip{Path: "big.go", Reason: ReasonTooLarge}) {
		t.Errorf("skipped %+v", res.Skipped)
	}

	// the default is 1 MiB
	filetest.Write(t, root, map[string]string{"huge.txt": strings.Repeat("x", 1<<20+1), "mib.txt": strings.Repeat("x", 1<<20)})
	got, skipped := walkPaths(t, root, Options{})
	if skipped["huge.txt"] != ReasonTooLarge || !slices.Contains(got, "mib.txt") || !slices.Contains(got, "big.go") {
		t.Errorf("default limit: files %v skipped %v", got, skipped)
	}
}

func TestWalkSymlinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	filetest.Write(t, outside, map[string]string{"secret.go": "package secret\n"})
	filetest.Write(t, root, map[string]string{
		".gitignore":          "/generated\n/private.go\n",
		"private.go":          "package private\n",
		"src/a.go":            "package src\n",
		"src/sub/b.go":        "package sub\n",
		"generated/api.go":    "package api\n", // ignored where it lives, reachable through a link
		"generated/more/c.go": "package more\n",
		"notes/todo.md":       "todo\n",
	})
	symlink(t, "../src/a.go", filepath.Join(root, "links", "a.go"))      // a file already listed
	symlink(t, "../notes/todo.md", filepath.Join(root, "links", "todo")) // another file already listed
	symlink(t, "../src", filepath.Join(root, "links", "src"))            // a folder already listed
	symlink(t, "generated", filepath.Join(root, "api"))                  // a folder only reachable by the link
	symlink(t, "generated/api.go", filepath.Join(root, "api.go"))        // already listed through the "api" link
	symlink(t, "private.go", filepath.Join(root, "pub.go"))              // a file only reachable by the link
	symlink(t, outside, filepath.Join(root, "out"))
	symlink(t, filepath.Join(outside, "secret.go"), filepath.Join(root, "secret.go"))
	symlink(t, ".", filepath.Join(root, "a"))
	symlink(t, "..", filepath.Join(root, "src", "b"))
	symlink(t, "self", filepath.Join(root, "self"))
	symlink(t, "missing.go", filepath.Join(root, "broken.go"))

	res, err := Walk(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Files {
		got = append(got, f.Path)
	}
	want := []string{".gitignore", "api/api.go", "api/more/c.go", "notes/todo.md", "pub.go", "src/a.go", "src/sub/b.go"}
	if !slices.Equal(got, want) {
		t.Errorf("files %v\nwant %v", got, want)
	}
	wantSkipped := []Skip{
		{"a", ReasonSymlinkLoop},
		{"api.go", ReasonSymlinkDuplicate},
		{"broken.go", ReasonBrokenSymlink},
		{"links/a.go", ReasonSymlinkDuplicate},
		{"links/src", ReasonSymlinkDuplicate},
		{"links/todo", ReasonSymlinkDuplicate},
		{"out", ReasonSymlinkOutside},
		{"secret.go", ReasonSymlinkOutside},
		{"self", ReasonSymlinkLoop},
		{"src/b", ReasonSymlinkLoop},
	}
	if !slices.Equal(res.Skipped, wantSkipped) {
		t.Errorf("skipped %v\nwant %v", res.Skipped, wantSkipped)
	}
	for _, f := range res.Files {
		if f.Path == "pub.go" && f.Size != int64(len("package private\n")) {
			t.Errorf("a linked file has its target's size, got %d", f.Size)
		}
	}

	// the matcher reads ignore files inside linked folders under the link's path
	filetest.Write(t, root, map[string]string{"generated/more/.gitignore": "c.go\n"})
	m, err := NewMatcher(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Ignored("api/more/c.go", false) || !m.Ignored("generated/api.go", false) || m.Ignored("api/api.go", false) {
		t.Error("matcher does not follow the link the way Walk does")
	}
}

func TestWalkUnreadable(t *testing.T) {
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		"ok.go":           "package ok\n",
		"locked/x.go":     "package locked\n",
		"closed.go":       "package closed\n",
		"open/.gitignore": "*.tmp\n",
	})
	locked := filepath.Join(root, "locked")
	closed := filepath.Join(root, "closed.go")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(closed, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if f, err := os.Open(locked); err == nil {
		f.Close()
		if os.Geteuid() == 0 {
			t.Skip("running as root: a mode-000 folder stays readable")
		}
		t.Fatal("a mode-000 folder opened")
	}
	got, skipped := walkPaths(t, root, Options{})
	if !slices.Equal(got, []string{"ok.go", "open/.gitignore"}) {
		t.Errorf("files %v", got)
	}
	if skipped["locked"] != ReasonUnreadable || skipped["closed.go"] != ReasonUnreadable {
		t.Errorf("skipped %v", skipped)
	}
}

func TestWalkSpecialFiles(t *testing.T) {
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{"a.go": "package a\n"})
	mkfifo := exec.Command("mkfifo", filepath.Join(root, "pipe"))
	if err := mkfifo.Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got, skipped := walkPaths(t, root, Options{})
	if !slices.Equal(got, []string{"a.go"}) || skipped["pipe"] != ReasonSpecial {
		t.Errorf("files %v skipped %v", got, skipped)
	}
}

func TestWalkErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Walk(context.Background(), filepath.Join(dir, "missing"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: %v", err)
	}
	filetest.Write(t, dir, map[string]string{"file.go": "package f\n"})
	if _, err := Walk(context.Background(), filepath.Join(dir, "file.go"), Options{}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("file as root: %v", err)
	}
	if _, err := NewMatcher(filepath.Join(dir, "missing"), Options{}); err == nil {
		t.Error("NewMatcher on a missing root should fail")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Walk(ctx, dir, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: %v", err)
	}
}

// A symlinked root is walked, and paths stay relative to the name given.
func TestWalkSymlinkedRoot(t *testing.T) {
	real := t.TempDir()
	filetest.Write(t, real, map[string]string{"a.go": "package a\n", "sub/b.go": "package sub\n"})
	link := filepath.Join(t.TempDir(), "ws")
	symlink(t, real, link)
	got, skipped := walkPaths(t, link, Options{})
	if !slices.Equal(got, []string{"a.go", "sub/b.go"}) || len(skipped) != 0 {
		t.Errorf("files %v skipped %v", got, skipped)
	}
}

// benchTree builds ~1,000 folders and 10,000 files with a realistic set of ignore files.
func benchTree(b *testing.B) string {
	return benchTreeAt(b, b.TempDir())
}

func benchTreeAt(b testing.TB, root string) string {
	files := map[string]string{
		".gitignore": "*.log\n*.tmp\n/build\nout/\n*.o\n*.so\n.DS_Store\ncoverage/\n*.swp\n.env\n" +
			"dist/*.map\n**/testdata/big/**\n*.pyc\n!important.log\n/tmp\n",
	}
	for d := 0; d < 1000; d++ {
		dir := fmt.Sprintf("pkg%02d/mod%02d", d/40, d%40)
		if d%25 == 0 {
			files[dir+"/.gitignore"] = "*.gen.go\n!keep.gen.go\n"
		}
		for f := 0; f < 10; f++ {
			ext := []string{".go", ".ts", ".py", ".log", ".md"}[f%5]
			files[fmt.Sprintf("%s/file%d%s", dir, f, ext)] = "package x\n"
		}
	}
	filetest.Write(b, root, files)
	return root
}

func BenchmarkWalk(b *testing.B) {
	root := benchTree(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		res, err := Walk(ctx, root, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Files) != 8000+1+40 { // .log files ignored, .gitignore files listed
			b.Fatalf("listed %d files", len(res.Files))
		}
	}
}

func BenchmarkNewMatcher(b *testing.B) {
	root := benchTree(b)
	for b.Loop() {
		if _, err := NewMatcher(root, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
