// Package server is ctxmap's language server: it speaks LSP over one connection and answers from the
// workspace index (hover, context packs as commands, code lenses, symbols), keeping the index current
// with the editor's buffers and the files on disk. It holds no state beyond the session; the index owns
// everything else.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/session"
)

// Options configure one session.
type Options struct {
	Root        string // the workspace when the client names none
	InMemory    bool   // keep the index in memory only: nothing written to the cache folder
	CacheDir    string // "": the index's default cache folder
	NoFileWatch bool   // do not watch the disk; rely on the client's workspace/didChangeWatchedFiles
	Version     string // reported to the client in serverInfo
	// Logf receives the server's log lines (stderr in the CLI); never the protocol stream.
	Logf func(format string, args ...any)
}

// ErrExitWithoutShutdown is Serve's answer when the client sent exit before shutdown (exit code 1).
var ErrExitWithoutShutdown = errors.New("the client sent exit without shutdown")

// errConnectionClosed is Serve's answer when the client went away without exit.
var errConnectionClosed = errors.New("the client closed the connection without exit")

type phase int

const (
	starting     phase = iota // before initialize
	running                   // after initialize
	shuttingDown              // after shutdown
)

// Server is one LSP session.
type Server struct {
	opts Options
	conn jsonrpc2.Conn
	ctx  context.Context // the session's lifetime: client calls and indexing stop with it

	mu       sync.Mutex
	phase    phase
	exited   bool
	caps     clientCaps
	settings settings // the editor's, laid over each root's .ctxmap.yaml
	// roots are the sessions of the workspace's repositories, one per root the workspace folders are
	// in (two folders of one repository are one root), the first folder's first
	roots    []*session.Session
	folders  map[string]string // a workspace folder's URI as the client wrote it -> its root
	progress int               // sequence for progress tokens

	docs documents
}

// Serve runs a session on rwc until the client sends exit or closes the connection. It returns nil
// after shutdown and exit, ErrExitWithoutShutdown after an exit alone, and an error otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &Server{opts: opts, ctx: ctx, docs: documents{open: map[string]*document{}}}
	s.conn = jsonrpc2.NewConn(newStream(rwc, opts.Logf))
	s.conn.Go(ctx, cancelling(ordered(recovering(s.logf, s.dispatch))))
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
		s.conn.Close()
		<-s.conn.Done()
	}
	cancel()
	s.mu.Lock()
	exited, phase := s.exited, s.phase
	s.mu.Unlock()
	s.closeRoots()
	switch {
	case exited && phase == shuttingDown:
		return nil
	case exited:
		return ErrExitWithoutShutdown
	case ctx.Err() != nil && phase == shuttingDown:
		return nil
	}
	if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %v", errConnectionClosed, err)
	}
	return errConnectionClosed
}

func (s *Server) logf(format string, args ...any) { s.opts.Logf(format, args...) }

// admit checks a method against the session's phase.
func (s *Server) admit(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case method == protocol.MethodExit:
		return nil
	case s.phase == starting && method != protocol.MethodInitialize:
		return jsonrpc2.NewError(codeServerNotInitialized, "the server is not initialized: send initialize first")
	case s.phase != starting && method == protocol.MethodInitialize:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	case s.phase == shuttingDown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down: only exit is accepted")
	}
	return nil
}

// session returns the first root's session, which answers what names no document; nil before
// initialize.
func (s *Server) session() *session.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.roots) == 0 {
		return nil
	}
	return s.roots[0]
}

// clientTimeout bounds a call to the client: an editor that never answers must not stall indexing.
const clientTimeout = 10 * time.Second

// call sends a request to the client and waits for its answer.
func (s *Server) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(s.ctx, clientTimeout)
	defer cancel()
	return protocol.Call(ctx, s.conn, method, params, result)
}

func (s *Server) notify(method string, params any) {
	if s.ctx.Err() != nil {
		return
	}
	if err := s.conn.Notify(s.ctx, method, params); err != nil {
		s.logf("send %s: %v", method, err)
	}
}

// logMessage shows a line in the editor's log for this server.
func (s *Server) logMessage(kind protocol.MessageType, msg string) {
	s.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: kind, Message: msg})
}
