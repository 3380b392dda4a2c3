package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/store/storetest"
)

// copyCache copies the cache folder clean to a new folder.
func copyCache(t *testing.T, clean string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "cache")
	if err := os.CopyFS(dst, os.DirFS(clean)); err != nil {
		t.Fatal(err)
	}
	return dst
}

var damages = []struct {
	how  string
	frac float64
}{{"flip", 0.25}, {"flip", 0.5}, {"flip", 0.97}, {"cut", 0.25}, {"cut", 0.5}, {"cut", 0.97}}

// The run that finds the vector file damaged never answers with half a store: a one-shot query (after
// WaitVectors) answers once the vectors are made again, as a fresh build would; a server answers
// without vectors until then, and says so.
func TestDamagedVectorsNeverMakeHalfAPack(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, withGizmo())
	req := Request{Text: "the gizmo stops turning when a rule is activated", Format: "json"}
	packOf := func(ix *Index, req Request) string {
		t.Helper()
		res, err := ask(context.Background(), ix, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Pack.Text
	}
	clean := t.TempDir()
	ix, _ := openWith(t, root, clean, Embedding{})
	want := packOf(ix, req)
	without := req
	without.Without = []string{"vectors"}
	wantWithout := packOf(ix, without)
	if want == wantWithout {
		t.Fatal("the vectors change nothing in this pack: the test proves nothing")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	for _, d := range damages {
		name := fmt.Sprintf("%s %.0f%%", d.how, 100*d.frac)
		// a one-shot process: the damage is found by the query's scan of the file
		cache := copyCache(t, clean)
		filetest.Damage(t, filepath.Join(cache, "vectors", "vectors.bin"), d.how, d.frac)
		ix, _ := openWith(t, root, cache, Embedding{})
		got := packOf(ix, req)
		warned := strings.Join(ix.Warnings(), "\n")
		ix.Close()
		if got != want {
			t.Errorf("%s, one-shot: the first pack differs from a fresh build's:\n%s\n---\n%s", name, got, want)
		}
		if !strings.Contains(warned, "vectors.bin") {
			t.Errorf("%s, one-shot: no warning naming vectors.bin: %q", name, warned)
		}
		// a server: the store is loaded at the start, and the packs go without vectors until they are
		// made again
		cache = copyCache(t, clean)
		filetest.Damage(t, filepath.Join(cache, "vectors", "vectors.bin"), d.how, d.frac)
		ix = mustOpen(t, Options{Root: root, CacheDir: cache})
		ix.LoadVectors()
		warned = strings.Join(ix.Warnings(), "\n")
		if !strings.Contains(warned, "vectors.bin") || !strings.Contains(warned, "without vectors") {
			t.Errorf("%s, server: the warning does not name vectors.bin and say packs go without vectors: %q", name, warned)
		}
		if got := packOf(ix, req); got != wantWithout && got != want {
			t.Errorf("%s, server: a pack made while the vectors are made again is neither without them nor with all:\n%s", name, got)
		}
		ix.WaitVectors()
		if got := packOf(ix, req); got != want {
			t.Errorf("%s, server: once the vectors are made again, the pack differs from a fresh build's:\n%s\n---\n%s", name, got, want)
		}
		ix.Close()
	}
}

// A record the pack needs, damaged: the request that reads it says so and leaves the file out; a build
// then reads the file again, and the same request answers as a fresh build (what the CLI does).
func TestDamagedRecordIsReadAgainByTheNextBuild(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeFiles(t, root, sample)
	cfg := withoutVectors
	req := Request{Text: "RuleIndex.Search drops long words"}
	build := func() *Index {
		t.Helper()
		ix := mustOpen(t, Options{Root: root, CacheDir: cache, Config: &cfg})
		mustBuild(t, ix)
		return ix
	}
	packOf := func(ix *Index) string {
		t.Helper()
		resolved, err := req.Resolve(ix.Config())
		if err != nil {
			t.Fatal(err)
		}
		res, err := ix.Context(context.Background(), resolved)
		if err != nil {
			t.Fatal(err)
		}
		return res.Pack.Text
	}
	ix := build()
	want := packOf(ix)
	ix.Close()
	storetest.DamageRecord(t, cache, root, "rule/index.go")
	ix = build()
	defer ix.Close()
	before := ix.DamagedRecords()
	got := packOf(ix)
	if ix.DamagedRecords() == before || !strings.Contains(strings.Join(ix.Warnings(), "\n"), "rule/index.go is damaged") {
		t.Fatalf("the damaged record of rule/index.go was not said: %q", ix.Warnings())
	}
	if got == want {
		t.Log("the pack without rule/index.go is the same: the request proves little")
	}
	mustBuild(t, ix)
	if got := packOf(ix); got != want {
		t.Errorf("after the build, the pack differs from a fresh build's:\n%s\n---\n%s", got, want)
	}
}
