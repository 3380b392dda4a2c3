package index

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/watch"
)

// reliability is how many rounds a reliability test runs: short, or long with CTXMAP_RELIABILITY=full.
func reliability(short, long int) int {
	if os.Getenv("CTXMAP_RELIABILITY") == "full" {
		return long
	}
	return short
}

// A branch switch that rewrites thousands of files, seen through the watcher as the language server
// sees it: a few batched updates, queries answered all along from the last good snapshot, and in the
// end the same index as a fresh build. CTXMAP_RELIABILITY=full switches 10,000 files.
func TestBranchSwitchStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and commits thousands of files")
	}
	n := reliability(2000, 10000)
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("pkg%02d/file%05d.go", i%50, i)] = fmt.Sprintf("package pkg%02d\n\n// Order%d is placed by a customer.\nfunc Order%d() int { return %d }\n", i%50, i, i, i)
	}
	writeFiles(t, root, files)
	filetest.Git(t, root, "init", "-q", "-b", "main")
	filetest.Git(t, root, "add", "-A")
	filetest.Git(t, root, "commit", "-q", "-m", "orders")
	filetest.Git(t, root, "checkout", "-q", "-b", "refunds")
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("pkg%02d/file%05d.go", i%50, i)
		if i%10 == 0 {
			os.Remove(root + "/" + p)
			continue
		}
		files[p] = fmt.Sprintf("package pkg%02d\n\n// Refund%d returns a payment.\nfunc Refund%d() int { return %d }\n", i%50, i, i, i)
		os.WriteFile(root+"/"+p, []byte(files[p]), 0o644)
	}
	filetest.Git(t, root, "add", "-A")
	filetest.Git(t, root, "commit", "-q", "-m", "refunds")
	filetest.Git(t, root, "checkout", "-q", "main")

	ix := open(t, root, "")
	defer ix.Close()
	w, err := watch.New(root, watch.Options{Walk: ix.Config().WalkOptions()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var batches, applying atomic.Int32
	go func() { // the server's loop
		for b := range w.Batches() {
			applying.Add(1)
			batches.Add(1)
			if b.Rescan {
				ix.Build(context.Background(), nil)
			} else {
				ix.Update(context.Background(), b.Paths)
			}
			applying.Add(-1)
		}
	}()
	stop := make(chan struct{})
	var queries, failed atomic.Int32
	var peak atomic.Uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // an editor asking all along, twenty times a second (more would take the cores the update needs)
		defer wg.Done()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			res, err := ask(context.Background(), ix, Request{Text: "a customer's payment is returned twice", Budget: 800})
			queries.Add(1)
			if err != nil || len(res.Pack.Items) == 0 || res.Pack.Tokens > 800 {
				failed.Add(1)
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
		}
	}()
	began := time.Now()
	filetest.Git(t, root, "checkout", "-q", "refunds")
	want := n - n/10
	deadline := time.Now().Add(2 * time.Minute)
	filetest.Eventually(t, 2*time.Minute, "the index to hold the new branch", func() bool {
		s := ix.Snapshot()
		return len(s.Symbols["Refund1"]) == 1 && len(s.Symbols["Order1"]) == 0 && s.files.Len() == want
	})
	converged := time.Since(began)
	close(stop)
	wg.Wait()
	// the files are there; the last batches (the history of the new HEAD, the entities) may still be
	// applying: wait until no batch has come or run for a while
	for last, quiet := batches.Load(), time.Now(); time.Since(quiet) < 500*time.Millisecond && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b := batches.Load(); b != last || applying.Load() > 0 {
			last, quiet = b, time.Now()
		}
	}
	t.Logf("%d files switched: converged in %v through %d batches; %d queries meanwhile, %d failed; peak heap in use %d MiB",
		n, converged.Round(time.Millisecond), batches.Load(), queries.Load(), failed.Load(), peak.Load()>>20)
	if failed.Load() > 0 {
		t.Errorf("%d of %d queries during the switch failed", failed.Load(), queries.Load())
	}
	if b := batches.Load(); b > 20 {
		t.Errorf("%d batches for one branch switch", b)
	}
	fresh := open(t, root, "")
	defer fresh.Close()
	got, exp := ix.Snapshot().Stats(), fresh.Snapshot().Stats()
	if got.Files != exp.Files || got.Definitions != exp.Definitions || got.References != exp.References || got.Entities != exp.Entities {
		t.Errorf("after the switch %+v, a fresh build %+v", got, exp)
	}
}

// Random sequences of edits, creations, deletions, renames of files and folders, .gitignore changes
// and branch switches, seen only through the watcher (as the server sees them): after each sequence
// the index settles to exactly what a fresh build of the tree gives. CTXMAP_RELIABILITY=full runs 1,000.
func TestIncrementalThroughWatcher(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for file events")
	}
	sequences := reliability(15, 1000)
	seed := filetest.Seed(t)
	rng := rand.New(rand.NewSource(seed))
	root := t.TempDir()
	writeFiles(t, root, sample)
	filetest.Git(t, root, "init", "-q", "-b", "main")
	filetest.Git(t, root, "add", "-A")
	filetest.Git(t, root, "commit", "-q", "-m", "rules and quality profiles")
	filetest.Git(t, root, "branch", "side")
	ix := open(t, root, "")
	defer ix.Close()
	branch := "main"
	w, err := watch.New(root, watch.Options{Debounce: 20 * time.Millisecond, Walk: ix.Config().WalkOptions()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	go func() {
		for b := range w.Batches() {
			if b.Rescan {
				ix.Build(context.Background(), nil)
			} else {
				ix.Update(context.Background(), b.Paths)
			}
		}
	}()
	dirs := []string{"rule", "qualityprofile", "web", "extra", "extra/deep"}
	files := func() []string {
		var out []string
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.Contains(p, "/.git/") {
				r, _ := filepath.Rel(root, p)
				out = append(out, filepath.ToSlash(r))
			}
			return nil
		})
		return out
	}
	for seq := 0; seq < sequences; seq++ {
		var did []string
		for k := 0; k < 1+rng.Intn(4); k++ {
			list := files()
			pick := func() string { return list[rng.Intn(len(list))] }
			switch op := rng.Intn(9); {
			case op <= 2 || len(list) < 3: // edit or create a file
				d := dirs[rng.Intn(len(dirs))]
				p := fmt.Sprintf("%s/f%d.go", d, rng.Intn(6))
				body := fmt.Sprintf("package %s\n\n// Rule%d checks a quality profile.\nfunc Rule%d() string { return \"rule %d\" }\n", path.Base(d), seq, seq, rng.Intn(9))
				writeFiles(t, root, map[string]string{p: body})
				did = append(did, "write "+p)
			case op == 3:
				p := pick()
				os.Remove(filepath.Join(root, p))
				did = append(did, "delete "+p)
			case op == 4:
				p := pick()
				q := path.Dir(p) + "/moved" + strconv.Itoa(seq) + path.Ext(p)
				os.Rename(filepath.Join(root, p), filepath.Join(root, q))
				did = append(did, "rename "+p+" "+q)
			case op == 5: // a whole folder goes away, or moves
				d := dirs[2+rng.Intn(len(dirs)-2)]
				if rng.Intn(2) == 0 {
					os.RemoveAll(filepath.Join(root, d))
					did = append(did, "rmdir "+d)
				} else {
					os.MkdirAll(filepath.Join(root, d+"2"), 0o755)
					os.Rename(filepath.Join(root, d), filepath.Join(root, d+"2", "in"))
					did = append(did, "mvdir "+d)
				}
			case op == 8: // what is there is committed, and the other branch checked out
				filetest.Git(t, root, "add", "-A")
				filetest.Git(t, root, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("sequence %d", seq))
				branch = map[string]string{"main": "side", "side": "main"}[branch]
				filetest.Git(t, root, "checkout", "-q", branch)
				did = append(did, "checkout "+branch)
			default: // the ignore rules change
				rules := []string{"", "*.js\n", "extra/\n", "web/\n*.md\n"}[rng.Intn(4)]
				writeFiles(t, root, map[string]string{".gitignore": rules})
				did = append(did, fmt.Sprintf(".gitignore %q", rules))
			}
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			fresh := open(t, root, "")
			got, want := snapshotState(t, ix), snapshotState(t, fresh)
			fresh.Close()
			if got == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("seed %d, sequence %d (%v): the watched index never matched a fresh build:\n%s", seed, seq, did, firstDiff(got, want))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
