package vector

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/embed"
)

// An indexer saves its store once a generation is complete and the worker has been idle a while, not
// only when it closes: a read-only indexer of another process then searches it where it lies, and
// writes nothing.
func TestSettledVectorsAreReadInPlace(t *testing.T) {
	dir := t.TempDir()
	opts := IndexerOptions{Embedder: embed.Default(), Dir: dir, GenFile: filepath.Join(dir, "vectors.gen"), Warn: t.Errorf}
	owner := NewIndexer(opts)
	defer owner.Close()
	byPath := map[string][]Doc{}
	for _, d := range sample {
		byPath[d.Path] = append(byPath[d.Path], d)
	}
	for p, docs := range byPath {
		owner.Put(p, docs)
	}
	owner.Kick(1)
	owner.Wait()

	opts.ReadOnly = true
	reader := NewIndexer(opts)
	for deadline := time.Now().Add(3 * saveDelay); !reader.Complete(1); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the settled vectors were not saved")
		}
	}
	before := files(t, dir)
	if hits := reader.Search(context.Background(), "delete a file", 2); len(hits) != 2 || hits[0].Path != "fs/remove.go" {
		t.Errorf("the reader's hits: %v", paths(hits))
	}
	reader.Put("new.go", []Doc{{ID: "new.go#1", Path: "new.go", Text: "func added()"}})
	reader.Remove("fs/remove.go")
	reader.Wait()
	reader.Close()
	if after := files(t, dir); len(after) != len(before) {
		t.Errorf("the reader changed the store's folder: %v, then %v", before, after)
	} else {
		for name, mod := range before {
			if after[name] != mod {
				t.Errorf("the reader wrote %s", name)
			}
		}
	}
}

// files are the files of dir with their modification times.
func files(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Time{}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			out[e.Name()] = fi.ModTime()
		}
	}
	return out
}
