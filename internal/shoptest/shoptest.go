// Package shoptest writes the small shop workspace of testdata/shop.txtar for tests of any package.
package shoptest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/tools/txtar"
)

// Files are the files of testdata/shop.txtar.
func Files(t testing.TB) []txtar.File {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	ar, err := txtar.ParseFile(filepath.Join(filepath.Dir(here), "..", "..", "testdata", "shop.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	return ar.Files
}

// Write writes files into a new temporary folder and returns its path.
func Write(t testing.TB, files []txtar.File) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		abs := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
