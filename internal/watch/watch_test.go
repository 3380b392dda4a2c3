package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/walk"
)

const patience = 15 * time.Second // a shared, loaded machine can be slow; this is a ceiling, not a target

// recorder collects batches until a condition holds; each phase of a test starts a new recording.
type recorder struct {
	t       *testing.T
	w       *Watcher
	root    string
	batches []Batch
	seen    map[string]bool
	rescan  bool
}

func start(t *testing.T, files map[string]string, opts Options) *recorder {
	t.Helper()
	root := t.TempDir()
	filetest.Write(t, root, files)
	w, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &recorder{t: t, w: w, root: root, seen: map[string]bool{}}
}

// goFiles are Go files at paths, each in the package its folder names (main at the root).
func goFiles(paths ...string) map[string]string {
	files := map[string]string{}
	for _, p := range paths {
		pkg := filepath.Base(filepath.Dir(p))
		if pkg == "." {
			pkg = "main"
		}
		files[p] = "package " + pkg + "\n"
	}
	return files
}

func (r *recorder) path(rel string) string { return filepath.Join(r.root, filepath.FromSlash(rel)) }

func (r *recorder) write(files map[string]string) { r.t.Helper(); filetest.Write(r.t, r.root, files) }

// rename moves from to to, both relative to the root.
func (r *recorder) rename(from, to string) {
	r.t.Helper()
	if err := os.Rename(r.path(from), r.path(to)); err != nil {
		r.t.Fatal(err)
	}
}

// phase starts a new recording.
func (r *recorder) phase() {
	r.batches, r.seen, r.rescan = nil, map[string]bool{}, false
}

// phaseWrite starts a new recording and writes files in it.
func (r *recorder) phaseWrite(files map[string]string) {
	r.t.Helper()
	r.phase()
	r.write(files)
}

// until reads batches until done holds, failing after patience.
func (r *recorder) until(what string, done func() bool) {
	r.t.Helper()
	timeout := time.After(patience)
	for !done() {
		select {
		case b, ok := <-r.w.Batches():
			if !ok {
				r.t.Fatalf("batches closed while waiting for %s", what)
			}
			r.batches = append(r.batches, b)
			for _, p := range b.Paths {
				r.seen[p] = true
			}
			r.rescan = r.rescan || b.Rescan
		case <-timeout:
			r.t.Fatalf("no %s after %v; batches: %v", what, patience, r.batches)
		}
	}
}

func (r *recorder) untilSeen(paths ...string) {
	r.t.Helper()
	r.until(strings.Join(paths, ", "), func() bool { return r.seenAll(paths) })
}

// seenAll says whether every one of paths was reported.
func (r *recorder) seenAll(paths []string) bool {
	for _, p := range paths {
		if !r.seen[p] {
			return false
		}
	}
	return true
}

func (r *recorder) untilRescan() {
	r.t.Helper()
	r.until("rescan", func() bool { return r.rescan })
}

func (r *recorder) notSeen(paths ...string) {
	r.t.Helper()
	for _, p := range paths {
		if r.seen[p] {
			r.t.Errorf("%s was reported: %v", p, r.batches)
		}
	}
}

func TestFileCreateWriteRenameDelete(t *testing.T) {
	r := start(t, map[string]string{"src/keep.go": "package src\n"}, Options{})

	r.write(map[string]string{"src/a.go": "package src\n"})
	r.untilSeen("src/a.go")

	r.phase()
	f, err := os.OpenFile(r.path("src/keep.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "// more")
	f.Close()
	r.untilSeen("src/keep.go")

	r.phase()
	r.rename("src/a.go", "src/b.go")
	r.untilSeen("src/a.go", "src/b.go")

	r.phase()
	if err := os.Remove(r.path("src/b.go")); err != nil {
		t.Fatal(err)
	}
	r.untilSeen("src/b.go")
	for _, b := range r.batches {
		if b.Rescan {
			t.Errorf("plain file events should not ask for a rescan: %v", r.batches)
		}
	}
}

// An editor's atomic save: write a temporary file, rename it over the target.
func TestAtomicSave(t *testing.T) {
	r := start(t, map[string]string{"pkg/target.go": "package pkg\n"}, Options{})
	r.write(map[string]string{"pkg/.target.go.swp": "package pkg\n\nfunc New() {}\n"})
	r.rename("pkg/.target.go.swp", "pkg/target.go")
	r.untilSeen("pkg/target.go")

	// the folder is still watched after the replace
	r.phaseWrite(map[string]string{"pkg/target.go": "package pkg\n\nfunc Old() {}\n"})
	r.untilSeen("pkg/target.go")
}

// Files created in a new folder before its watch exists are found by scanning it.
func TestNewFolderWithFiles(t *testing.T) {
	r := start(t, nil, Options{})
	r.write(goFiles("feature/a.go", "feature/inner/b.go", "feature/inner/deep/c.go"))
	r.untilSeen("feature/a.go", "feature/inner/b.go", "feature/inner/deep/c.go")
	for p := range r.seen {
		if p == "feature" || p == "feature/inner" || p == "feature/inner/deep" {
			t.Errorf("folders are expanded to their files, got %s", p)
		}
	}

	r.phaseWrite(map[string]string{"feature/inner/deep/c.go": "package deep // changed\n"})
	r.untilSeen("feature/inner/deep/c.go")

	// a tree moved in from outside has every file in place before any watch on it
	r.phase()
	outside := t.TempDir()
	filetest.Write(t, outside, map[string]string{"pkg/x.go": "package pkg\n", "pkg/sub/y.go": "package sub\n"})
	if err := os.Rename(filepath.Join(outside, "pkg"), r.path("moved")); err != nil {
		t.Fatal(err)
	}
	r.untilSeen("moved/x.go", "moved/sub/y.go")
	r.phaseWrite(map[string]string{"moved/sub/y.go": "package sub // changed\n"})
	r.untilSeen("moved/sub/y.go")
}

func TestFolderRemove(t *testing.T) {
	r := start(t, goFiles("old/a.go", "old/sub/b.go", "old/sub/c/d.go", "other.go"), Options{})
	if err := os.RemoveAll(r.path("old")); err != nil {
		t.Fatal(err)
	}
	r.untilSeen("old/a.go", "old/sub/b.go", "old/sub/c/d.go")
	r.notSeen("other.go")
}

// A renamed folder reports both names; afterwards its files report the new path only.
func TestFolderRename(t *testing.T) {
	r := start(t, goFiles("old/a.go", "old/sub/b.go", "old/sub/deep/c.go"), Options{})
	r.rename("old", "new")
	r.untilSeen("old/a.go", "old/sub/b.go", "old/sub/deep/c.go", "new/a.go", "new/sub/b.go", "new/sub/deep/c.go")
	r.notSeen("old", "new", "old/sub", "new/sub")

	r.phaseWrite(map[string]string{"new/sub/b.go": "package sub // edited\n", "new/sub/deep/e.go": "package deep\n"})
	r.untilSeen("new/sub/b.go", "new/sub/deep/e.go")
	r.notSeen("old/sub/b.go", "old/sub/deep/e.go")

	// and back again
	r.phase()
	r.rename("new", "old")
	r.untilSeen("new/sub/deep/e.go", "old/sub/deep/e.go")
	r.phaseWrite(map[string]string{"old/sub/deep/e.go": "package deep // again\n"})
	r.untilSeen("old/sub/deep/e.go")
	r.notSeen("new/sub/deep/e.go")
}

func TestBurst(t *testing.T) {
	r := start(t, map[string]string{"gen/.keep": ""}, Options{})
	const n = 5000
	want := make([]string, 0, n)
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("gen/d%d/f%04d.go", i%10, i)
		want = append(want, rel)
		r.write(map[string]string{rel: "package gen\n"})
	}
	r.until(fmt.Sprintf("all %d files", n), func() bool { return r.seenAll(want) })
	if len(r.batches) >= 20 {
		t.Errorf("%d files came in %d batches; a burst should give few", n, len(r.batches))
	}
	t.Logf("%d files in %d batches", n, len(r.batches))
}

// A steady stream still flushes: the debounce timer is capped.
func TestSteadyStreamFlushes(t *testing.T) {
	r := start(t, map[string]string{"log.go": "package main\n"}, Options{Debounce: 200 * time.Millisecond})
	stop := time.After(3 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	got := 0
loop:
	for i := 0; ; i++ {
		select {
		case <-stop:
			break loop
		case <-tick.C:
			r.write(map[string]string{"log.go": fmt.Sprintf("package main // %d\n", i)})
		case b := <-r.w.Batches():
			got += len(b.Paths)
		}
	}
	if got == 0 {
		t.Error("no batch while events kept coming")
	}
}

func TestIgnoredNotReported(t *testing.T) {
	r := start(t, map[string]string{
		".gitignore":                "*.log\nbuild/\n",
		"build/out.go":              "package build\n",
		"node_modules/lib/index.js": "x\n",
		"src/main.go":               "package main\n",
	}, Options{Walk: walk.Options{Excludes: []string{"*.snap"}}})
	if err := os.MkdirAll(r.path(".git/objects/ab"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.write(map[string]string{
		"app.log":                   "log\n",
		"src/debug.log":             "log\n",
		"build/out.go":              "package build // rebuilt\n",
		"build/new/x.go":            "package x\n",
		"node_modules/lib/index.js": "y\n",
		"src/ui.snap":               "snap\n",
		".git/objects/ab/cdef":      "blob\n",
		".git/index":                "index\n",
	})
	r.write(map[string]string{"src/sentinel.go": "package main\n"})
	r.untilSeen("src/sentinel.go")
	r.notSeen("app.log", "src/debug.log", "build/out.go", "build/new/x.go", "node_modules/lib/index.js", "src/ui.snap", ".git/objects/ab/cdef", ".git/index")
	for _, b := range r.batches {
		if b.Rescan {
			t.Errorf("no rule changed, no rescan expected: %v", r.batches)
		}
	}
}

func TestIgnoreFileChangeRescans(t *testing.T) {
	r := start(t, map[string]string{
		".gitignore":   "build/\n",
		"build/old.go": "package build\n",
		"src/main.go":  "package main\n",
	}, Options{})

	r.write(map[string]string{".gitignore": "build/\n*.tmp\n"})
	r.untilRescan()

	r.phaseWrite(map[string]string{"src/scratch.tmp": "tmp\n", "src/sentinel.go": "package main\n"})
	r.untilSeen("src/sentinel.go")
	r.notSeen("src/scratch.tmp")

	// un-ignoring a folder starts watching it
	r.phaseWrite(map[string]string{".gitignore": "*.tmp\n"})
	r.untilRescan()
	r.phaseWrite(map[string]string{"build/new.go": "package build\n"})
	r.untilSeen("build/new.go")

	// a nested .ignore counts too
	r.phaseWrite(map[string]string{"src/.ignore": "*.go\n"})
	r.untilRescan()
	r.phaseWrite(map[string]string{"src/later.go": "package main\n", "build/sentinel.go": "package build\n"})
	r.untilSeen("build/sentinel.go")
	r.notSeen("src/later.go")
}

func TestGitHeadAndExclude(t *testing.T) {
	filetest.NeedGit(t)
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{"main.go": "package main\n"})
	filetest.Git(t, root, "init", "-q")
	filetest.Git(t, root, "add", ".")
	filetest.Git(t, root, "commit", "-q", "-m", "first")
	w, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	r := &recorder{t: t, w: w, root: root, seen: map[string]bool{}}

	filetest.Git(t, root, "checkout", "-q", "-b", "feature")
	r.untilRescan()

	r.phase()
	filetest.Write(t, root, map[string]string{".git/info/exclude": "*.local\n"})
	r.untilRescan()
	r.phase()
	filetest.Write(t, root, map[string]string{"conf.local": "x\n", "sentinel.go": "package main\n"})
	r.untilSeen("sentinel.go")
	r.notSeen("conf.local")
	for p := range r.seen {
		if strings.HasPrefix(p, ".git/") {
			t.Errorf("a path inside .git was reported: %s", p)
		}
	}
}

func TestCloseAndErrors(t *testing.T) {
	root := t.TempDir()
	w, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, root, map[string]string{"a.go": "package a\n"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for range w.Batches() {
	}
	for range w.Warnings() {
	}

	if _, err := New(filepath.Join(root, "missing"), Options{}); err == nil {
		t.Error("a missing root should be an error")
	}
	if _, err := New(filepath.Join(root, "a.go"), Options{}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file as root: %v", err)
	}
	if _, err := New(root, Options{Walk: walk.Options{Excludes: []string{"[oops"}}}); err == nil {
		t.Error("a malformed exclude should be an error")
	}
}

// A folder moved into a folder made just before keeps its watch: inotify hands the new path the moved
// folder's descriptor, which goes away with the old path.
func TestFolderMovedIntoNewFolder(t *testing.T) {
	r := start(t, map[string]string{"d0/a.go": "package d\n", "d0/sub/b.go": "package sub\n"}, Options{Debounce: 5 * time.Millisecond})
	dir := "d0"
	for i := 1; i <= 40; i++ {
		next := fmt.Sprintf("m%d", i)
		if err := os.MkdirAll(r.path(next), 0o755); err != nil {
			t.Fatal(err)
		}
		r.rename(dir, next+"/in")
		dir = next + "/in"
		r.phase()
		r.untilSeen(dir+"/a.go", dir+"/sub/b.go")
		time.Sleep(time.Duration(i%4) * 5 * time.Millisecond) // the old path's late events land in between
		r.phase()
		name := fmt.Sprintf("a%d.go", i)
		r.rename(dir+"/a.go", dir+"/"+name)
		r.write(map[string]string{dir + "/sub/b.go": fmt.Sprintf("package sub // %d\n", i)})
		r.untilSeen(dir+"/"+name, dir+"/sub/b.go")
		r.rename(dir+"/"+name, dir+"/a.go")
	}
}
