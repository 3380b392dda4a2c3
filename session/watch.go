package session

import (
	"fmt"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/internal/watch"
)

// watchDebounce is short: the writer already folds the changes that arrive while it works into one
// update, so a longer wait would only add latency to a single save.
const watchDebounce = 20 * time.Millisecond

// watching is the session's watcher, while it runs, and the goroutines that feed the queue from it.
type watching struct {
	mu      sync.Mutex
	watcher *watch.Watcher
	feeds   sync.WaitGroup
}

// startWatcher follows the disk with the same rules the index walks by; without it, the front end's
// own file events and rescans still keep the index current.
func (s *Session) startWatcher() {
	cfg := s.Config()
	wt, err := watch.New(s.root, watch.Options{Debounce: watchDebounce, Walk: cfg.WalkOptions()})
	if err != nil {
		s.opts.Logf("watch: %v", err)
		s.opts.Show(Warning, fmt.Sprintf("ctxmap does not watch the disk (%v): changes come from the editor's file events and ctxmap.reindex", err))
		return
	}
	w := &s.watching
	w.mu.Lock()
	w.watcher = wt
	w.mu.Unlock()
	w.feeds.Add(2)
	go func() {
		defer w.feeds.Done()
		for b := range wt.Batches() {
			if b.Rescan {
				s.Rescan()
			} else if len(b.Paths) > 0 {
				s.Changed(b.Paths)
			}
		}
	}()
	go func() {
		defer w.feeds.Done()
		for msg := range wt.Warnings() {
			s.opts.Show(Warning, "ctxmap: "+msg)
		}
	}()
}

func (s *Session) stopWatcher() {
	w := &s.watching
	w.mu.Lock()
	wt := w.watcher
	w.watcher = nil
	w.mu.Unlock()
	if wt != nil {
		if err := wt.Close(); err != nil {
			s.opts.Logf("close the watcher: %v", err)
		}
	}
	w.feeds.Wait()
}

func (w *watching) running() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.watcher != nil
}
