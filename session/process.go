package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// The process a session serves in: as daemon --status lists it, the requests it is answering (which
// keep a background process from leaving), and an answer told from a failure to give one.

// finalError is the answer to a request (an unknown entity), which the asking process reports as its
// own; any other error makes it answer in its own process.
type finalError struct{ error }

func (e finalError) Unwrap() error { return e.error }

// errStopping is the answer of a process that is leaving: the asking command answers in its own
// process (or starts another).
var errStopping = errors.New("the process is stopping")

// lifecycle is the session's life as a process serving requests: since when, the requests being
// answered, and whether it is leaving.
type lifecycle struct {
	mu        sync.Mutex
	since     time.Time // when the session started
	inFlight  int       // socket requests being answered
	lastAsked time.Time // when the last one ended, or the session started
	// a stop was asked or the session is closing: no new request is taken, and an answer made
	// meanwhile, from an index the stop may have cut short, is not given as whole
	stopping atomic.Bool
}

// begin counts the quiet from now, when the session starts.
func (l *lifecycle) begin() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lastAsked = time.Now()
	l.since = l.lastAsked
}

// leave has a background process leave: no request is taken any more, and its Stop is called.
func (s *Session) leave() {
	s.life.stopping.Store(true)
	s.opts.Stop()
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
	ready, _, _, lastErr := s.queue.state()
	s.life.mu.Lock()
	since := s.life.since
	s.life.mu.Unlock()
	p := Process{Root: s.root, Pid: os.Getpid(), Since: since, Background: s.opts.Stop != nil, Ready: ready, Build: Build}
	if lastErr != nil {
		p.Error = lastErr.Error()
	}
	if !p.Ready {
		p.Built = s.first.share()
	}
	if p.Background && s.listener != nil {
		p.Log = filepath.Join(filepath.Dir(s.listener.path), BackgroundLog)
	}
	ix, done := s.ix.acquire()
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

// asking counts the requests being answered, and when the last one ended.
func (l *lifecycle) asking(delta int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inFlight += delta
	l.lastAsked = time.Now()
}

// QuietFor is how long the socket has had no request: since the last one ended, or since the session
// started; 0 while one is answered.
func (s *Session) QuietFor() time.Duration {
	l := &s.life
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.inFlight > 0 {
		return 0
	}
	return time.Since(l.lastAsked)
}
