package session

import (
	"context"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// quickAfter is how long a request waits for the first build before it is answered from the files
// that match it (a build that ends sooner answers in full): a warm start's recheck of a large tree
// takes about that. A cold build is not waited for.
const quickAfter = time.Second

// Quick answers a request while the first build runs: from the files its strong terms match,
// read into an index of their own (index.QuickContext), the pack marked partial. The build yields
// meanwhile (it waits at its next file), so that the answer comes in seconds on two cores. ok is
// false once the index is whole, or when no quick pack could be made.
func (s *Session) Quick(ctx context.Context, req index.Resolved) (res *index.Result, ok bool) {
	if s.opts.InMemory {
		return nil, false // a session for tests and tools: no quick answers
	}
	after := quickAfter
	if s.cold {
		after = 0
	}
	wait, cancel := context.WithTimeout(ctx, after)
	defer cancel()
	if s.WaitApplied(wait, 0) {
		return nil, false
	}
	s.yield.Lock()
	defer s.yield.Unlock()
	defer s.quickOnce.Do(func() { close(s.firstQuick) })
	if s.isReady() {
		return nil, false
	}
	cfg := s.Config()
	start := time.Now()
	res, read, err := index.QuickContext(ctx, index.Options{Root: s.root, Config: &cfg, Logf: s.opts.Logf}, req, s.builtShare())
	if err != nil {
		s.opts.Logf("quick pack: %v", err)
		return nil, false
	}
	s.opts.Logf("quick pack from %d files in %.2fs, the index %.0f%% built", len(read), time.Since(start).Seconds(), 100*s.builtShare())
	return res, true
}

// isReady says whether the first build is done.
func (s *Session) isReady() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready || s.closed
}

// buildReport is the build's progress as the session keeps it: the share done, and a pause while a
// quick answer is made.
func (s *Session) buildReport(done, total int) {
	s.yield.RLock() // the build's worker waits here while a quick answer is made
	defer s.yield.RUnlock()
	if total > 0 {
		s.built.Store(uint64(done) * 1000 / uint64(total))
	}
}

// builtShare is the share of the running build done, 0 to 1.
func (s *Session) builtShare() float64 { return float64(s.built.Load()) / 1000 }
