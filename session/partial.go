package session

import (
	"context"
	"errors"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// partialAfter is how long a request waits for the first build before it is answered from the files
// that match it (a build that ends sooner answers in full): a warm start's recheck of a large tree
// takes about that. A cold build is not waited for.
const partialAfter = time.Second

// Partial answers a request while the first build runs: from the files its strong terms match,
// read into an index of their own (index.Partial), the pack marked partial. The build yields meanwhile
// (it waits at its next file), so that the answer comes in seconds on two cores. The walk, what the
// scan learned of every file and the partial index are kept until the build is done: a later question
// adds its few best files to that index and is answered in a tenth of the time. Partial readies that
// index for req; done is called once the pack is made, and lets the build go on. ok is false once the
// index is whole, or when no partial pack could be made.
func (s *Session) Partial(ctx context.Context, req index.Resolved) (ix *index.Index, done func(), ok bool) {
	if s.opts.InMemory {
		return nil, nil, false // a session for tests and tools: no partial answers
	}
	after := partialAfter
	if s.cold {
		after = 0
	}
	wait, cancel := context.WithTimeout(ctx, after)
	defer cancel()
	if s.WaitApplied(wait, 0) {
		return nil, nil, false
	}
	s.yield.Lock()
	unlock := func() {
		s.partialOnce.Do(func() { close(s.firstPartial) })
		s.yield.Unlock()
	}
	if s.isReady() {
		unlock()
		return nil, nil, false
	}
	if s.partial == nil {
		cfg := s.Config()
		s.partial = index.NewPartial(index.Options{Root: s.root, Config: &cfg, Logf: s.opts.Logf})
	}
	start := time.Now()
	pix, read, err := s.partial.Prepare(ctx, req, s.builtShare())
	if err != nil {
		s.opts.Logf("partial pack: %v", err)
		if !errors.Is(err, index.ErrNothingMatches) {
			s.freePartial() // half made: the next question starts again
		}
		unlock()
		return nil, nil, false
	}
	// the build reads them next: the questions meanwhile are about them
	full, release := s.acquire()
	if full != nil {
		full.ReadFirst(read.Parsed)
	}
	release()
	files := s.partial.Files()
	return pix, func() {
		s.opts.Logf("partial pack from %d files (%d read for it) in %.2fs, the index %.0f%% built", files, len(read.Parsed),
			time.Since(start).Seconds(), 100*s.builtShare())
		unlock()
	}, true
}

// freePartial frees what the partial packs kept; the caller holds yield.
func (s *Session) freePartial() {
	if s.partial == nil {
		return
	}
	if err := s.partial.Close(); err != nil {
		s.opts.Logf("close the partial index: %v", err)
	}
	s.partial = nil
}

// isReady says whether the first build is done.
func (s *Session) isReady() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready || s.closed
}

// buildReport is the build's progress as the session keeps it: the share done, and a pause while a
// partial answer is made.
func (s *Session) buildReport(done, total int) {
	s.yield.RLock() // the build's worker waits here while a partial answer is made
	defer s.yield.RUnlock()
	if total > 0 {
		s.built.Store(uint64(done) * 1000 / uint64(total))
	}
}

// builtShare is the share of the running build done, 0 to 1.
func (s *Session) builtShare() float64 { return float64(s.built.Load()) / 1000 }

// PartialPacks says whether the session answers a context request with a partial pack while its
// first build runs (see Partial); one in memory, for tests and tools, waits for the build instead.
func (s *Session) PartialPacks() bool { return !s.opts.InMemory }

// FirstBuild is the share of the first build done, 0 to 1, and whether it is done (or the session
// closed): what a front end tells a caller that waits for it.
func (s *Session) FirstBuild() (share float64, done bool) {
	if s.isReady() {
		return 1, true
	}
	return s.builtShare(), false
}
