package session

import (
	"fmt"
	"time"

	"github.com/ctxmap/ctxmap/internal/watch"
)

// watchDebounce is short: the writer already folds the changes that arrive while it works into one
// update, so a longer wait would only add latency to a single save.
const watchDebounce = 20 * time.Millisecond

// startWatcher follows the disk with the same rules the index walks by; without it, the front end's
// own file events and rescans still keep the index current.
func (s *Session) startWatcher() {
	cfg := s.cfg
	wt, err := watch.New(s.root, watch.Options{Debounce: watchDebounce, Walk: cfg.WalkOptions()})
	if err != nil {
		s.opts.Logf("watch: %v", err)
		s.opts.Show(Warning, fmt.Sprintf("ctxmap does not watch the disk (%v): changes come from the editor's file events and ctxmap.reindex", err))
		return
	}
	s.watchMu.Lock()
	s.watcher = wt
	s.watchMu.Unlock()
	s.feeds.Add(2)
	go func() {
		defer s.feeds.Done()
		for b := range wt.Batches() {
			if b.Rescan {
				s.Rescan()
			} else if len(b.Paths) > 0 {
				s.Changed(b.Paths)
			}
		}
	}()
	go func() {
		defer s.feeds.Done()
		for msg := range wt.Warnings() {
			s.opts.Show(Warning, "ctxmap: "+msg)
		}
	}()
}

func (s *Session) stopWatcher() {
	s.watchMu.Lock()
	wt := s.watcher
	s.watcher = nil
	s.watchMu.Unlock()
	if wt != nil {
		if err := wt.Close(); err != nil {
			s.opts.Logf("close the watcher: %v", err)
		}
	}
	s.feeds.Wait()
}
