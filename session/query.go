package session

import (
	"context"

	"github.com/ctxmap/ctxmap/index"
)

// Snapshot is the index as it stands once the changes queued so far are in (or settleWait passed);
// an empty one when there is no index.
func (s *Session) Snapshot(ctx context.Context) *index.Snapshot {
	s.Settle(ctx)
	ix, done := s.acquire()
	defer done()
	if ix == nil {
		return &index.Snapshot{Root: s.root}
	}
	return ix.Snapshot()
}

// Read settles, then calls f with the index, which stays open until f returns.
func (s *Session) Read(ctx context.Context, f func(ix *index.Index) error) error {
	s.Settle(ctx)
	ix, done := s.acquire()
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
	ix, release := s.acquire()
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
		n := ix.DamagedRecords()
		s.mu.Lock()
		defer s.mu.Unlock()
		reread := n > s.rereadAt
		s.rereadAt = max(s.rereadAt, n)
		return reread
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
	ix, done := s.acquire()
	defer done()
	if ix == nil {
		return nil, ErrNoIndex
	}
	return ix.ReadFile(rel)
}
