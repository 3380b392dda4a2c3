package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"go.lsp.dev/jsonrpc2"
)

// The socket's client side: what a command asks of the running process, and how it reads the answer.

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
