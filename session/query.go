package session

import (
	"context"
	"path/filepath"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// Snapshot is the index as it stands once the changes queued so far are in (or settleWait passed);
// an empty one when there is no index.
func (s *Session) Snapshot(ctx context.Context) *index.Snapshot {
	s.Settle(ctx)
	ix, done := s.ix.acquire()
	defer done()
	if ix == nil {
		return &index.Snapshot{Root: s.root}
	}
	return ix.Snapshot()
}

// Read settles, then calls f with the index, which stays open until f returns.
func (s *Session) Read(ctx context.Context, f func(ix *index.Index) error) error {
	s.Settle(ctx)
	ix, done := s.ix.acquire()
	defer done()
	if ix == nil {
		return ErrNoIndex
	}
	return f(ix)
}

// Context answers a context request, as the user typed it, with the session's configuration (see
// index.Answer); while the first build runs, with a partial pack (see Partial); after it, without
// waiting for the vectors (the front ends answer with OpContext, which waits for them).
func (s *Session) Context(ctx context.Context, req index.Request) (*index.Result, error) {
	return index.Answer(ctx, sessionPacks{s: s}, req)
}

// sessionPacks are the packs of a session, as an index.Source; oneShot ones are made as a one-shot
// process would make them (the socket's): once the first build and the embeddings are in.
type sessionPacks struct {
	s       *Session
	oneShot bool
}

func (p sessionPacks) Config() index.Config { return p.s.Config() }

// Ready is the partial index while the first build runs (see Partial), else the session's, settled,
// held until done.
func (p sessionPacks) Ready(ctx context.Context, req index.Resolved) (*index.Index, func() bool, error) {
	s := p.s
	if ix, done, ok := s.Partial(ctx, req); ok {
		return ix, func() bool { done(); return false }, nil
	}
	if p.oneShot {
		if err := s.WaitReady(ctx); err != nil {
			return nil, nil, err
		}
		if err := s.empty(); err != nil {
			return nil, nil, err
		}
	}
	s.Settle(ctx)
	ix, release := s.ix.acquire()
	if ix == nil {
		release()
		return nil, nil, ErrNoIndex
	}
	if p.oneShot {
		ix.WaitVectors()
	}
	return ix, func() bool {
		defer release()
		s.report(ix.Warnings()) // what the request found (damage, a store left out) is said now
		return s.ix.reread(ix.DamagedRecords())
	}, nil
}

// ReadAgain has the writer rescan: its build reads the files of the damaged records again.
func (p sessionPacks) ReadAgain(ctx context.Context) error {
	if !p.s.WaitApplied(ctx, p.s.Rescan()) {
		return ctx.Err()
	}
	return nil
}

// ReadFile is a workspace file's content on disk, without waiting for the writer.
func (s *Session) ReadFile(rel string) ([]byte, error) {
	ix, done := s.ix.acquire()
	defer done()
	if ix == nil {
		return nil, ErrNoIndex
	}
	return ix.ReadFile(rel)
}

// rescanned walks the whole workspace again and waits until what it found is applied.
func (s *Session) rescanned(ctx context.Context) error {
	if !s.WaitApplied(ctx, s.Rescan()) {
		return ctx.Err()
	}
	return nil
}

// refresh brings the index up to date with the disk, as ctxmap index does in its own process, and
// returns its stats.
func (s *Session) refresh(ctx context.Context) (index.Stats, error) {
	start := time.Now()
	var st index.Stats
	if err := s.rescanned(ctx); err != nil {
		return st, err
	}
	err := s.Read(ctx, func(ix *index.Index) error {
		ix.WaitVectors()
		st = ix.Snapshot().Stats()
		st.Vectors = ix.VectorStatus()
		// what this process parsed since the last refresh (or its start): its watcher may have read
		// an edit before the rescan did
		st.Parsed = s.ix.parsedSinceRefresh(ix.Parsed())
		return nil
	})
	if err != nil {
		return st, err
	}
	if s.listener != nil {
		st.Cache = filepath.Dir(s.listener.path)
	}
	st.Seconds = time.Since(start).Seconds()
	return st, nil
}

// empty is the answer for a workspace with nothing to read, as a command in its own process says it
// (which folder, and why each file was skipped); nil when there is something.
func (s *Session) empty() error {
	ix, done := s.ix.acquire()
	defer done()
	if ix == nil {
		return nil
	}
	snap := ix.Snapshot()
	if len(snap.Paths) > 0 {
		return nil
	}
	if err := snap.Stats().Empty(); err != nil {
		return finalError{err}
	}
	return nil
}
