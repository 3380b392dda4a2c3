package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// What the operations need of a session besides its index: the process as it lists itself, a refresh,
// the answer for a workspace with nothing to read, and the count of requests being answered.

// finalError is the answer to a request (an unknown entity), which the asking process reports as its
// own; any other error makes it answer in its own process.
type finalError struct{ error }

func (e finalError) Unwrap() error { return e.error }

// errStopping is the answer of a process that is leaving: the asking command answers in its own
// process (or starts another).
var errStopping = errors.New("the process is stopping")

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
		p, err := OpStatus.askAt(ctx, sock, None{})
		switch {
		case errors.Is(err, ErrForeign):
			continue // not ours: neither listed nor asked
		case errors.Is(err, ErrSilent):
			p = Process{Error: err.Error(), Log: filepath.Join(filepath.Dir(sock), BackgroundLog)}
		case errors.Is(err, errOtherProtocol):
			p = Process{Error: fmt.Sprintf("another version answers on %s", sock)}
		case err != nil:
			continue // none listens there: a socket left by a process that died
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// refresh brings the index up to date with the disk, as ctxmap index does in its own process, and
// returns its stats.
func (s *Session) refresh(ctx context.Context) (index.Stats, error) {
	start := time.Now()
	var st index.Stats
	if !s.WaitApplied(ctx, s.Rescan()) {
		return st, ctx.Err()
	}
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
