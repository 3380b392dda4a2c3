package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// The workspace of a folder is its repository: the nearest folder at or above it with .ctxmap.yaml
// or .git, else the folder itself.
func TestFindRoot(t *testing.T) {
	top := t.TempDir()
	for _, dir := range []string{"repo/.git", "repo/pkg/cmd/release", "repo/tools/gen/deep/x", "loose/notes"} {
		if err := os.MkdirAll(filepath.Join(top, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	filetest.Write(t, top, map[string]string{"repo/tools/gen/.ctxmap.yaml": "budget: 2000\n"})
	top, _ = filepath.EvalSymlinks(top)
	for dir, want := range map[string]string{
		"repo":                  "repo",
		"repo/pkg/cmd/release":  "repo",
		"repo/tools/gen/deep/x": "repo/tools/gen",
		"loose/notes":           "loose/notes",
	} {
		got, err := FindRoot(filepath.Join(top, dir))
		if err != nil || got != filepath.Join(top, want) {
			t.Errorf("FindRoot(%s) = %s, %v; want %s", dir, got, err, want)
		}
	}
}

// A folder is worth serving when it holds a file of a language ctxmap reads, hidden folders aside.
func TestReadable(t *testing.T) {
	root := t.TempDir()
	if Readable(root) {
		t.Error("an empty folder is readable")
	}
	filetest.Write(t, root, map[string]string{".git/config": "[core]\n", "data.bin": "\x00\x01"})
	if Readable(root) {
		t.Error("a folder with only a hidden folder and data is readable")
	}
	filetest.Write(t, root, map[string]string{"src/app.py": "print(1)\n"})
	if !Readable(root) {
		t.Error("a folder with a Python file is not readable")
	}
}
