package bm25

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// built is an index of 600 chunks in three batches, closed.
func built(t *testing.T) string {
	t.Helper()
	return filled(t, 3, 200, ruleDoc)
}

// ruleDoc is chunk n of the indexes these tests damage.
func ruleDoc(n int) Doc {
	return doc(fmt.Sprintf("pkg%d/f%d.go#0", n%7, n), fmt.Sprintf("rule profile word%d word%d order%d invoice", n, n%13, n%31))
}

// filled is an index of batches of per chunks each, chunk n being docOf(n), written a batch at a
// time and closed.
func filled(tb testing.TB, batches, per int, docOf func(n int) Doc) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "lex")
	s, err := Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for b := range batches {
		var docs []Doc
		for i := range per {
			docs = append(docs, docOf(b*per+i))
		}
		if err := s.Replace(nil, docs); err != nil {
			tb.Fatal(err)
		}
	}
	if err := s.SetMeta("generation", []byte("12345678")); err != nil {
		tb.Fatal(err)
	}
	if err := s.Close(); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// answers are what an open index says: its count and a search's scores.
func answers(t *testing.T, s *Store) string {
	t.Helper()
	n, err := s.Count()
	if err != nil {
		return "count: " + err.Error()
	}
	hits, err := s.Search(context.Background(), []Term{{Word: "rule", Weight: 1}, {Word: "word7", Weight: 2}, {Word: "order3", Weight: 1}}, 50, nil)
	if err != nil {
		return "search: " + err.Error()
	}
	return fmt.Sprint(n, hits)
}

// Every file of a closed index, flipped or cut at a quarter, half and 97% of it: the next open names
// the file, or the index answers as before; Verify names it every time.
func TestDamageFoundOnOpen(t *testing.T) {
	clean := built(t)
	s, err := Open(clean)
	if err != nil {
		t.Fatal(err)
	}
	want := answers(t, s)
	s.Close()
	files := filetest.List(t, clean, nil)
	if !strings.Contains(strings.Join(files, " "), ".zap") || !slices.Contains(files, manifestName) {
		t.Fatalf("the index holds %v: no segment or no manifest", files)
	}
	for _, rel := range files {
		for _, how := range []string{"flip", "cut"} {
			for _, frac := range []float64{0.25, 0.5, 0.97} {
				name := fmt.Sprintf("%s %s %.0f%%", rel, how, 100*frac)
				dir := filepath.Join(t.TempDir(), "lex")
				if err := os.CopyFS(dir, os.DirFS(clean)); err != nil {
					t.Fatal(err)
				}
				filetest.Damage(t, filepath.Join(dir, rel), how, frac)
				if err := Verify(dir); !namesFile(err, rel) {
					t.Errorf("%s: Verify = %v, want it to name the file", name, err)
				}
				s, err := Open(dir)
				if err != nil {
					if !namesFile(err, rel) {
						t.Errorf("%s: open says %v, naming another file", name, err)
					} else {
						t.Logf("%s: %v", name, err)
					}
					continue
				}
				if got := answers(t, s); got != want {
					t.Errorf("%s: open said nothing, and the index answers otherwise:\n%s\n---\n%s", name, got, want)
				} else if rel != manifestName {
					t.Logf("%s: harmless", name)
				}
				s.Close()
			}
		}
	}
}

func namesFile(err error, rel string) bool {
	var d *DamagedError
	return errors.As(err, &d) && strings.HasSuffix(d.File, rel)
}

// A segment is read again only when it changed since the last close: an unchanged one is trusted to
// the manifest, one written since (same name, other time) is checked.
func TestUnchangedSegmentsAreNotReadAgain(t *testing.T) {
	// one batch, one segment: with several, an open may merge the damaged one away in the background
	dir := filled(t, 1, 600, ruleDoc)
	m, ok, err := readManifest(dir)
	if !ok || err != nil {
		t.Fatalf("no manifest after Close: %v", err)
	}
	var seg string
	for rel := range m {
		if isSegment(rel) {
			seg = filepath.Join(dir, rel)
		}
	}
	// damaged without its size or time changing, as a disk's bit rot would: open trusts the
	// manifest, Verify does not
	fi, _ := os.Stat(seg)
	filetest.Damage(t, seg, "flip", 0.5)
	os.Chtimes(seg, fi.ModTime(), fi.ModTime())
	if err := Verify(dir); !namesFile(err, filepath.Base(seg)) {
		t.Errorf("Verify = %v, want it to name %s", err, seg)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("open read an unchanged segment: %v", err)
	}
	// a search that fails makes Close check every segment, and leave the damaged one out of the
	// manifest: the next open reads it, and names it
	s.distrust()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !namesFile(err, filepath.Base(seg)) {
		t.Errorf("the open after a failed search: %v, want it to name %s", err, seg)
	}
}

// The checks an open makes, on an index of 20,000 chunks: with the manifest of the last close (every
// segment checked before: the usual start) and without one (the first start after a crash, and what
// Verify reads). go test -run '^$' -bench CheckOnOpen ./internal/bm25/
func BenchmarkCheckOnOpen(b *testing.B) {
	dir := filled(b, 20, 1000, func(n int) Doc {
		var code strings.Builder
		for j := range 60 {
			fmt.Fprintf(&code, "word%d term%d ", (n*7+j)%5000, (n+j*13)%977)
		}
		return doc(fmt.Sprintf("pkg%d/f%d.go#0", n%50, n), code.String())
	})
	var size int64
	files, _ := indexFiles(dir)
	for _, f := range files {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil {
			size += fi.Size()
		}
	}
	b.Logf("%d files, %.1f MiB", len(files), float64(size)/(1<<20))
	b.Run("manifest", func(b *testing.B) {
		for b.Loop() {
			if _, err := checkFiles(dir, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			if err := Verify(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}
