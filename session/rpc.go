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
	"runtime/debug"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxmap/ctxmap/index"
)

// The socket speaks JSON-RPC 2.0, one message a line. A connection carries one call, whose method is
// an operation's name and whose params are callParams, and its response; while the answer is made the
// process sends a "progress" notification each progressEvery. What it refuses before reading a call
// (too long, too many connections, not a call) gets a "refused" notification, and the connection
// closes.

// protocolVersion changes whenever a call or an answer changes: a process of another version is not
// asked. 3: a context request is the user's, as typed (index.Request). 4: a request names its build,
// which a background process of another refuses. 5: JSON-RPC, an operation a method.
const protocolVersion = 5

// callParams are a call's params: the operation's argument, and who asks.
type callParams struct {
	Version int             `json:"version"`
	Build   string          `json:"build,omitempty"` // the asking binary's (Build)
	Arg     json.RawMessage `json:"arg,omitempty"`
}

// The notifications the process sends.
const (
	methodProgress = "progress" // progressNote: how the answer being made goes
	methodRefused  = "refused"  // refusal: the connection closes without an answer
)

type progressNote struct {
	Message string `json:"message"`
}

type refusal struct {
	Message string `json:"message"`
	Busy    bool   `json:"busy,omitempty"` // as many connections are served as the process takes: ask again soon
}

// The error codes of an answer besides JSON-RPC's own (jsonrpc2.InvalidParams: the request's fault,
// index.ErrInvalid; jsonrpc2.InternalError: a panic while answering, which the process survives).
const (
	codeAnswer     jsonrpc2.Code = -32001 // the error is the answer (an unknown entity), not a failure to give one
	codeOtherBuild jsonrpc2.Code = -32002 // a background process of another build; its build is the data
	codeStopping   jsonrpc2.Code = -32003 // the process is leaving
	codeVersion    jsonrpc2.Code = -32004 // another protocol version
	codeFailed     jsonrpc2.Code = -32005 // the process could not answer (no index): ask elsewhere
)

// writeMessage writes m as one line.
func writeMessage(w io.Writer, m jsonrpc2.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// refuse tells c why it is refused, without reading from it, and closes it.
func (s *Session) refuse(c net.Conn, why refusal) {
	s.opts.Logf("query socket: %s", why.Message)
	c.SetWriteDeadline(time.Now().Add(answerTimeout))
	if n, err := jsonrpc2.NewNotification(methodRefused, why); err == nil {
		writeMessage(c, n)
	}
	c.Close()
}

// serveConn reads one call from c and writes its answer.
func (s *Session) serveConn(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(requestTimeout))
	line, err := readRequest(bufio.NewReaderSize(c, 64<<10), MaxRequest)
	if errors.Is(err, errTooLong) {
		// refused without reading the rest: closing drops what the client still sends
		s.refuse(c, refusal{Message: err.Error()})
		return
	}
	if err != nil {
		if err != io.EOF {
			s.opts.Logf("query socket: %v", err)
		}
		c.Close()
		return
	}
	msg, err := jsonrpc2.DecodeMessage(line)
	call, ok := msg.(*jsonrpc2.Call)
	if err != nil || !ok {
		s.refuse(c, refusal{Message: fmt.Sprintf("not a JSON-RPC call: %s", index.Quote(string(bytes.TrimSpace(line))))})
		return
	}
	defer c.Close()
	answered := make(chan *jsonrpc2.Response, 1)
	go func() { answered <- s.answerCall(call) }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		var m jsonrpc2.Message
		select {
		case m = <-answered:
		case <-tick.C:
			m, _ = jsonrpc2.NewNotification(methodProgress, progressNote{s.progressMessage()})
		}
		c.SetWriteDeadline(time.Now().Add(answerTimeout))
		if err := writeMessage(c, m); err != nil {
			s.opts.Logf("query socket: %v", err) // the client left; the answer being made is dropped
			return
		}
		if _, done := m.(*jsonrpc2.Response); done {
			return
		}
	}
}

// progressMessage says how the answer being made goes: the first build's share, or the answer itself.
func (s *Session) progressMessage() string {
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	if !ready {
		return fmt.Sprintf("building the index: %.0f%%", 100*s.builtShare())
	}
	return "making the answer"
}

// answerCall is the response to one call. A call of another version is refused (a stop is understood
// across versions: a newer command replaces an older background process); a panic while answering is
// an error answer, and the session keeps serving.
func (s *Session) answerCall(call *jsonrpc2.Call) *jsonrpc2.Response {
	res, err := s.answerOp(call.Method(), call.Params())
	resp, merr := jsonrpc2.NewResponse(call.ID(), res, err)
	if merr != nil {
		resp, _ = jsonrpc2.NewResponse(call.ID(), nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "the answer to %s: %v", call.Method(), merr))
	}
	return resp
}

// answerOp is the answer to the operation named method, or its error as a *jsonrpc2.Error.
func (s *Session) answerOp(method string, params json.RawMessage) (res any, rpcErr error) {
	var p callParams
	d := json.NewDecoder(bytes.NewReader(params))
	d.DisallowUnknownFields()
	if err := d.Decode(&p); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "the params of %s: %v", index.Quote(method), err)
	}
	op := operations[method]
	stop, status := method == OpStop.Name, method == OpStatus.Name
	switch {
	case p.Version != protocolVersion && !stop:
		return nil, jsonrpc2.Errorf(codeVersion, "protocol version %d, want %d", p.Version, protocolVersion)
	case op == nil:
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "no operation %s", index.Quote(method))
	// a background process answers its own build's commands only: another build's replaces it (an
	// editor's or an agent's server answers any, as it cannot be replaced)
	case s.opts.Stop != nil && p.Build != Build && !stop && !status:
		data := json.RawMessage(fmt.Sprintf("%q", Build))
		return nil, &jsonrpc2.Error{Code: codeOtherBuild, Message: "another build: " + Build, Data: &data}
	case s.stopping.Load() && !stop && !status:
		return nil, jsonrpc2.NewError(codeStopping, errStopping.Error())
	}
	if !status { // a status is no request that keeps a background process from leaving
		s.asking(+1)
		defer s.asking(-1)
	}
	defer func() {
		if r := recover(); r != nil {
			s.opts.Logf("query socket: panic answering %q: %v\n%s", method, r, debug.Stack())
			res, rpcErr = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error answering %s: %v (the process logged it and keeps serving)", index.Quote(method), r)
		}
	}()
	res, err := op.serve(s.ctx, s, p.Arg)
	var final finalError
	switch {
	case s.stopping.Load() && !stop && !status:
		// made while the process stops: maybe from an index cut short, so not given as whole
		return nil, jsonrpc2.NewError(codeStopping, errStopping.Error())
	case err == nil:
		return res, nil
	case errors.Is(err, index.ErrInvalid):
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	case errors.As(err, &final):
		return nil, jsonrpc2.NewError(codeAnswer, err.Error())
	}
	return nil, jsonrpc2.NewError(codeFailed, err.Error())
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

// WithProgress has the asks made with ctx call note with each progress notification of their answer.
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

// askAt calls method with arg on the socket at path and returns the result. A process that is busy
// is asked again, a little later each time, until the overall deadline.
func askAt(ctx context.Context, path, method string, arg any) (json.RawMessage, error) {
	body, err := callLine(method, arg)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(askDeadline)
	wait := 20 * time.Millisecond
	for {
		res, err := askOnce(ctx, path, body)
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

// callLine is the line of a call of method with arg; ErrTooLarge past MaxRequest. A stop carries
// "op" besides, which is what a process before JSON-RPC (protocol 4 and older) read of a line: a newer
// command replaces an older background process.
func callLine(method string, arg any) ([]byte, error) {
	raw, err := json.Marshal(arg)
	if err != nil {
		return nil, err
	}
	call, err := jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), method, callParams{Version: protocolVersion, Build: Build, Arg: raw})
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(call)
	if err == nil && method == OpStop.Name {
		var fields map[string]json.RawMessage
		if err = json.Unmarshal(body, &fields); err == nil {
			fields["op"] = json.RawMessage(`"stop"`)
			body, err = json.Marshal(fields)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(body)+1 > MaxRequest {
		return nil, ErrTooLarge
	}
	return append(body, '\n'), nil
}

// errOtherProtocol is a process that answers other than in JSON-RPC: a version before 5.
var errOtherProtocol = fmt.Errorf("%w: another version answers", ErrNoSession)

// errBusy is a process that serves as many connections as it takes.
var errBusy = errors.New("busy")

// askOnce sends one call's line to the socket at path and reads its answer.
func askOnce(ctx context.Context, path string, line []byte) (json.RawMessage, error) {
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
	// same when the call could not be written whole
	c.Write(line)
	note, _ := ctx.Value(progressKey{}).(func(string))
	// the answer whole, progress included, is bounded in size and in time: a peer that sends
	// progress for ever, or an endless line, holds nobody
	dec := json.NewDecoder(bufio.NewReader(io.LimitReader(c, maxAnswer)))
	deadline := time.Now().Add(askDeadline)
	for {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: no answer after %v", ErrSilent, askDeadline)
		}
		next := time.Now().Add(AnswerWait)
		if next.After(deadline) {
			next = deadline
		}
		c.SetReadDeadline(next)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
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
		msg, err := jsonrpc2.DecodeMessage(raw)
		if err != nil {
			return nil, errOtherProtocol
		}
		switch m := msg.(type) {
		case *jsonrpc2.Notification:
			switch m.Method() {
			case methodProgress:
				var p progressNote
				if json.Unmarshal(m.Params(), &p) == nil && note != nil {
					note(p.Message)
				}
			case methodRefused:
				var r refusal
				if json.Unmarshal(m.Params(), &r) == nil && r.Busy {
					return nil, errBusy
				}
				return nil, ErrNoSession
			}
		case *jsonrpc2.Response:
			return answerOf(m)
		default:
			return nil, ErrNoSession
		}
	}
}

// answerOf is a response's result, or its error as the asking command takes it: the request's fault
// and the answer's own are reported; a build that refused is replaced; any other is ErrNoSession.
func answerOf(r *jsonrpc2.Response) (json.RawMessage, error) {
	var e *jsonrpc2.Error
	if !errors.As(r.Err(), &e) {
		return r.Result(), nil
	}
	switch e.Code {
	case jsonrpc2.InvalidParams:
		return nil, remoteError{msg: e.Message, invalid: true}
	case codeAnswer, jsonrpc2.InternalError:
		return nil, remoteError{msg: e.Message}
	case codeOtherBuild:
		var build string
		if e.Data != nil {
			json.Unmarshal(*e.Data, &build)
		}
		return nil, OtherBuild{Build: build}
	}
	return nil, ErrNoSession
}
