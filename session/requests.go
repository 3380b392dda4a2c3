package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// The questions the command line hands to a running session besides a pack: what `ctxmap entities`,
// `explore` and `map` print, each answered once the first build is in, as the command would answer
// after building the index itself.

// finalError is the answer to a request (an unknown entity), which the asking process reports as its
// own; any other error makes it answer in its own process.
type finalError struct{ error }

func (e finalError) Unwrap() error { return e.error }

// errStopping is the answer of a process that is leaving: the asking command answers in its own
// process (or starts another).
var errStopping = errors.New("the process is stopping")

// serveAsked answers one request of the socket.
func (s *Session) serveAsked(ctx context.Context, req askRequest) (json.RawMessage, error) {
	if req.Op == opStatus { // not a request that keeps a background process from leaving
		return json.Marshal(s.process())
	}
	if s.stopping.Load() && req.Op != opStop {
		return nil, errStopping
	}
	s.asking(+1)
	defer s.asking(-1)
	if req.Op == opStop {
		if s.opts.Stop == nil {
			return nil, errors.New("not a background process: it stops with its editor or agent")
		}
		s.stopping.Store(true)
		s.opts.Stop()
		return json.Marshal(s.process())
	}
	if req.Op == "" || req.Op == opContext {
		return s.oneShot(ctx, req.Request)
	}
	// as the command line checks them: a bad count is the request's fault
	if err := index.CheckLimit("top", req.Top); err != nil {
		return nil, err
	}
	if err := index.CheckLimit("limit", req.Limit); err != nil {
		return nil, err
	}
	// a background process started for this question has no partial pack to make before it builds
	s.partialOnce.Do(func() { close(s.firstPartial) })
	if err := s.WaitReady(ctx); err != nil {
		return nil, err
	}
	if req.Op == opRefresh {
		return s.refresh(ctx)
	}
	if err := s.empty(); err != nil {
		return nil, err
	}
	if req.Op == opOutline { // a map centred on a text: its pack answered as every pack is
		if err := req.Outline.Centre(ctx, sessionPacks{s: s, oneShot: true}); err != nil {
			return nil, finalError{err}
		}
	}
	var res any
	err := s.Read(ctx, func(ix *index.Index) (err error) {
		switch req.Op {
		case opEntities:
			res = ix.Snapshot().TopEntities(req.Top)
		case opExplore:
			res, err = ix.Explore(req.Name, req.Limit)
		case opOutline:
			res, err = ix.Outline(ctx, req.Outline)
		case opPicture:
			res, err = ix.EntityPicture(req.Top, req.Name)
		default:
			return fmt.Errorf("unknown operation %s", index.Quote(req.Op))
		}
		if err != nil {
			err = finalError{err}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// Process is a ctxmap process that serves a workspace on its socket, as ctxmap daemon --status lists it.
type Process struct {
	Root       string    `json:"root"`
	Pid        int       `json:"pid"`
	Since      time.Time `json:"since"`
	Background bool      `json:"background"`      // a background process; else an editor's or an agent's server
	Build      string    `json:"build,omitempty"` // the binary's build (Build)
	Log        string    `json:"log,omitempty"`   // a background process's log
	Ready      bool      `json:"ready"`           // the first build is in
	Built      float64   `json:"built"`           // the first build's share done, while it runs
	Files      int       `json:"files"`
	Error      string    `json:"error,omitempty"` // the last build's failure; or why the process does not answer
}

// process is this session as ctxmap daemon --status lists it.
func (s *Session) process() Process {
	s.mu.Lock()
	p := Process{Root: s.root, Pid: os.Getpid(), Since: s.since, Background: s.opts.Stop != nil, Ready: s.ready, Build: Build}
	if s.lastErr != nil {
		p.Error = s.lastErr.Error()
	}
	s.mu.Unlock()
	if !p.Ready {
		p.Built = s.builtShare()
	}
	if p.Background && s.listener != nil {
		p.Log = filepath.Join(filepath.Dir(s.listener.path), BackgroundLog)
	}
	ix, done := s.acquire()
	if ix != nil {
		p.Files = len(ix.Snapshot().Paths)
	}
	done()
	return p
}

// Running lists the ctxmap processes that answer on a socket in the cache folders of this user, a
// stopped or hung one with why (after AnswerWait).
func Running(ctx context.Context) ([]Process, error) {
	some, err := index.DefaultCacheDir(string(filepath.Separator))
	if err != nil {
		return nil, err
	}
	socks, err := filepath.Glob(filepath.Join(filepath.Dir(some), "*", socketName))
	if err != nil {
		return nil, err
	}
	var ps []Process
	for _, sock := range socks {
		raw, err := askAt(ctx, sock, askRequest{Op: opStatus})
		var p Process
		switch {
		case errors.Is(err, ErrForeign):
			continue // not ours: neither listed nor asked
		case errors.Is(err, ErrSilent):
			p = Process{Error: err.Error(), Log: filepath.Join(filepath.Dir(sock), BackgroundLog)}
		case err != nil:
			continue // none listens there: a socket left by a process that died
		default:
			if err := json.Unmarshal(raw, &p); err != nil {
				p = Process{Error: fmt.Sprintf("another version answers on %s", sock)}
			}
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// refresh brings the index up to date with the disk, as ctxmap index does in its own process, and
// returns its stats.
func (s *Session) refresh(ctx context.Context) (json.RawMessage, error) {
	start := time.Now()
	if !s.WaitApplied(ctx, s.Rescan()) {
		return nil, ctx.Err()
	}
	var st index.Stats
	err := s.Read(ctx, func(ix *index.Index) error {
		ix.WaitVectors()
		st = ix.Snapshot().Stats()
		st.Vectors = ix.VectorStatus()
		// what this process parsed since the last refresh (or its start): its watcher may have read
		// an edit before the rescan did
		s.mu.Lock()
		st.Parsed = ix.Parsed() - s.parsedAtRefresh
		s.parsedAtRefresh = ix.Parsed()
		s.mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.listener != nil {
		st.Cache = filepath.Dir(s.listener.path)
	}
	st.Seconds = time.Since(start).Seconds()
	return json.Marshal(st)
}

// empty is the answer for a workspace with nothing to read, as a command in its own process says it
// (which folder, and why each file was skipped); nil when there is something.
func (s *Session) empty() error {
	ix, done := s.acquire()
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

// asking counts the requests being answered, and when the last one ended.
func (s *Session) asking(delta int) {
	s.mu.Lock()
	s.inFlight += delta
	s.lastAsked = time.Now()
	s.mu.Unlock()
}

// QuietFor is how long the socket has had no request: since the last one ended, or since the session
// started; 0 while one is answered.
func (s *Session) QuietFor() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight > 0 {
		return 0
	}
	return time.Since(s.lastAsked)
}

// askFor sends req to the session of root and decodes its result into a T.
func askFor[T any](ctx context.Context, root string, req askRequest) (T, error) {
	var v T
	raw, err := ask(ctx, root, req)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("the running process's answer: %w", err)
	}
	return v, nil
}

// AskRefresh has the running session of root bring its index up to date with the disk and returns
// the index's stats; ErrNoSession when none answers.
func AskRefresh(ctx context.Context, root string) (index.Stats, error) {
	return askFor[index.Stats](ctx, root, askRequest{Op: opRefresh})
}

// AskEntities is the workspace's top entities from the running session of root; ErrNoSession when
// none answers.
func AskEntities(ctx context.Context, root string, top int) ([]index.EntitySummary, error) {
	return askFor[[]index.EntitySummary](ctx, root, askRequest{Op: opEntities, Top: top})
}

// AskExplore is an entity's exploration from the running session of root.
func AskExplore(ctx context.Context, root, name string, limit int) (*index.Exploration, error) {
	return askFor[*index.Exploration](ctx, root, askRequest{Op: opExplore, Name: name, Limit: limit})
}

// AskOutline is the ranked outline from the running session of root.
func AskOutline(ctx context.Context, root string, req index.OutlineRequest) (*index.Outline, error) {
	return askFor[*index.Outline](ctx, root, askRequest{Op: opOutline, Outline: req})
}

// AskPicture is the entity map, laid out, from the running session of root.
func AskPicture(ctx context.Context, root string, top int, focus string) (*index.Picture, error) {
	return askFor[*index.Picture](ctx, root, askRequest{Op: opPicture, Top: top, Name: focus})
}
