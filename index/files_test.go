package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/store"
)

// loadedRecords counts the records of s read into memory.
func loadedRecords(s *Snapshot) int {
	n := 0
	for _, e := range s.files.Entries() {
		if e.Loaded() {
			n++
		}
	}
	return n
}

// An index opened from its cache reads no record to open and to check an unchanged tree, a few to
// answer a query, and answers as the index that saved it; a damaged record costs its file until the
// next build reads the file again, and is said.
func TestReopenedIndexReadsRecordsOnDemand(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for k, v := range sample {
		files[k] = v
	}
	for i := range 300 {
		files[fmt.Sprintf("billing/invoice%03d.go", i)] = fmt.Sprintf("package billing\n\n// Invoice%d totals the lines of order %d.\nfunc Invoice%d(lines []int) int { return len(lines) * %d }\n", i, i, i, i)
	}
	writeFiles(t, root, files)
	// older than the walk's racy window, so that the next start rechecks the folders instead of walking
	past := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, past, past) })
	cache := t.TempDir()
	req := Request{Text: "search the rule variants and export the quality profile"}
	ix := open(t, root, cache)
	ix.WaitVectors() // the pack to compare with has every vector, as the reopened index's file does
	want, err := ask(context.Background(), ix, req)
	if err != nil {
		t.Fatal(err)
	}
	wantState := snapshotState(t, ix, "vectors") // many files tie for the vectors: chromem breaks ties at its cut its own way
	ix.Close()

	var warnings []string
	reopen := func() *Index {
		t.Helper()
		warnings = nil
		ix, err := Open(context.Background(), Options{Root: root, CacheDir: cache, Config: &Config{}, Logf: func(f string, a ...any) {
			warnings = append(warnings, fmt.Sprintf(f, a...))
		}})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	ix = reopen()
	st := mustBuild(t, ix)
	total := ix.Snapshot().files.Len()
	if n := loadedRecords(ix.Snapshot()); st.Parsed != 0 || n != 0 || st.Files != len(files) {
		t.Errorf("open and build of an unchanged tree: %d parsed, %d of %d records read, %d files", st.Parsed, n, total, st.Files)
	}
	if ix.listing == nil {
		t.Error("the state kept no listing of the walk")
	}
	got, err := ask(context.Background(), ix, req)
	if err != nil {
		t.Fatal(err)
	}
	if n := loadedRecords(ix.Snapshot()); n == 0 || n >= total {
		t.Errorf("a query read %d of %d records, want some and not all", n, total)
	}
	if got.Pack.Text != want.Pack.Text || !strings.Contains(got.Pack.Text, "rule/") {
		t.Errorf("the reopened index packs otherwise:\n%s\n---\n%s", got.Pack.Text, want.Pack.Text)
	}
	if s := snapshotState(t, ix, "vectors"); s != wantState {
		t.Errorf("the reopened index differs from the one that saved it:\n%s", firstDiff(s, wantState))
	}
	off, n := ix.Snapshot().files.Entries()["rule/rule.go"].Span()
	at := off + n/2
	ix.Close()

	// one byte of one record
	f, err := os.OpenFile(store.StatePath(cache), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	f.ReadAt(b, at)
	b[0] ^= 0xff
	f.WriteAt(b, at)
	f.Close()
	ix = reopen()
	defer ix.Close()
	mustBuild(t, ix)
	if len(warnings) > 0 {
		t.Errorf("damage found before the record was read: %q", warnings)
	}
	if r := ix.Snapshot().Record("rule/rule.go"); r == nil || len(r.File.Definitions) != 0 {
		t.Errorf("the damaged record reads as %+v, want the file without content", r)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "rule/rule.go") || !strings.Contains(warnings[0], "damaged") {
		t.Errorf("warnings = %q, want one naming the damaged record", warnings)
	}
	st, err = ix.Build(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := ix.Snapshot().Record("rule/rule.go"); st.Parsed != 1 || r == nil || len(r.File.Definitions) == 0 {
		t.Errorf("the next build parsed %d files and holds %+v for the damaged one", st.Parsed, r)
	}
	if s := snapshotState(t, ix, "vectors"); s != wantState {
		t.Errorf("after the damaged record is read again the index differs:\n%s", firstDiff(s, wantState))
	}
}
