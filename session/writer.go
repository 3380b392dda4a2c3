package session

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// The one writer: it applies what was queued, in order, and publishes the index readers take.

// heldIndex is the index readers take, which only the writer replaces, and what was counted of it.
type heldIndex struct {
	mu  sync.RWMutex // held for writing only while the index is reopened
	ix  *index.Index // nil only when no index could be opened again (see reopenIndex)
	cfg index.Config

	counts   sync.Mutex
	rereadAt int64 // the index's DamagedRecords when a rescan was last queued to read them again
	// the index's Parsed at the last refresh (ctxmap index asked on the socket)
	parsedAtRefresh int
}

// acquire returns the index for a read; call done when finished with it. ix is nil when no index
// could be opened again.
func (h *heldIndex) acquire() (ix *index.Index, done func()) {
	h.mu.RLock()
	return h.ix, h.mu.RUnlock
}

func (h *heldIndex) config() index.Config {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.cfg
}

// setDefaults takes cfg when it builds the same index as the one in force (its request defaults
// alone differ); false when the index must be reopened for it.
func (h *heldIndex) setDefaults(cfg index.Config) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !sameIndexConfig(cfg, h.cfg) {
		return false
	}
	h.cfg = cfg
	return true
}

// reread says whether the index now counts more damaged records (n) than when a rescan was last
// queued to read them again; the caller then queues one.
func (h *heldIndex) reread(n int64) bool {
	h.counts.Lock()
	defer h.counts.Unlock()
	more := n > h.rereadAt
	h.rereadAt = max(h.rereadAt, n)
	return more
}

// parsedSinceRefresh is what the index parsed since the last refresh, parsed being its count now.
func (h *heldIndex) parsedSinceRefresh(parsed int) int {
	h.counts.Lock()
	defer h.counts.Unlock()
	n := parsed - h.parsedAtRefresh
	h.parsedAtRefresh = parsed
	return n
}

func (h *heldIndex) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ix == nil {
		return nil
	}
	return h.ix.Close()
}

func (s *Session) loop() {
	defer close(s.queue.loopDone)
	watchLater := s.first.cold && s.opts.Watch // see Start
	// a background process on a cold cache was started by a question: the partial answer to it goes
	// first
	if s.first.cold && s.opts.Stop != nil {
		select {
		case <-s.first.firstPartial:
		case <-time.After(firstPartialWait):
		case <-s.ctx.Done():
			return
		}
	}
	for {
		select {
		case <-s.queue.wake:
		case <-s.ctx.Done():
			return
		}
		for s.ctx.Err() == nil && s.step() {
		}
		if watchLater && s.queue.isReady() && s.ctx.Err() == nil {
			watchLater = false
			if !s.watching.running() { // a reopen meanwhile started one
				s.startWatcher()
				s.Rescan()
			}
		}
	}
}

// firstPartialWait bounds how long a background process's first build waits for the partial answer to
// the question that started it.
const firstPartialWait = 5 * time.Second

// step applies what is queued; false when nothing was.
func (s *Session) step() bool {
	edits, rescan, reopen, seq, ok := s.queue.take()
	if !ok {
		return false
	}
	if reopen != nil {
		s.reopenIndex(*reopen)
		rescan = true
	}
	ix := s.ix.ix // only this goroutine replaces it
	var err error
	switch {
	case ix == nil:
		err = ErrNoIndex
	case rescan:
		s.overlay(ix, edits)
		err = s.build(ix)
	default:
		err = ix.Update(s.ctx, s.overlay(ix, edits))
		s.report(ix.Warnings())
	}
	if err != nil && s.ctx.Err() == nil {
		s.opts.Logf("index: %v", err)
		s.opts.Show(Error, fmt.Sprintf("ctxmap: %v", err))
	}
	if rescan {
		// the index is whole: what the partial answers kept goes, and none is made meanwhile
		s.first.yield.Lock()
		defer s.first.yield.Unlock()
		defer s.first.free(s.opts.Logf)
	}
	s.queue.done(seq, rescan, err)
	return true
}

// overlay hands the buffers' edits to the index and returns every changed path, sorted.
func (s *Session) overlay(ix *index.Index, edits map[string]*edit) []string {
	paths := make([]string, 0, len(edits))
	for rel, e := range edits {
		paths = append(paths, rel)
		switch {
		case e == nil:
		case e.closed:
			ix.ClearOverlay(rel)
		default:
			ix.SetOverlay(rel, e.text)
		}
	}
	sort.Strings(paths)
	return paths
}

// build walks the whole workspace, with progress shown.
func (s *Session) build(ix *index.Index) error {
	report := s.first.report
	end := func(string) {}
	if s.opts.Progress != nil {
		p := s.opts.Progress("ctxmap", "indexing "+filepath.Base(s.root))
		report = func(done, total int) { s.first.report(done, total); p.Report(done, total) }
		end = p.End
	}
	s.first.handTo(ix)
	st, err := ix.Build(s.ctx, report)
	s.first.built.Store(1000)
	if err != nil {
		end("indexing failed")
		return err
	}
	ix.LoadVectors()
	st.Warnings = append(st.Warnings, ix.Warnings()...)
	msg := fmt.Sprintf("%s files, %s definitions, %s entities in %.1fs", index.Thousands(st.Files), index.Thousands(st.Definitions), index.Thousands(st.Entities), st.Seconds)
	end(msg)
	s.opts.Show(Info, "ctxmap indexed "+s.root+": "+msg)
	if n := skippedCount(st.Skipped); n > 0 {
		s.opts.Show(Info, fmt.Sprintf("ctxmap skipped %s files (%s)", index.Thousands(n), reasons(st.Skipped)))
	}
	s.report(st.Warnings)
	return nil
}

// report shows the index's warnings, a bounded number of them.
func (s *Session) report(warnings []string) {
	const most = 20
	for i, msg := range warnings {
		if i == most {
			s.opts.Show(Warning, fmt.Sprintf("ctxmap: %d more warnings", len(warnings)-most))
			break
		}
		s.opts.Show(Warning, "ctxmap: "+msg)
	}
}

// reopenIndex opens the index again with a new configuration; requests wait meanwhile. When neither
// the new nor the old configuration opens (the cache taken by another process meanwhile, a full
// disk), the old one is served from memory, so that the session never holds a closed index.
func (s *Session) reopenIndex(cfg index.Config) {
	s.stopWatcher()
	h := &s.ix
	h.mu.Lock()
	if h.ix != nil {
		if err := h.ix.Close(); err != nil {
			s.opts.Logf("close the index: %v", err)
		}
	}
	ix, err := index.Open(s.ctx, s.indexOptions(cfg, s.opts.InMemory))
	if err != nil {
		s.opts.Show(Error, fmt.Sprintf("ctxmap: the new settings cannot be applied: %v", err))
		cfg = h.cfg
		ix, err = index.Open(s.ctx, s.indexOptions(cfg, s.opts.InMemory))
	}
	if err != nil && !s.opts.InMemory {
		s.opts.Show(Error, fmt.Sprintf("ctxmap: the index cannot be opened (%v): it is kept in memory until the next start", err))
		ix, err = index.Open(s.ctx, s.indexOptions(cfg, true))
	}
	if err != nil {
		s.opts.Show(Error, fmt.Sprintf("ctxmap: no index: %v", err))
		ix = nil
	}
	h.ix, h.cfg = ix, cfg
	// the new index counts damaged records and parsed files from nothing
	h.counts.Lock()
	h.rereadAt, h.parsedAtRefresh = 0, 0
	h.counts.Unlock()
	h.mu.Unlock()
	if ix == nil {
		return
	}
	// and starts without the editor's buffers
	s.queue.buffersTo(ix)
	if s.opts.Watch {
		s.startWatcher()
	}
}
