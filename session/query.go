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
// answer); while the first build runs, with a partial pack (see Partial).
func (s *Session) Context(ctx context.Context, req index.Request) (*index.Result, error) {
	return answer(ctx, sessionPacks{s: s}, req)
}

// ContextAlone answers a context request from ix, an index this process opened for itself (a
// command that no running process answered), as a session answers it (see answer).
func ContextAlone(ctx context.Context, ix *index.Index, req index.Request) (*index.Result, error) {
	return answer(ctx, ownPacks{ix}, req)
}

// packs is where a pack is made: a session's index, or an index a command opened for itself.
type packs interface {
	config() index.Config // the workspace's configuration, with the editor's settings over it
	// context makes the pack; reread says a record was found damaged since its files were last read again
	context(ctx context.Context, req index.Resolved) (res *index.Result, reread bool, err error)
	readAgain(ctx context.Context) error // the files of the damaged records read again
}

// answer is the one way a context request is answered, whatever front end asked: resolved once, here,
// with the configuration of where it is answered. A record found damaged while the pack is made (and
// said) counts as its file without content: the file is read again and the pack made again, once.
func answer(ctx context.Context, where packs, req index.Request) (*index.Result, error) {
	resolved, err := req.Resolve(where.config())
	if err != nil {
		return nil, err
	}
	res, reread, err := where.context(ctx, resolved)
	if err == nil && reread {
		if err = where.readAgain(ctx); err == nil {
			res, _, err = where.context(ctx, resolved)
		}
	}
	return res, err
}

// sessionPacks are the packs of a session; oneShot ones are made as a one-shot process would make
// them (the socket's): once the first build and the embeddings are in.
type sessionPacks struct {
	s       *Session
	oneShot bool
}

func (p sessionPacks) config() index.Config { return p.s.Config() }

func (p sessionPacks) context(ctx context.Context, req index.Resolved) (res *index.Result, reread bool, err error) {
	s := p.s
	if res, ok := s.Partial(ctx, req); ok {
		return res, false, nil
	}
	if p.oneShot {
		if err := s.WaitReady(ctx); err != nil {
			return nil, false, err
		}
		if err := s.empty(); err != nil {
			return nil, false, err
		}
	}
	err = s.Read(ctx, func(ix *index.Index) error {
		if p.oneShot {
			ix.WaitVectors()
		}
		res, err = ix.Context(ctx, req)
		s.report(ix.Warnings()) // what the request found (damage, a store left out) is said now
		n := ix.DamagedRecords()
		s.mu.Lock()
		reread = n > s.rereadAt
		s.rereadAt = max(s.rereadAt, n)
		s.mu.Unlock()
		return err
	})
	return res, reread, err
}

// readAgain has the writer rescan: its build reads the files of the damaged records again.
func (p sessionPacks) readAgain(ctx context.Context) error {
	if !p.s.WaitApplied(ctx, p.s.Rescan()) {
		return ctx.Err()
	}
	return nil
}

// ownPacks are the packs of an index a command opened, and built, for itself.
type ownPacks struct{ ix *index.Index }

func (p ownPacks) config() index.Config { return p.ix.Config() }

func (p ownPacks) context(ctx context.Context, req index.Resolved) (*index.Result, bool, error) {
	res, err := p.ix.Context(ctx, req)
	return res, p.ix.DamagedRecords() > 0, err // the build's damage or the pack's, said as found
}

func (p ownPacks) readAgain(ctx context.Context) error {
	_, err := p.ix.Build(ctx, nil)
	return err
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
