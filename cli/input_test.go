package cli

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An empty workspace, or one of files ctxmap cannot read, is said on stderr: a failure for a command
// that needs code, a warning beside the stats for ctxmap index.
func TestEmptyWorkspaceIsSaid(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	empty := t.TempDir()
	for _, args := range [][]string{{"context", "anything"}, {"map", "--format", "text"}, {"entities"}} {
		code, stdout, stderr := run(append([]string{args[0], "-C", empty}, args[1:]...)...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "nothing to read") || !strings.Contains(stderr, "is empty") {
			t.Errorf("%s on an empty folder: exit %d, stdout %q, stderr %q", args[0], code, stdout, stderr)
		}
	}
	code, stdout, stderr := run("index", "-C", empty)
	if code != 0 || !strings.Contains(stdout, "0 files") || !strings.Contains(stderr, "is empty") {
		t.Errorf("index on an empty folder: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	odd := t.TempDir()
	if err := os.WriteFile(filepath.Join(odd, "notes.xyz"), []byte("plain words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = run("context", "-C", odd, "anything")
	if code != 1 || !strings.Contains(stderr, "unsupported 1") || !strings.Contains(stderr, "ctxmap reads ") || !strings.Contains(stderr, "python") {
		t.Errorf("context on unsupported files: exit %d: %s", code, stderr)
	}
}

// index --json names every skipped file with its reason; a file of random bytes is binary whatever
// its name.
func TestIndexNamesEverySkippedFile(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	noise := make([]byte, 200<<10)
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"main.go": []byte("package main\n\nfunc main() {}\n"), "blob.dat": noise, "data/random": noise}
	want := map[string]string{"blob.dat": "binary", "data/random": "binary"}
	for i := range 120 { // more than any list would show by default
		name := filepath.Join("assets", "icon"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".svgz")
		files[name] = []byte("plain text of no language\n")
		want[filepath.ToSlash(name)] = "unsupported"
	}
	for name, b := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := run("index", "-C", root, "--json")
	if code != 0 {
		t.Fatalf("index --json: exit %d: %s", code, stderr)
	}
	var st struct {
		Files        int            `json:"files"`
		Skipped      map[string]int `json:"skipped"`
		SkippedFiles []struct{ Path, Reason string }
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range st.SkippedFiles {
		got[s.Path] = s.Reason
	}
	if st.Files != 1 || len(got) != len(want) || st.Skipped["binary"] != 2 || st.Skipped["unsupported"] != 120 {
		t.Fatalf("%d files, skipped %v, %d named", st.Files, st.Skipped, len(got))
	}
	for p, r := range want {
		if got[p] != r {
			t.Errorf("%s: skipped as %q, want %q", p, got[p], r)
		}
	}
}
