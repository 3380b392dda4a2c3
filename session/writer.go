package session

import (
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// The one writer: it applies what was queued, in order, and publishes the index readers take.

func (s *Session) loop() {
	defer close(s.loopDone)
	watchLater := s.cold && s.opts.Watch // see Start
	// a background process on a cold cache was started by a question: the partial answer to it goes
	// first
	if s.cold && s.opts.Stop != nil {
		select {
		case <-s.firstPartial:
		case <-time.After(firstPartialWait):
		case <-s.ctx.Done():
			return
		}
	}
	for {
		select {
		case <-s.wake:
		case <-s.ctx.Done():
			return
		}
		for s.ctx.Err() == nil && s.step() {
		}
		if watchLater && s.isReady() && s.ctx.Err() == nil {
			watchLater = false
			s.watchMu.Lock()
			running := s.watcher != nil // a reopen meanwhile started one
			s.watchMu.Unlock()
			if !running {
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
	s.mu.Lock()
	if len(s.pending) == 0 && !s.rescan && s.reopen == nil {
		s.mu.Unlock()
		return false
	}
	edits, rescan, reopen, seq := s.pending, s.rescan, s.reopen, s.queued
	s.pending, s.rescan, s.reopen = map[string]*edit{}, false, nil
	s.indexing = rescan || reopen != nil
	s.mu.Unlock()

	if reopen != nil {
		s.reopenIndex(*reopen)
		rescan = true
	}
	ix := s.ix // only this goroutine replaces it
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
		s.yield.Lock()
		defer s.yield.Unlock()
		defer s.freePartial()
	}
	s.mu.Lock()
	s.applied = seq
	s.indexing = false
	if rescan {
		s.ready = true
		s.lastErr = err
	}
	close(s.advanced)
	s.advanced = make(chan struct{})
	s.mu.Unlock()
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
	report := s.buildReport
	end := func(string) {}
	if s.opts.Progress != nil {
		p := s.opts.Progress("ctxmap", "indexing "+filepath.Base(s.root))
		report = func(done, total int) { s.buildReport(done, total); p.Report(done, total) }
		end = p.End
	}
	s.built.Store(0)
	s.yield.Lock()
	ix.UsePartial(s.partial) // the tree as the first question's partial pack found it, the files the partial packs parsed
	s.yield.Unlock()
	st, err := ix.Build(s.ctx, report)
	s.built.Store(1000)
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
	s.ixMu.Lock()
	if s.ix != nil {
		if err := s.ix.Close(); err != nil {
			s.opts.Logf("close the index: %v", err)
		}
	}
	ix, err := index.Open(s.ctx, s.indexOptions(cfg, s.opts.InMemory))
	if err != nil {
		s.opts.Show(Error, fmt.Sprintf("ctxmap: the new settings cannot be applied: %v", err))
		cfg = s.cfg
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
	s.ix, s.cfg = ix, cfg
	s.ixMu.Unlock()
	if ix == nil {
		return
	}
	// the new index starts without the editor's buffers, and counts damaged records from nothing
	s.mu.Lock()
	s.rereadAt, s.parsedAtRefresh = 0, 0
	for rel, text := range s.buffers {
		ix.SetOverlay(rel, text)
	}
	s.mu.Unlock()
	if s.opts.Watch {
		s.startWatcher()
	}
}
