package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An export of one commit, imported into a fresh clone with one file edited, gives the index a fresh
// build of the clone gives, parsing only the edited file.
func TestExportImport(t *testing.T) {
	ctx := context.Background()
	origin := t.TempDir()
	writeFiles(t, origin, sample)
	git(t, origin, "init", "-q")
	git(t, origin, "add", ".")
	git(t, origin, "commit", "-q", "-m", "Add rule search and quality profiles")
	exported := filepath.Join(t.TempDir(), "index.tar")
	id, err := Export(ctx, Options{Root: origin, CacheDir: t.TempDir(), Config: &Config{}}, exported)
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 64 {
		t.Errorf("export ID %q", id)
	}

	clone := filepath.Join(t.TempDir(), "clone")
	git(t, origin, "clone", "-q", origin, clone)
	edited := map[string]string{"rule/rule.go": sample["rule/rule.go"] + "\n// Retire marks a rule as retired.\nfunc Retire(r Rule) Rule { return r }\n"}
	writeFiles(t, clone, edited)
	cache := t.TempDir()
	if got, err := Import(ctx, Options{Root: clone, CacheDir: cache, Config: &Config{}}, exported); err != nil || got != id {
		t.Fatalf("Import = %q, %v; want %q", got, err, id)
	}
	ix, err := Open(ctx, Options{Root: clone, CacheDir: cache, Config: &Config{}})
	if err != nil {
		t.Fatal(err)
	}
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
	root := t.TempDir()
	writeFiles(t, root, sample)
	git(t, root, "init", "-q")
	git(t, root, "add", ".")
	git(t, root, "commit", "-q", "-m", "Add rule search and quality profiles")
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
	before, err := os.ReadFile(statePath(cache))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what, file, want string) {
		t.Helper()
		_, err := Import(ctx, Options{Root: root, CacheDir: cache, Config: &Config{}}, file)
		if !errors.Is(err, ErrExport) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Import = %v, want an error saying %q", what, err, want)
		}
		if after, _ := os.ReadFile(statePath(cache)); string(after) != string(before) {
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
	git(t, root, "commit", "-q", "-am", "Retire rules")
	check("another commit", exported, "the index of commit")
}
