package server

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"
)

// Load: context requests and hovers all at once against an index that edits keep changing; every
// request is answered, none fails, and the goroutines come back to where they were. The default is a
// small run; CTXMAP_LOAD=full runs 1,000 context requests and 10,000 hovers.
func TestLoad(t *testing.T) {
	// not parallel: it counts the goroutines of the whole test process
	contexts, hovers := 40, 400
	if os.Getenv("CTXMAP_LOAD") == "full" {
		contexts, hovers = 1000, 10000
	}
	c := readyNotes(t)
	baseline := runtime.NumGoroutine()
	text := c.read("gist/gist.go")
	c.open("gist/gist.go", text)

	stop := make(chan struct{})
	edited := make(chan int)
	go func() { // an editor typing: a new version of the buffer every few milliseconds
		n := 0
		defer func() { edited <- n }()
		for v := 2; ; v++ {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			c.notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": c.uri("gist/gist.go"), "version": v},
				"contentChanges": []map[string]any{{"text": text + fmt.Sprintf("\n// edit %d\nfunc Edit%d() {}\n", v, v)}},
			})
			n++
		}
	}()

	var mu sync.Mutex
	var ctxTimes, hoverTimes []time.Duration
	var failures []error
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64) // a busy client, not an unbounded one
	run := func(kind string, f func() error) {
		defer wg.Done()
		sem <- struct{}{}
		defer func() { <-sem }()
		start := time.Now()
		err := f()
		d := time.Since(start)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures = append(failures, fmt.Errorf("%s: %w", kind, err))
		} else if kind == "context" {
			ctxTimes = append(ctxTimes, d)
		} else {
			hoverTimes = append(hoverTimes, d)
		}
	}
	pos := positionOf(t, text, "Gist", 0, 1)
	began := time.Now()
	launched := 0
	for i := 0; i < contexts+hovers; i++ {
		wg.Add(1)
		if launched < contexts && i%(1+hovers/contexts) == 0 {
			launched++
			go run("context", func() error {
				var pack struct{ Tokens, Budget int }
				err := c.command(cmdContext, map[string]any{"text": "publishing a gist loses its files", "budget": 1500}, &pack)
				if err == nil && pack.Tokens > pack.Budget {
					err = fmt.Errorf("%d tokens over a budget of %d", pack.Tokens, pack.Budget)
				}
				return err
			})
			continue
		}
		go run("hover", func() error {
			var h any
			return c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": c.uri("gist/gist.go")},
				"position": pos}, &h)
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	close(stop)
	edits := <-edited
	if len(failures) > 0 {
		t.Fatalf("%d requests failed, first: %v", len(failures), failures[0])
	}
	t.Logf("%d context requests p50 %v p95 %v; %d hovers p50 %v p95 %v; %d edits meanwhile; %v in all",
		len(ctxTimes), pct(ctxTimes, 50), pct(ctxTimes, 95), len(hoverTimes), pct(hoverTimes, 50), pct(hoverTimes, 95), edits, elapsed.Round(time.Millisecond))
	if len(ctxTimes)+len(hoverTimes) != contexts+hovers {
		t.Errorf("%d answers for %d requests", len(ctxTimes)+len(hoverTimes), contexts+hovers)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > baseline+5 {
		if time.Now().After(deadline) {
			t.Errorf("goroutines: %d before the load, %d after", baseline, runtime.NumGoroutine())
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)*p/100].Round(time.Microsecond)
}
