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

// Context answers a request with the session's configuration as its defaults; while the first build
// runs, with a partial pack (see Partial).
func (s *Session) Context(ctx context.Context, req index.Request) (res *index.Result, err error) {
	resolved, err := req.Resolve(s.Config())
	if err != nil {
		return nil, err
	}
	if res, ok := s.Partial(ctx, resolved); ok {
		return res, nil
	}
	err = s.Read(ctx, func(ix *index.Index) error {
		res, _, err = s.context(ctx, ix, resolved)
		return err
	})
	return res, err
}

// context answers a resolved request. A record found damaged since the last rescan (by this request
// or a build, and said) counts as its file without content: a rescan is queued, whose build reads the
// file again, and reread is true.
func (s *Session) context(ctx context.Context, ix *index.Index, req index.Resolved) (res *index.Result, reread bool, err error) {
	res, err = ix.Context(ctx, req)
	s.report(ix.Warnings()) // what the request found (damage, a store left out) is said now
	n := ix.DamagedRecords()
	s.mu.Lock()
	reread = n > s.rereadAt
	s.rereadAt = max(s.rereadAt, n)
	s.mu.Unlock()
	if reread {
		s.Rescan()
	}
	return res, reread, err
}

// Explore lists the chunks about an entity.
func (s *Session) Explore(ctx context.Context, name string, limit int) (ex *index.Exploration, err error) {
	err = s.Read(ctx, func(ix *index.Index) error {
		ex, err = ix.Explore(name, limit)
		return err
	})
	return ex, err
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
