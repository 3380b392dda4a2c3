package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/internal/store/storetest"
)

// The cache across starts: what a warm start reads and derives again, a build stopped midway, a
// damaged or private cache, one that cannot be made.

func TestWarmStartParsesNothing(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, sample)
	cache := t.TempDir()
	ix := open(t, root, cache)
	ix.Close()
	ix2, err := Open(context.Background(), Options{Root: root, CacheDir: cache, Config: &Config{}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	st := mustBuild(t, ix2)
	if st.Parsed != 0 || st.Files != len(sample) {
		t.Fatalf("warm start parsed %d files (want 0), has %d files", st.Parsed, st.Files)
	}
}

// A build stopped midway (the editor closed during the first index, or during a large change) keeps the
// batches it wrote: the next start reads only the rest, and ends equal to a fresh build.
func TestStoppedBuildGoesOnAtTheNextStart(t *testing.T) {
	root := t.TempDir()
	n := 2*loadBatch + 50
	topics := strings.Fields("severity language tag owner status template repository branch")
	write := func(funcs int) {
		files := map[string]string{}
		for i := 0; i < n; i++ {
			// term counts that differ from file to file, so that no two files tie in BM25
			doc := strings.Repeat("rule ", 1+i%9) + strings.Repeat(topics[i%len(topics)]+" ", 1+i%23) + strings.Repeat("profile ", 1+i%5)
			src := fmt.Sprintf("package rule\n\n// Rule%d is about %s\ntype Rule%d struct{}\n", i, doc, i)
			for f := 0; f < funcs; f++ { // more definitions than before: more chunks than the old records name
				src += fmt.Sprintf("\n// Search%d_%d finds the rule variants to export.\nfunc Search%d_%d() string { return \"rule\" }\n", i, f, i, f)
			}
			files[fmt.Sprintf("rule/r%04d.go", i)] = src
		}
		writeFiles(t, root, files)
	}
	stopMidway := func(ix *Index) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := ix.Build(ctx, func(done, _ int) {
			if done > batchOf(n)+10 { // in the second batch: the first is in the stores
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a stopped build returned %v", err)
		}
	}
	cache := t.TempDir()
	for round, funcs := range []int{0, 2} {
		write(funcs)
		ix := mustOpen(t, Options{Root: root, CacheDir: cache})
		stopMidway(ix)
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
		ix = mustOpen(t, Options{Root: root, CacheDir: cache})
		st := mustBuild(t, ix)
		if st.Files != n || st.Parsed != n-batchOf(n) {
			t.Errorf("round %d: the next start has %d files and parsed %d; want %d and %d (the first batch was kept)", round, st.Files, st.Parsed, n, n-batchOf(n))
		}
		fresh := open(t, root, t.TempDir())
		// the generated files' texts tie in the vector space, where ties fall in insertion order: the
		// vectors are compared by count, the rest exactly
		got, want := snapshotState(t, ix, "vectors"), snapshotState(t, fresh, "vectors")
		gotVecs, wantVecs := ix.vectors.Loaded().Count(), fresh.vectors.Loaded().Count()
		fresh.Close()
		if got != want {
			t.Fatalf("round %d: after a stopped build, the index differs from a fresh build:\n%s", round, firstDiff(got, want))
		}
		if gotVecs != wantVecs {
			t.Errorf("round %d: %d vectors after a stopped build, %d in a fresh build", round, gotVecs, wantVecs)
		}
		ix.Close()
	}
}

// A warm start over an unchanged tree (here without git) derives nothing again and writes nothing; a
// file read again with the same content keeps the derivation but has its new time saved.
func TestWarmStartDerivesNothing(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, sample)
	cache := t.TempDir()
	ix := open(t, root, cache)
	gen := ix.Snapshot().Generation
	ix.Close()
	state := filepath.Join(cache, "index.state")
	saved, err := os.Stat(state)
	if err != nil {
		t.Fatal(err)
	}
	var parsed int
	reopen := func() (*Index, *Snapshot) {
		ix := mustOpen(t, Options{Root: root, CacheDir: cache})
		opened := ix.Snapshot()
		st := mustBuild(t, ix)
		parsed = st.Parsed
		return ix, opened
	}
	ix, opened := reopen()
	s := ix.Snapshot()
	if s.Generation != gen || s.Graph != opened.Graph || s.Entities != opened.Entities || s.History != opened.History {
		t.Errorf("unchanged tree: generation %d -> %d, derived again: graph %v, entities %v, history %v", gen, s.Generation,
			s.Graph != opened.Graph, s.Entities != opened.Entities, s.History != opened.History)
	}
	ix.Close()
	if st, err := os.Stat(state); err != nil || !st.ModTime().Equal(saved.ModTime()) || st.Size() != saved.Size() {
		t.Errorf("unchanged tree: the cache was written again (%v)", err)
	}

	touched := time.Now().Add(time.Hour).Truncate(time.Second)
	if err := os.Chtimes(filepath.Join(root, "rule/rule.go"), touched, touched); err != nil {
		t.Fatal(err)
	}
	ix, opened = reopen()
	if s := ix.Snapshot(); s.Generation != gen || s.Graph != opened.Graph || s.Record("rule/rule.go").ModTime != touched.UnixNano() {
		t.Errorf("touched file: generation %d -> %d, graph derived again %v, time %d", gen, s.Generation, s.Graph != opened.Graph, s.Record("rule/rule.go").ModTime)
	}
	ix.Close()
	ix, _ = reopen()
	if parsed != 0 {
		t.Errorf("the touched file's time was not saved: %d parsed", parsed)
	}
	ix.Close()

	writeFiles(t, root, map[string]string{"rule/rule.go": sample["rule/rule.go"] + "\n// Another rule.\nfunc Another() {}\n"})
	ix, opened = reopen()
	defer ix.Close()
	if s := ix.Snapshot(); s.Generation == gen || s.Graph == opened.Graph || len(s.Symbols["Another"]) != 1 {
		t.Errorf("changed file: generation %d -> %d, graph derived again %v, Another %v", gen, s.Generation, s.Graph != opened.Graph, s.Symbols["Another"])
	}
}

func TestCorruptCacheIsRebuilt(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, sample)
	cache := t.TempDir()
	open(t, root, cache).Close()
	if err := os.WriteFile(filepath.Join(cache, "index.state"), []byte("garbage, not a cache"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := mustOpen(t, Options{Root: root, CacheDir: cache})
	defer ix.Close()
	warned := strings.Join(ix.Warnings(), "\n")
	if !strings.Contains(warned, "corrupt") {
		t.Errorf("no warning about the corrupt cache: %q", warned)
	}
	st := mustBuild(t, ix)
	if st.Files != len(sample) || st.Parsed != len(sample) {
		t.Fatalf("after a corrupt cache: %d files, %d parsed", st.Files, st.Parsed)
	}
}

func TestBadInput(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, sample)
	big := strings.Repeat("// padding line for a file that is far too large\n", 30000)
	writeFiles(t, root, map[string]string{
		"bin/blob.go":       "package x\x00\x01\x02\x00binary",
		"bad/utf8.go":       "package bad\n\n// caf\xe9 \xff\xfe\nfunc Broken\xff() {}\n",
		"huge/huge.go":      big,
		"web/app.min.js":    strings.Repeat("var a=1;", 5000),
		"gen/model.pb.go":   "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage gen\n",
		"empty/empty.py":    "",
		"locked/secret.go":  "package locked\n",
		"unknown/data.bin2": "whatever",
		"deep/deep.go":      "package deep\n\nfunc Nested() int {\n\treturn " + strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000) + "\n}\n\nfunc AfterTheNesting() {}\n",
	})
	line := make([]byte, 100<<20) // one line of 100 MB
	for i := range line {
		line[i] = 'x'
	}
	if err := os.WriteFile(filepath.Join(root, "huge/line.txt"), line, 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "empty/empty.py"), nil, 0o644)
	if err := os.Symlink(root, filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.TempDir(), filepath.Join(root, "outside")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(root, "locked"), 0)
	defer os.Chmod(filepath.Join(root, "locked"), 0o755)
	ix := open(t, root, t.TempDir())
	defer ix.Close()
	st := ix.Snapshot().Stats()
	for path, reason := range map[string]string{"bin/blob.go": "binary", "huge/huge.go": "too large", "huge/line.txt": "too large", "web/app.min.js": "minified", "gen/model.pb.go": "generated"} {
		if got := ix.Snapshot().Skipped[path]; got != reason {
			t.Errorf("%s skipped as %q, want %q", path, got, reason)
		}
	}
	if ix.Snapshot().Record("bad/utf8.go") == nil {
		t.Error("a file with invalid UTF-8 was dropped instead of indexed")
	}
	// an editor's buffer larger than the limit is skipped like a large file, not handed to the parser
	ix.SetOverlay("bad/utf8.go", line)
	if err := ix.Update(context.Background(), []string{"bad/utf8.go"}); err != nil {
		t.Fatal(err)
	}
	if got := ix.Snapshot().Skipped["bad/utf8.go"]; got != "too large" {
		t.Errorf("a 100 MB buffer skipped as %q, want \"too large\"", got)
	}
	ix.ClearOverlay("bad/utf8.go")
	if err := ix.Update(context.Background(), []string{"bad/utf8.go"}); err != nil {
		t.Fatal(err)
	}
	if res, err := ask(context.Background(), ix, Request{Text: "`AfterTheNesting` is never called"}); err != nil || len(res.Files) == 0 || res.Files[0].Path != "deep/deep.go" {
		t.Errorf("the definition after 20,000 nested parentheses is not found: %v", err)
	}
	for p := range ix.Snapshot().files.Entries() {
		if strings.HasPrefix(p, "loop/") || strings.HasPrefix(p, "outside/") {
			t.Errorf("followed a symlink it must not: %s", p)
		}
	}
	if st.Files < len(sample) {
		t.Errorf("lost good files: %+v", st)
	}
	// a path that vanished between the event and the update, and one outside the root
	if err := ix.Update(context.Background(), []string{"gone/never.go", "../escape.go", "/etc/passwd"}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ix.Snapshot().Stats().Files, st.Files) {
		t.Error("an update of missing paths changed the file count")
	}
}

// The cache holds the workspace's code: its folder is for its owner only, even when it existed with
// wider permissions, so nothing inside can be reached by others (bleve writes some files 0644).
func TestCacheIsPrivate(t *testing.T) {
	root, cache := t.TempDir(), filepath.Join(t.TempDir(), "c")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, sample)
	ix := open(t, root, cache)
	ix.WaitVectors()
	ix.Close()
	filepath.Walk(cache, func(p string, fi os.FileInfo, err error) error {
		if err == nil && (p == cache && fi.Mode().Perm()&0o077 != 0 || fi.Mode().Perm()&0o022 != 0) {
			t.Errorf("%s has mode %v", p, fi.Mode().Perm())
		}
		return nil
	})
}

// A cache folder the user made stricter (0500) keeps its mode: only group's and others' rights are
// taken away.
func TestCacheFolderModeKept(t *testing.T) {
	root, cache := t.TempDir(), filepath.Join(t.TempDir(), "c")
	if err := os.MkdirAll(cache, 0o500); err != nil {
		t.Fatal(err)
	}
	os.Chmod(cache, 0o500)
	writeFiles(t, root, sample)
	ix, err := Open(context.Background(), Options{Root: root, CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if fi, err := os.Stat(cache); err != nil || fi.Mode().Perm() != 0o500 {
		t.Errorf("cache folder of mode 0500: %v after Open, %v", fi.Mode().Perm(), err)
	}
	os.Chmod(cache, 0o700)
}

// A cache folder that cannot be made (a file in its place, a read-only disk) is said once and the
// index is kept in memory: the answer comes all the same, as when another process holds the cache.
func TestCacheThatCannotBeMadeIndexesInMemory(t *testing.T) {
	root, file := t.TempDir(), filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o600)
	writeFiles(t, root, sample)
	ix, err := Open(context.Background(), Options{Root: root, CacheDir: filepath.Join(file, "cache")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer ix.Close()
	st := mustBuild(t, ix)
	if st.Cache != "" || !strings.Contains(strings.Join(st.Warnings, "\n"), "indexing in memory") {
		t.Errorf("cache %q, warnings %q; want in memory, said", st.Cache, st.Warnings)
	}
	if res, err := ask(context.Background(), ix, Request{Text: "RuleIndex search"}); err != nil || len(res.Files) == 0 {
		t.Errorf("no answer from memory: %v", err)
	}
}

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
	writeFiles(t, root, copies(files, 300, "billing/invoice%03d.go", "package billing\n\n// Invoice%[1]d totals the lines of order %[1]d.\nfunc Invoice%[1]d(lines []int) int { return len(lines) * %[1]d }\n"))
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
