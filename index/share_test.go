package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/store"
)

// An export of one commit, imported into a fresh clone with one file edited, gives the index a fresh
// build of the clone gives, parsing only the edited file.
func TestExportImport(t *testing.T) {
	ctx := context.Background()
	origin := sampleRepo(t)
	exported := filepath.Join(t.TempDir(), "index.tar")
	id, err := Export(ctx, Options{Root: origin, CacheDir: t.TempDir(), Config: &Config{}}, exported)
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 64 {
		t.Errorf("export ID %q", id)
	}

	clone := filepath.Join(t.TempDir(), "clone")
	filetest.Git(t, origin, "clone", "-q", origin, clone)
	edited := map[string]string{"rule/rule.go": sample["rule/rule.go"] + "\n// Retire marks a rule as retired.\nfunc Retire(r Rule) Rule { return r }\n"}
	writeFiles(t, clone, edited)
	cache := t.TempDir()
	if got, err := Import(ctx, Options{Root: clone, CacheDir: cache, Config: &Config{}}, exported); err != nil || got != id {
		t.Fatalf("Import = %q, %v; want %q", got, err, id)
	}
	ix := mustOpen(t, Options{Root: clone, CacheDir: cache})
	defer ix.Close()
	if w := ix.Warnings(); len(w) > 0 {
		t.Errorf("opening the imported index: %v", w)
	}
	st, err := ix.Build(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Parsed != len(edited) {
		t.Errorf("parsed %d files after the import, want %d", st.Parsed, len(edited))
	}
	fresh := open(t, clone, t.TempDir())
	defer fresh.Close()
	if got, want := snapshotState(t, ix), snapshotState(t, fresh); got != want {
		t.Fatalf("imported index differs from a fresh build:\n%s", firstDiff(got, want))
	}
}

// An export of another commit, or a damaged one, is refused with a clear error and the index there
// is left as it was.
func TestImportRefuses(t *testing.T) {
	ctx := context.Background()
	root := sampleRepo(t)
	exported := filepath.Join(t.TempDir(), "index.tar")
	if _, err := Export(ctx, Options{Root: root, CacheDir: t.TempDir(), Config: &Config{}}, exported); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}

	cache := t.TempDir()
	open(t, root, cache).Close()
	before, err := os.ReadFile(store.StatePath(cache))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what, file, want string) {
		t.Helper()
		_, err := Import(ctx, Options{Root: root, CacheDir: cache, Config: &Config{}}, file)
		if !errors.Is(err, store.ErrExport) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Import = %v, want an error saying %q", what, err, want)
		}
		if after, _ := os.ReadFile(store.StatePath(cache)); string(after) != string(before) {
			t.Errorf("%s: the index there before was changed", what)
		}
	}
	// a byte changed in the middle (inside the cache's files), the file cut short, garbage
	mid := []byte(string(data))
	mid[len(mid)/2] ^= 0xff
	for what, b := range map[string][]byte{"flipped byte": mid, "cut short": data[:len(data)*2/3], "garbage": []byte(strings.Repeat("not an export ", 100))} {
		bad := filepath.Join(t.TempDir(), "bad.tar")
		if err := os.WriteFile(bad, b, 0o600); err != nil {
			t.Fatal(err)
		}
		check(what, bad, "cannot import")
	}

	writeFiles(t, root, map[string]string{"rule/rule.go": sample["rule/rule.go"] + "\n// Retire a rule.\nfunc Retire() {}\n"})
	filetest.Git(t, root, "commit", "-q", "-am", "Retire rules")
	check("another commit", exported, "the index of commit")
}

// withoutVectors is the configuration of the tests of what a build reads after an import. The export
// of a workspace this small often lacks vectors.gen (vector.Indexer.Wait can return before the worker
// marks the generation done), and the importer then reads every file again to check its vectors: not
// what these tests are about.
var withoutVectors = Config{Vectors: new(false)}

// committed makes a git repository of the sample, its files an hour old so that a clone's differ from
// them, and exports its index to the returned file, keeping the index in cache.
func committed(t *testing.T, cache string) (root, exported string) {
	t.Helper()
	root = t.TempDir()
	writeFiles(t, root, sample)
	old := time.Now().Add(-time.Hour)
	for p := range sample {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
	filetest.Git(t, root, "init", "-q")
	filetest.Git(t, root, "add", ".")
	filetest.Git(t, root, "commit", "-q", "-m", "Add rule search and quality profiles")
	exported = filepath.Join(t.TempDir(), "index.tar")
	if _, err := Export(context.Background(), Options{Root: root, CacheDir: cache, Config: &withoutVectors}, exported); err != nil {
		t.Fatal(err)
	}
	return root, exported
}

func openBuilt(t *testing.T, root, cache string) *Index {
	t.Helper()
	ix := mustOpen(t, Options{Root: root, CacheDir: cache, Config: &withoutVectors})
	mustBuild(t, ix)
	return ix
}

// scramble gives each file other bytes of the same size and its time back: a build that trusts the
// records' size and time does not see it, one that reads the file parses it. restore puts the files
// back as they were.
func scramble(t *testing.T, root string, paths []string) (restore func()) {
	t.Helper()
	type saved struct {
		data []byte
		mod  time.Time
	}
	was := map[string]saved{}
	put := func(abs string, data []byte, mod time.Time) {
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(abs, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range paths {
		abs := filepath.Join(root, p)
		fi, err := os.Stat(abs)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		was[abs] = saved{data, fi.ModTime()}
		other := slices.Clone(data)
		slices.Reverse(other)
		put(abs, other, fi.ModTime())
	}
	return func() {
		for abs, s := range was {
			put(abs, s.data, s.mod)
		}
	}
}

// Imported into a fresh clone, whose files all have new times, an export spares the first build
// reading any file again, and the index answers as the exported one.
func TestImportReadsNothingInAFreshClone(t *testing.T) {
	ctx := context.Background()
	cacheA := t.TempDir()
	origin, exported := committed(t, cacheA)
	ixA := openBuilt(t, origin, cacheA)
	defer ixA.Close()

	clone := filepath.Join(t.TempDir(), "clone")
	filetest.Git(t, origin, "clone", "-q", origin, clone)
	cache := t.TempDir()
	if _, err := Import(ctx, Options{Root: clone, CacheDir: cache, Config: &withoutVectors}, exported); err != nil {
		t.Fatal(err)
	}
	restore := scramble(t, clone, slices.Collect(maps.Keys(sample)))
	ix := mustOpen(t, Options{Root: clone, CacheDir: cache, Config: &withoutVectors})
	defer ix.Close()
	st := mustBuild(t, ix)
	if st.Parsed != 0 || len(st.Warnings) > 0 {
		t.Errorf("the first build after the import read files again: %d parsed, warnings %v", st.Parsed, st.Warnings)
	}
	restore()
	if got, want := snapshotState(t, ix), snapshotState(t, ixA); got != want {
		t.Fatalf("imported index answers otherwise than the exported one:\n%s", firstDiff(got, want))
	}
}

// Files edited in the clone, staged or not, and new ones are read and parsed after an import, even
// with the size they had; the others are not read.
func TestImportReadsWhatDiffers(t *testing.T) {
	ctx := context.Background()
	origin, exported := committed(t, t.TempDir())
	clone := filepath.Join(t.TempDir(), "clone")
	filetest.Git(t, origin, "clone", "-q", origin, clone)
	edited := map[string]string{
		"rule/rule.go":             strings.Replace(sample["rule/rule.go"], "Description", "Explanation", 1),
		"qualityprofile/export.py": strings.Replace(sample["qualityprofile/export.py"], "as XML", "as CSV", 1),
	}
	// git does not look at a file marked assume-unchanged: its word on it is no proof
	filetest.Git(t, clone, "update-index", "--assume-unchanged", "web/app.js")
	edited["web/app.js"] = strings.Replace(sample["web/app.js"], "rule list", "rule LIST", 1)
	for p, c := range edited {
		if len(c) != len(sample[p]) || c == sample[p] {
			t.Fatalf("%s: the edit must keep the size", p)
		}
	}
	writeFiles(t, clone, edited)
	filetest.Git(t, clone, "add", "qualityprofile/export.py")
	added := map[string]string{"rule/retire.go": "package rule\n\n// Retire marks a rule as retired.\nfunc Retire(r Rule) Rule { return r }\n"}
	writeFiles(t, clone, added)

	cache := t.TempDir()
	if _, err := Import(ctx, Options{Root: clone, CacheDir: cache, Config: &withoutVectors}, exported); err != nil {
		t.Fatal(err)
	}
	var others []string
	for p := range sample {
		if _, ok := edited[p]; !ok {
			others = append(others, p)
		}
	}
	restore := scramble(t, clone, others)
	ix := mustOpen(t, Options{Root: clone, CacheDir: cache, Config: &withoutVectors})
	st := mustBuild(t, ix)
	if want := len(edited) + len(added); st.Parsed != want || len(st.Warnings) > 0 {
		t.Errorf("parsed %d files after the import, want %d; warnings %v", st.Parsed, want, st.Warnings)
	}
	snap := ix.Snapshot()
	for p, c := range edited {
		if sum := sha256.Sum256([]byte(c)); snap.Record(p) == nil || snap.Record(p).Hash != hex.EncodeToString(sum[:16]) {
			t.Errorf("%s: the index does not hold the edited content", p)
		}
	}
	if snap.Record("rule/retire.go") == nil {
		t.Error("the new file is not indexed")
	}
	restore()
	fresh := openBuilt(t, clone, t.TempDir())
	defer fresh.Close()
	if got, want := snapshotState(t, ix), snapshotState(t, fresh); got != want {
		t.Fatalf("imported index differs from a fresh build:\n%s", firstDiff(got, want))
	}
	// the build saved the state, whose records now carry the times: what the import left beside the
	// state it put in place goes at the next start
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	openBuilt(t, clone, cache).Close()
	if _, err := os.Stat(filepath.Join(cache, "fresh.stat")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fresh.stat is still there after the state was saved again: %v", err)
	}
}
