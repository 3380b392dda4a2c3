package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// ctxmapRun runs the ctxmap binary with cache as XDG_CACHE_HOME and returns its stdout and stderr.
func ctxmapRun(t testing.TB, bin, cache string, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, err := runFor(command(bin, cache, args...), 2*time.Minute)
	if err != nil {
		t.Fatalf("ctxmap %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return stdout, stderr
}

// Every file of a cache, flipped or cut at half of it: the next `ctxmap context` answers with a fresh
// build's pack (the run that finds damage names the file and rebuilds before it answers; a run that
// finds none was given damage that changes nothing), and `ctxmap index --verify` names the file every
// time. BenchmarkEveryCacheFileDamagedAtEveryOffset damages each at a quarter and at 97% too.
func TestEveryCacheFileDamagedAtSeveralOffsets(t *testing.T) {
	t.Parallel()
	damageEveryCacheFile(t, []float64{0.5})
}

// BenchmarkEveryCacheFileDamagedAtEveryOffset is the test above at a quarter, half and 97% of every
// file: a minute and more, so a benchmark (go test -run - -bench EveryOffset -benchtime 1x .).
func BenchmarkEveryCacheFileDamagedAtEveryOffset(b *testing.B) {
	for b.Loop() {
		damageEveryCacheFile(b, []float64{0.25, 0.5, 0.97})
	}
}

// damageEveryCacheFile damages every file of a cache at each fraction of it, flipped and cut, and
// checks what the next commands make of it.
func damageEveryCacheFile(t testing.TB, fracs []float64) {
	bin := buildBinary(t)
	root := writeWorkspace(t, 60, true)
	clean := t.TempDir()
	ctxmapRun(t, bin, clean, "index", "-q", "-C", root)
	query := []string{"context", "-q", "-C", root, "--budget", "600", "the refund of a parcel paid by card shows a wrong tax on the receipt"}
	want, _ := ctxmapRun(t, bin, clean, query...)
	names := filetest.List(t, clean, func(fi fs.FileInfo) bool { return fi.Mode().IsRegular() && fi.Size() > 0 })
	for _, want := range []string{"index.state", "vectors.bin", "vectors.gen", ".zap", "root.bolt", "index_meta.json", "ctxmap.sum"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Fatalf("the cache holds no %s: %v", want, names)
		}
	}
	copyDamaged := func(name, how string, frac float64) string {
		cache := t.TempDir()
		if err := os.CopyFS(cache, os.DirFS(clean)); err != nil {
			t.Fatal(err)
		}
		filetest.Damage(t, filepath.Join(cache, name), how, frac)
		return cache
	}
	for _, name := range names {
		base := filepath.Base(name)
		for _, how := range []string{"flip", "cut"} {
			for _, frac := range fracs {
				what := fmt.Sprintf("%s %s at %.0f%%", name, how, 100*frac)
				got, said := ctxmapRun(t, bin, copyDamaged(name, how, frac), query...)
				warned := strings.Contains(said, base)
				if got != want {
					t.Errorf("%s: the pack differs from a fresh build's (warned: %v %q):\n%s\n---\n%s", what, warned, said, got, want)
				} else if !warned {
					t.Logf("%s: not said, and harmless: the pack is a fresh build's", what)
				}
				if strings.Contains(said, "panic") && !strings.Contains(said, "is damaged") {
					t.Errorf("%s: %s", what, said)
				}
				_, said = ctxmapRun(t, bin, copyDamaged(name, how, frac), "index", "-q", "--verify", "-C", root)
				if !strings.Contains(said, base) {
					t.Errorf("%s: ctxmap index --verify does not name the file: %q", what, said)
				}
			}
		}
	}
}
