package session

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// partialAfter is how long a request waits for the first build before it is answered from the files
// that match it (a build that ends sooner answers in full): a warm start's recheck of a large tree
// takes about that. A cold build is not waited for.
const partialAfter = time.Second

// firstBuild is what the partial answers keep while the first build runs, and how far it is.
type firstBuild struct {
	yield   sync.RWMutex   // held by a partial answer; the build's workers wait on it (see Partial)
	partial *index.Partial // the partial answers' state until the first build is done; under yield
	cold    bool           // the cache held no index: the first build reads every file
	// closed when the first partial answer is made (see loop)
	firstPartial chan struct{}
	partialOnce  sync.Once
	built        atomic.Uint64 // the running build's share done, in thousandths
}

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
	if s.first.cold {
		after = 0
	}
	wait, cancel := context.WithTimeout(ctx, after)
	defer cancel()
	if s.WaitApplied(wait, 0) {
		return nil, nil, false
	}
	f := &s.first
	f.yield.Lock()
	unlock := func() {
		f.asked()
		f.yield.Unlock()
	}
	if s.queue.isReady() {
		unlock()
		return nil, nil, false
	}
	if f.partial == nil {
		cfg := s.Config()
		f.partial = index.NewPartial(index.Options{Root: s.root, Config: &cfg, Logf: s.opts.Logf})
	}
	start := time.Now()
	pix, read, err := f.partial.Prepare(ctx, req, f.share())
	if err != nil {
		s.opts.Logf("partial pack: %v", err)
		if !errors.Is(err, index.ErrNothingMatches) {
			f.free(s.opts.Logf) // half made: the next question starts again
		}
		unlock()
		return nil, nil, false
	}
	// the build reads them next: the questions meanwhile are about them
	full, release := s.ix.acquire()
	if full != nil {
		full.ReadFirst(read.Parsed)
	}
	release()
	files := f.partial.Files()
	return pix, func() {
		s.opts.Logf("partial pack from %d files (%d read for it) in %.2fs, the index %.0f%% built", files, len(read.Parsed),
			time.Since(start).Seconds(), 100*f.share())
		unlock()
	}, true
}

// free frees what the partial packs kept; the caller holds yield.
func (f *firstBuild) free(logf func(string, ...any)) {
	if f.partial == nil {
		return
	}
	if err := f.partial.Close(); err != nil {
		logf("close the partial index: %v", err)
	}
	f.partial = nil
}

// drop frees what the partial packs kept, once no partial answer is being made.
func (f *firstBuild) drop(logf func(string, ...any)) {
	f.yield.Lock()
	defer f.yield.Unlock()
	f.free(logf)
}

// asked lets a background process's first build go (see loop): a question was answered, or will not
// have a partial pack.
func (f *firstBuild) asked() {
	f.partialOnce.Do(func() { close(f.firstPartial) })
}

// handTo starts a build's share from nothing and hands ix the tree as the first question's partial
// pack found it and the files the partial packs parsed.
func (f *firstBuild) handTo(ix *index.Index) {
	f.built.Store(0)
	f.yield.Lock()
	defer f.yield.Unlock()
	ix.UsePartial(f.partial)
}

// report is the build's progress as the session keeps it: the share done, and a pause while a
// partial answer is made.
func (f *firstBuild) report(done, total int) {
	f.yield.RLock() // the build's worker waits here while a partial answer is made
	defer f.yield.RUnlock()
	if total > 0 {
		f.built.Store(uint64(done) * 1000 / uint64(total))
	}
}

// share is the share of the running build done, 0 to 1.
func (f *firstBuild) share() float64 { return float64(f.built.Load()) / 1000 }

// PartialPacks says whether the session answers a context request with a partial pack while its
// first build runs (see Partial); one in memory, for tests and tools, waits for the build instead.
func (s *Session) PartialPacks() bool { return !s.opts.InMemory }

// FirstBuild is the share of the first build done, 0 to 1, and whether it is done (or the session
// closed): what a front end tells a caller that waits for it.
func (s *Session) FirstBuild() (share float64, done bool) {
	if s.queue.isReady() {
		return 1, true
	}
	return s.first.share(), false
}
