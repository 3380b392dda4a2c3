package index

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/watch"
)

// A branch switch that rewrites thousands of files, seen through the watcher as the language server
// sees it: a few batched updates, queries answered all along from the last good snapshot, and in the
// end the same index as a fresh build. CTXMAP_RELIABILITY=full switches 10,000 files.
func TestBranchSwitchStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and commits thousands of files")
	}
	n := 2000
	if os.Getenv("CTXMAP_RELIABILITY") == "full" {
		n = 10000
	}
	root := t.TempDir()
	files := map[string]string{}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("pkg%02d/file%05d.go", i%50, i)] = fmt.Sprintf("package pkg%02d\n\n// Order%d is placed by a customer.\nfunc Order%d() int { return %d }\n", i%50, i, i, i)
	}
	writeFiles(t, root, files)
	git(t, root, "init", "-q", "-b", "main")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "orders")
	git(t, root, "checkout", "-q", "-b", "refunds")
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("pkg%02d/file%05d.go", i%50, i)
		if i%10 == 0 {
			os.Remove(root + "/" + p)
			continue
		}
		files[p] = fmt.Sprintf("package pkg%02d\n\n// Refund%d returns a payment.\nfunc Refund%d() int { return %d }\n", i%50, i, i, i)
		os.WriteFile(root+"/"+p, []byte(files[p]), 0o644)
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "refunds")
	git(t, root, "checkout", "-q", "main")

	ix := open(t, root, "")
	defer ix.Close()
	w, err := watch.New(root, watch.Options{Walk: ix.Config().WalkOptions()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var batches atomic.Int32
	go func() { // the server's loop
		for b := range w.Batches() {
			batches.Add(1)
			if b.Rescan {
				ix.Build(context.Background(), nil)
			} else {
				ix.Update(context.Background(), b.Paths)
			}
		}
	}()
	stop := make(chan struct{})
	var queries, failed atomic.Int32
	var peak atomic.Uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // an editor asking all along
		defer wg.Done()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := ix.Context(context.Background(), Request{Text: "a customer's payment is returned twice", Budget: 800})
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
	git(t, root, "checkout", "-q", "refunds")
	want := n - n/10
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s := ix.Snapshot()
		if len(s.Symbols["Refund1"]) == 1 && len(s.Symbols["Order1"]) == 0 && len(s.Files) == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not converged: %d files, Refund1 %v, Order1 %v", len(s.Files), s.Symbols["Refund1"], s.Symbols["Order1"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	converged := time.Since(began)
	close(stop)
	wg.Wait()
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
