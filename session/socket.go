package session

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// A running session answers the command line's questions (the operations, operations.go) on a unix
// socket in the workspace's cache folder, so that `ctxmap context` need not open and refresh the index
// itself while an editor or an agent keeps it open. This file keeps the socket; rpc.go speaks on it.

// socketName is the socket's file in the cache folder, which only its owner can enter.
const socketName = "query.sock"

// dialTimeout is short: a process that does not answer at once is not worth waiting for.
const dialTimeout = 200 * time.Millisecond

// requestTimeout bounds the reading of a request, not the answer; answerTimeout the writing of the
// answer, for a client that stops reading. While an answer is made, a line saying how it goes is
// sent every progressEvery; a client that hears nothing for AnswerWait (a stopped or hung process)
// gives up and answers in its own process.
const (
	requestTimeout = 5 * time.Second
	answerTimeout  = 5 * time.Second
	progressEvery  = time.Second
	// AnswerWait is the longest an asking command waits for the next line of an answer.
	AnswerWait = 5 * time.Second
)

// maxAnswer bounds what an asking command reads of an answer, and askDeadline how long it waits for
// it whatever the process sends meanwhile; past either, it answers in its own process.
var maxAnswer int64 = 64 << 20

var askDeadline = 15 * time.Minute

// MaxRequest bounds one request's line: a client must not make the server hold more than this for
// it. An issue's text is far smaller; a command answers a larger one in its own process.
const MaxRequest = 1 << 20

// maxConns bounds the connections served at once, each holding up to MaxRequest; one more is told the
// process is busy and closed (the command asks again a moment later).
const maxConns = 16

// errTooLong is a request line longer than MaxRequest.
var errTooLong = fmt.Errorf("the request is longer than %d bytes", MaxRequest)

// listener serves the socket; nil when the session does not listen.
type listener struct {
	path  string
	conns sync.WaitGroup
	slots chan struct{} // one token per connection being served
	done  chan struct{} // closed when the session stops listening

	mu     sync.Mutex
	ln     net.Listener
	file   os.FileInfo // the socket file this listener made
	closed bool        // the session stopped listening: no socket is made again
}

// socketCheck is how often a listening session makes sure its socket file is still its own: a removed
// one (or its cache folder) would leave every command waiting for a process it cannot reach.
const socketCheck = 500 * time.Millisecond

// SocketPath is where a session of root listens: in the folder the index caches root in.
func SocketPath(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	dir, err := index.DefaultCacheDir(abs)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, socketName), nil
}

// listen starts answering on the socket, unless another process already does; a socket file left
// by a process that died is removed first.
func (s *Session) listen() {
	path, err := s.socketPath()
	if err != nil {
		s.opts.Logf("no query socket: %v", err)
		return
	}
	l := &listener{path: path, slots: make(chan struct{}, maxConns), done: make(chan struct{})}
	if err := s.bind(l); err != nil {
		s.opts.Logf("no query socket: %v", err)
		return
	}
	s.listener = l
	l.conns.Add(1)
	go func() {
		defer l.conns.Done()
		s.keepSocket(l)
	}()
}

// bind makes l's socket file and serves it, unless another process answers on it.
func (s *Session) bind(l *listener) error {
	if c, err := net.DialTimeout("unix", l.path, dialTimeout); err == nil {
		c.Close()
		return fmt.Errorf("another ctxmap process answers on %s", l.path)
	}
	if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the stale %s: %w", l.path, err)
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return err
	}
	ln, err := net.Listen("unix", l.path)
	if err != nil {
		return err
	}
	// removed by this listener only while the file is its own (see stopListening)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	// the folder is its owner's already; the socket too, whatever the umask
	if err := os.Chmod(l.path, 0o600); err != nil {
		ln.Close()
		os.Remove(l.path)
		return err
	}
	fi, err := os.Lstat(l.path)
	if err != nil {
		fi = nil // a file this system cannot describe is not checked (see own)
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		ln.Close()
		os.Remove(l.path)
		return errors.New("the session stopped listening")
	}
	old := l.ln
	l.ln, l.file = ln, fi
	l.mu.Unlock()
	if old != nil {
		old.Close()
	}
	l.conns.Add(1)
	go func() {
		defer l.conns.Done()
		s.accept(l, ln)
	}()
	return nil
}

// accept serves the connections of ln until it is closed.
func (s *Session) accept(l *listener, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed
		}
		select {
		case l.slots <- struct{}{}:
		default:
			s.refuse(c, refusal{Message: fmt.Sprintf("busy: %d connections are being served", maxConns), Busy: true})
			continue
		}
		l.conns.Add(1)
		go func() {
			defer l.conns.Done()
			defer func() { <-l.slots }()
			s.serveConn(c)
		}()
	}
}

// own says whether the socket file at l.path is still the one l made: false when it is gone or
// another; true when that cannot be told.
func (l *listener) own() bool {
	fi, err := os.Lstat(l.path)
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false
	case err != nil || l.file == nil:
		return true
	}
	return os.SameFile(fi, l.file)
}

// keepSocket checks every socketCheck that the socket file is still l's own. A removed one is made
// again; one that another process now answers on, or a cache folder removed, makes a background
// process leave (the next command starts another) and another session stop listening.
func (s *Session) keepSocket(l *listener) {
	tick := time.NewTicker(socketCheck)
	defer tick.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-tick.C:
		}
		if l.own() {
			continue
		}
		_, dirErr := os.Stat(filepath.Dir(l.path))
		var err error
		if dirErr == nil {
			err = s.bind(l)
		} else {
			err = fmt.Errorf("the cache folder is gone: %w", dirErr)
		}
		if err == nil {
			s.opts.Logf("query socket: %s was removed: made again", l.path)
			continue
		}
		s.opts.Logf("query socket: %s is no longer this process's: %v", l.path, err)
		l.mu.Lock()
		l.ln.Close()
		l.mu.Unlock()
		if s.opts.Stop != nil {
			s.leave()
		}
		return
	}
}

// socketPath is where the session listens: in its cache folder.
func (s *Session) socketPath() (string, error) {
	if s.opts.CacheDir != "" {
		return filepath.Join(s.opts.CacheDir, socketName), nil
	}
	if s.root != "" {
		return SocketPath(s.root)
	}
	return SocketPath(s.named) // before the index is open
}

// Listening says whether the session answers on the socket (no other process did).
func (s *Session) Listening() bool { return s.listener != nil }

func (s *Session) stopListening() {
	l := s.listener
	if l == nil {
		return
	}
	close(l.done)
	own := l.own()
	l.mu.Lock()
	l.closed = true
	l.ln.Close()
	l.mu.Unlock()
	if own { // another process's socket is left alone
		os.Remove(l.path)
	}
	l.conns.Wait()
}
