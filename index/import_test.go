package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/store"
)

// An import killed half-way leaves its folder in the cache; the next start removes it, under the
// cache's lock, and builds as usual.
func TestKilledImportIsRemovedAtTheNextStart(t *testing.T) {
	if env := os.Getenv("CTXMAP_IMPORT_CHILD"); env != "" {
		// the process to kill: it imports from the pipe its parent feeds and stops feeding
		f := strings.Split(env, "\n")
		_, err := Import(context.Background(), Options{Root: f[0], CacheDir: f[1], Config: &withoutVectors}, f[2])
		t.Fatalf("the import ended: %v", err)
	}
	cache := t.TempDir()
	root, exported := committed(t, t.TempDir())
	archive, err := os.ReadFile(exported)
	if err != nil {
		t.Fatal(err)
	}
	openBuilt(t, root, cache).Close()
	fifo := filepath.Join(t.TempDir(), "index.tar")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledImportIsRemovedAtTheNextStart$")
	cmd.Env = append(os.Environ(), "CTXMAP_IMPORT_CHILD="+root+"\n"+cache+"\n"+fifo)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// all but the end of the archive, and then nothing: the child waits in the middle of its last file
	pipe, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pipe.Close()
	if _, err := pipe.Write(archive[:len(archive)-2048]); err != nil {
		t.Fatal(err)
	}
	var left []string
	filetest.Eventually(t, time.Minute, "the import to write", func() bool {
		left, _ = filepath.Glob(filepath.Join(cache, "import-*", "*"))
		return len(left) > 0
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if dirs, _ := filepath.Glob(filepath.Join(cache, "import-*")); len(dirs) == 0 {
		t.Fatalf("the killed import left nothing (it had written %v): the test proves nothing", left)
	}
	ix := openBuilt(t, root, cache)
	defer ix.Close()
	if dirs, _ := filepath.Glob(filepath.Join(cache, "import-*")); len(dirs) > 0 {
		t.Errorf("after the next start, %v is still there", dirs)
	}
	if st := ix.Snapshot().Stats(); st.Files != len(sample) {
		t.Errorf("after the next start: %d files, want %d", st.Files, len(sample))
	}
}

// The file an import leaves beside the state, damaged at any offset: the build after it reads the files
// again and equals a fresh build, and Verify names the file.
func TestDamagedFreshStatIsHarmlessAndVerified(t *testing.T) {
	ctx := context.Background()
	origin, exported := committed(t, t.TempDir())
	clone := filepath.Join(t.TempDir(), "clone")
	filetest.Git(t, origin, "clone", "-q", origin, clone)
	imported := t.TempDir()
	if _, err := Import(ctx, Options{Root: clone, CacheDir: imported, Config: &withoutVectors}, exported); err != nil {
		t.Fatal(err)
	}
	fresh := openBuilt(t, clone, t.TempDir())
	want := snapshotState(t, fresh)
	fresh.Close()
	for _, d := range damages {
		name := fmt.Sprintf("%s %.0f%%", d.how, 100*d.frac)
		cache := copyCache(t, imported)
		filetest.Damage(t, store.FreshPath(cache), d.how, d.frac)
		said, err := Verify(ctx, Options{Root: clone, CacheDir: cache, Config: &withoutVectors})
		if err != nil || !strings.Contains(strings.Join(said, "\n"), "fresh.stat") {
			t.Errorf("%s: Verify = %q, %v; want it to name fresh.stat", name, said, err)
		}
		cache = copyCache(t, imported)
		filetest.Damage(t, store.FreshPath(cache), d.how, d.frac)
		ix := openBuilt(t, clone, cache)
		if got := snapshotState(t, ix); got != want {
			t.Errorf("%s: the build differs from a fresh one:\n%s", name, firstDiff(got, want))
		}
		ix.Close()
	}
}
