package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
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
// it. An issue's text is far smaller; Ask answers a larger one in its own process.
const MaxRequest = 1 << 20

// maxConns bounds the connections served at once, each holding up to MaxRequest; one more is told the
// process is busy and closed (Ask then answers in its own process).
const maxConns = 16

// errTooLong is a request line longer than MaxRequest.
var errTooLong = fmt.Errorf("the request is longer than %d bytes", MaxRequest)

// protocolVersion changes whenever the request or the answer changes: a process of another
// version is not asked. 3: a context request is the user's, as typed (index.Request). 4: a request
// names its build, which a background process of another refuses.
const protocolVersion = 4

// The operations a request names; "" is a context pack.
const (
	opContext  = "context"
	opEntities = "entities"
	opExplore  = "explore"
	opOutline  = "outline"
	opPicture  = "picture"
	opRefresh  = "refresh" // the index brought up to date with the disk, and its stats
	opStop     = "stop"    // a background process exits; another process refuses
	opStatus   = "status"  // the process, as ctxmap daemon --status lists it
)

type askRequest struct {
	Version int                  `json:"version"`
	Build   string               `json:"build,omitempty"` // the asking binary's (Build)
	Op      string               `json:"op,omitempty"`
	Request index.Request        `json:"request,omitzero"` // context: as the user gave it (no model), resolved by the session
	Top     int                  `json:"top,omitempty"`    // entities, picture
	Name    string               `json:"name,omitempty"`   // explore, picture (the entity)
	Limit   int                  `json:"limit,omitempty"`  // explore
	Outline index.OutlineRequest `json:"outline,omitzero"`
}

type askAnswer struct {
	Result  json.RawMessage `json:"result,omitempty"`
	Error   string          `json:"error,omitempty"`
	Invalid bool            `json:"invalid,omitempty"` // Error is the request's fault (index.ErrInvalid)
	// Error is the answer (an unknown entity, say), not the process's failure to give one
	Final bool `json:"final,omitempty"`
	// Progress, alone in a line, says the answer is being made and how it goes; the answer follows
	Progress string `json:"progress,omitempty"`
	// Build is a background process's build, which refused a command of another (OtherBuild)
	Build string `json:"build,omitempty"`
	// Busy: the process serves as many connections as it takes; ask again in a moment
	Busy bool `json:"busy,omitempty"`
}

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
			s.refuse(c, askAnswer{Error: fmt.Sprintf("busy: %d connections are being served", maxConns), Busy: true})
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
			s.stopping.Store(true)
			s.opts.Stop()
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

// refuse answers c with an error without reading from it, and closes it.
func (s *Session) refuse(c net.Conn, ans askAnswer) {
	s.opts.Logf("query socket: %s", ans.Error)
	c.SetWriteDeadline(time.Now().Add(answerTimeout))
	json.NewEncoder(c).Encode(ans)
	c.Close()
}

// serveConn reads one request from c and writes its answer.
func (s *Session) serveConn(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(requestTimeout))
	line, err := readRequest(bufio.NewReaderSize(c, 64<<10), MaxRequest)
	if errors.Is(err, errTooLong) {
		// answered without reading the rest: closing drops what the client still sends
		s.refuse(c, askAnswer{Error: err.Error()})
		return
	}
	defer c.Close()
	if err != nil {
		if err != io.EOF {
			s.opts.Logf("query socket: %v", err)
		}
		return
	}
	answered := make(chan askAnswer, 1)
	go func() { answered <- s.answerLine(line) }()
	enc := json.NewEncoder(c)
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		ans := askAnswer{}
		select {
		case ans = <-answered:
		case <-tick.C:
			ans.Progress = s.progressNote()
		}
		c.SetWriteDeadline(time.Now().Add(answerTimeout))
		if err := enc.Encode(ans); err != nil {
			s.opts.Logf("query socket: %v", err) // the client left; the answer being made is dropped
			return
		}
		if ans.Progress == "" {
			return
		}
	}
}

// progressNote says how the answer being made goes: the first build's share, or the answer itself.
func (s *Session) progressNote() string {
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	if !ready {
		return fmt.Sprintf("building the index: %.0f%%", 100*s.builtShare())
	}
	return "making the answer"
}

// answerLine is the answer to one request's line. A line that is not a request of this version is
// refused (a stop is understood across versions: a newer command replaces an older background
// process); a panic while answering is an error answer, and the session keeps serving.
func (s *Session) answerLine(line []byte) (ans askAnswer) {
	var head struct {
		Version int    `json:"version"`
		Op      string `json:"op"`
		Build   string `json:"build"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return askAnswer{Error: fmt.Sprintf("not a request: %v", err), Invalid: true}
	}
	if head.Version != protocolVersion && head.Op != opStop {
		return askAnswer{Error: fmt.Sprintf("protocol version %d, want %d", head.Version, protocolVersion)}
	}
	// a background process answers its own build's commands only: another build's replaces it (an
	// editor's or an agent's server answers any, as it cannot be replaced)
	if s.opts.Stop != nil && head.Build != Build && head.Op != opStop && head.Op != opStatus {
		return askAnswer{Error: "another build: " + Build, Build: Build}
	}
	var req askRequest
	if head.Op != opStop {
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&req); err != nil {
			return askAnswer{Error: fmt.Sprintf("not a request: %v", err), Invalid: true}
		}
	}
	req.Op = head.Op
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logf("query socket: panic answering %q: %v\n%s", req.Op, r, debug.Stack())
			ans = askAnswer{Error: fmt.Sprintf("internal error answering %s: %v (the process logged it and keeps serving)", index.Quote(req.Op), r), Final: true}
		}
	}()
	res, err := s.serveAsked(s.ctx, req)
	if s.stopping.Load() && req.Op != opStop && req.Op != opStatus {
		// made while the process stops: maybe from an index cut short, so not given as whole
		return askAnswer{Error: errStopping.Error()}
	}
	if err != nil {
		var fe finalError
		return askAnswer{Error: err.Error(), Invalid: errors.Is(err, index.ErrInvalid), Final: errors.As(err, &fe)}
	}
	return askAnswer{Result: res}
}

// readRequest reads one line of at most limit bytes, its newline included; errTooLong as soon as it
// is longer, without reading on. A last line without a newline counts.
func readRequest(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > limit {
			return nil, errTooLong
		}
		if len(line)+len(part) > cap(line) { // doubling: append's slower growth would copy more
			line = append(make([]byte, 0, min(limit, max(2*cap(line), len(line)+len(part)))), line...)
		}
		line = append(line, part...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(bytes.TrimSpace(line)) > 0:
			return line, nil
		case err == io.EOF:
			return nil, err // a probe (see listen) that sent nothing
		case err != nil:
			return nil, fmt.Errorf("read a request: %w", err)
		}
		return line, nil
	}
}

// oneShot answers as a one-shot process would: once the queued changes and the embeddings are in.
func (s *Session) oneShot(ctx context.Context, req index.Request) (json.RawMessage, error) {
	res, err := index.Answer(ctx, sessionPacks{s: s, oneShot: true}, req)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res.Pack)
}

// ErrNoSession says no running process answers for the workspace.
var ErrNoSession = errors.New("no running ctxmap process for this workspace")

// OtherBuild is a background process of another build than the asking command's, which refused to
// answer it: the command replaces it (StopBackground, then StartBackground).
type OtherBuild struct{ Build string }

// Error names the build that refused.
func (e OtherBuild) Error() string {
	return "the background process is another build (" + e.Build + ")"
}

// Is makes it an ErrNoSession: the command answers otherwise.
func (OtherBuild) Is(target error) bool { return target == ErrNoSession }

// ErrSilent is a process that took the request but sent nothing for AnswerWait (stopped, or hung):
// the asking process answers it itself.
var ErrSilent error = silentError{}

type silentError struct{}

func (silentError) Error() string {
	return fmt.Sprintf("the running process sent nothing for %s", AnswerWait)
}

func (silentError) Is(target error) bool { return target == ErrNoSession }

type progressKey struct{}

// WithProgress has the asks made with ctx call note with each progress line of their answer.
func WithProgress(ctx context.Context, note func(string)) context.Context {
	return context.WithValue(ctx, progressKey{}, note)
}

// ErrForeign is a socket in a folder that is not the user's own, or a process of another user
// answering on it: it is not asked, nor trusted with the request.
var ErrForeign = errors.New("refused to ask another user's process")

// ErrTooLarge is a request too large for the socket: the asking process answers it itself.
var ErrTooLarge = fmt.Errorf("%w: the request is larger than %d bytes", ErrNoSession, MaxRequest)

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

// Ask hands a context request, as the user typed it, to the running session of root, which resolves
// it with its configuration and its own model, and returns the pack's JSON; ErrNoSession when none
// answers. It never starts one.
func Ask(ctx context.Context, root string, req index.Request) (json.RawMessage, error) {
	return ask(ctx, root, askRequest{Op: opContext, Request: req})
}

// ask sends one request to the session of root and returns its result; ErrNoSession when none
// answers, or none can (another version, no index): the caller then answers in its own process.
func ask(ctx context.Context, root string, req askRequest) (json.RawMessage, error) {
	path, err := SocketPath(root)
	if err != nil {
		return nil, ErrNoSession
	}
	return askAt(ctx, path, req)
}

// askAt is ask on the socket at path. A process that is busy is asked again, a little later each
// time, until the overall deadline.
func askAt(ctx context.Context, path string, req askRequest) (json.RawMessage, error) {
	deadline := time.Now().Add(askDeadline)
	wait := 20 * time.Millisecond
	for {
		res, err := askOnce(ctx, path, req)
		if !errors.Is(err, errBusy) {
			return res, err
		}
		if time.Now().Add(wait).After(deadline) {
			return nil, fmt.Errorf("%w: still busy after %v", ErrSilent, askDeadline)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// errBusy is a process that serves as many connections as it takes.
var errBusy = errors.New("busy")

// askOnce is one request to the socket at path and its answer.
func askOnce(ctx context.Context, path string, req askRequest) (json.RawMessage, error) {
	req.Version, req.Build = protocolVersion, Build
	body, err := json.Marshal(req)
	if err != nil || len(body)+1 > MaxRequest {
		return nil, ErrTooLarge
	}
	if err := ownedByUs(path); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, ErrNoSession
	}
	defer c.Close()
	if err := peerIsUs(c); err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	c.SetWriteDeadline(time.Now().Add(AnswerWait))
	// a process that refuses (busy) answers and closes without reading: its answer is read all the
	// same when the request could not be written whole
	c.Write(append(body, '\n'))
	note, _ := ctx.Value(progressKey{}).(func(string))
	// the answer whole, progress lines included, is bounded in size and in time: a peer that sends
	// progress for ever, or an endless line, holds nobody
	dec := json.NewDecoder(bufio.NewReader(io.LimitReader(c, maxAnswer)))
	deadline := time.Now().Add(askDeadline)
	var ans askAnswer
	for {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: no answer after %v", ErrSilent, askDeadline)
		}
		next := time.Now().Add(AnswerWait)
		if next.After(deadline) {
			next = deadline
		}
		c.SetReadDeadline(next)
		ans = askAnswer{}
		if err := dec.Decode(&ans); err != nil {
			var ne net.Error
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case errors.As(err, &ne) && ne.Timeout() && time.Now().Before(deadline):
				return nil, ErrSilent
			case errors.As(err, &ne) && ne.Timeout():
				return nil, fmt.Errorf("%w: no answer after %v", ErrSilent, askDeadline)
			}
			return nil, ErrNoSession // it went away: answer without it
		}
		if ans.Progress == "" {
			break
		}
		if note != nil {
			note(ans.Progress)
		}
	}
	switch {
	case ans.Busy:
		return nil, errBusy
	case ans.Invalid || ans.Final:
		return nil, remoteError{msg: ans.Error, invalid: ans.Invalid}
	case ans.Build != "":
		return nil, OtherBuild{Build: ans.Build}
	case ans.Error != "":
		return nil, ErrNoSession
	}
	return ans.Result, nil
}
