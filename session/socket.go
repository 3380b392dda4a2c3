package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// A running session answers one-shot context queries (the CLI's) on a unix socket in the workspace's
// cache folder, so that `ctxmap context` need not open and refresh the index itself while an editor
// or an agent keeps it open. One connection carries one request and its answer, each a line of JSON.

// socketName is the socket's file in the cache folder, which only its owner can enter.
const socketName = "query.sock"

// dialTimeout is short: a process that does not answer at once is not worth waiting for.
const dialTimeout = 200 * time.Millisecond

// requestTimeout bounds the reading of a request, not the answer.
const requestTimeout = 5 * time.Second

// protocolVersion changes whenever the request or the answer changes: a process of another
// version is not asked.
const protocolVersion = 1

type askRequest struct {
	Version int           `json:"version"`
	Request index.Request `json:"request"`
}

type askAnswer struct {
	Pack    json.RawMessage `json:"pack,omitempty"`
	Error   string          `json:"error,omitempty"`
	Invalid bool            `json:"invalid,omitempty"` // Error is the request's fault (index.ErrInvalid)
}

// listener serves the socket; nil when the session does not listen.
type listener struct {
	path  string
	ln    net.Listener
	conns sync.WaitGroup
}

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
	path := filepath.Join(s.opts.CacheDir, socketName)
	var err error
	if s.opts.CacheDir == "" {
		path, err = SocketPath(s.root)
	}
	if err != nil {
		s.opts.Logf("no query socket: %v", err)
		return
	}
	if c, err := net.DialTimeout("unix", path, dialTimeout); err == nil {
		c.Close()
		s.opts.Logf("another ctxmap process answers on %s", path)
		return
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.opts.Logf("no query socket: remove the stale %s: %v", path, err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		s.opts.Logf("no query socket: %v", err)
		return
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		s.opts.Logf("no query socket: %v", err)
		return
	}
	// the folder is its owner's already; the socket too, whatever the umask
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		s.opts.Logf("no query socket: %v", err)
		return
	}
	l := &listener{path: path, ln: ln}
	s.listener = l
	l.conns.Add(1)
	go func() {
		defer l.conns.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return // closed
			}
			l.conns.Add(1)
			go func() {
				defer l.conns.Done()
				s.answer(c)
			}()
		}
	}()
}

func (s *Session) stopListening() {
	l := s.listener
	if l == nil {
		return
	}
	l.ln.Close() // removes the socket file too
	l.conns.Wait()
}

// answer reads one request from c and writes its answer.
func (s *Session) answer(c net.Conn) {
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(requestTimeout))
	var req askRequest
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&req); err != nil {
		s.opts.Logf("query socket: %v", err)
		return
	}
	var ans askAnswer
	if req.Version != protocolVersion {
		ans.Error = fmt.Sprintf("protocol version %d, want %d", req.Version, protocolVersion)
	} else if p, err := s.oneShot(s.ctx, req.Request); err != nil {
		ans.Error, ans.Invalid = err.Error(), errors.Is(err, index.ErrInvalid)
	} else {
		ans.Pack = p
	}
	if err := json.NewEncoder(c).Encode(ans); err != nil {
		s.opts.Logf("query socket: %v", err)
	}
}

// oneShot answers as a one-shot process would: once the queued changes and the embeddings are in.
func (s *Session) oneShot(ctx context.Context, req index.Request) (json.RawMessage, error) {
	if err := req.Normalize(s.Config()); err != nil {
		return nil, err
	}
	if err := s.WaitReady(ctx); err != nil {
		return nil, err
	}
	var res *index.Result
	err := s.Read(ctx, func(ix *index.Index) (err error) {
		ix.WaitVectors()
		res, err = ix.Context(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(res.Pack)
}

// ErrNoSession says no running process answers for the workspace.
var ErrNoSession = errors.New("no running ctxmap process for this workspace")

// remoteError is an error the running process answered with.
type remoteError struct {
	msg     string
	invalid bool
}

func (e remoteError) Error() string { return e.msg }

func (e remoteError) Unwrap() error {
	if e.invalid {
		return index.ErrInvalid
	}
	return nil
}

// Ask hands a context request to the running session of root and returns the pack's JSON;
// ErrNoSession when none answers. It never starts one.
func Ask(ctx context.Context, root string, req index.Request) (json.RawMessage, error) {
	path, err := SocketPath(root)
	if err != nil {
		return nil, ErrNoSession
	}
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, ErrNoSession
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	req.Model = nil // the running process's own model
	if err := json.NewEncoder(c).Encode(askRequest{Version: protocolVersion, Request: req}); err != nil {
		return nil, ErrNoSession
	}
	var ans askAnswer
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&ans); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ErrNoSession // it went away: answer without it
	}
	switch {
	case ans.Invalid:
		return nil, remoteError{msg: ans.Error, invalid: true}
	case ans.Error != "":
		return nil, ErrNoSession // a process that cannot answer (another version, no index) is not there
	}
	return ans.Pack, nil
}
