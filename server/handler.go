package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
)

// The handler chain, outermost first: cancellation (on the read loop, so that a cancel is seen while the
// request it names still waits), ordering (each request on its own goroutine, in arrival order),
// panic recovery, then the method table.

// method handles one LSP method; a notification's result is ignored. Errors that are not *jsonrpc2.Error
// become InternalError responses.
type method func(s *Server, ctx context.Context, params json.RawMessage) (any, error)

// methods is the server's dispatch table; anything else is MethodNotFound.
var methods = map[string]method{
	protocol.MethodInitialize:                         decoded((*Server).initialize),
	protocol.MethodInitialized:                        noParams((*Server).initialized),
	protocol.MethodShutdown:                           noParams((*Server).shutdown),
	protocol.MethodExit:                               noParams((*Server).exit),
	protocol.MethodWorkspaceDidChangeConfiguration:    decoded((*Server).didChangeConfiguration),
	protocol.MethodWorkspaceDidChangeWatchedFiles:     decoded((*Server).didChangeWatchedFiles),
	protocol.MethodWorkspaceDidChangeWorkspaceFolders: decoded((*Server).didChangeWorkspaceFolders),
	protocol.MethodTextDocumentDidOpen:                decoded((*Server).didOpen),
	protocol.MethodTextDocumentDidChange:              decoded((*Server).didChange),
	protocol.MethodTextDocumentDidClose:               decoded((*Server).didClose),
	protocol.MethodTextDocumentDidSave:                noParams((*Server).didSave),
	protocol.MethodTextDocumentHover:                  decoded((*Server).hover),
	protocol.MethodTextDocumentCodeLens:               decoded((*Server).codeLens),
	protocol.MethodTextDocumentDocumentSymbol:         decoded((*Server).documentSymbol),
	protocol.MethodWorkspaceSymbol:                    decoded((*Server).workspaceSymbol),
	protocol.MethodWorkspaceExecuteCommand:            decoded((*Server).executeCommand),
	protocol.MethodWorkDoneProgressCancel:             noParams((*Server).ignore),
	protocol.MethodSetTrace:                           noParams((*Server).ignore),
}

const codeServerNotInitialized jsonrpc2.Code = -32002

func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}

// cancelling lets $/cancelRequest cancel a request that is queued or running; ids arrive as numbers
// (decoded as float64) or strings.
func cancelling(next jsonrpc2.Handler) jsonrpc2.Handler {
	var mu sync.Mutex
	running := map[jsonrpc2.ID]context.CancelFunc{}
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodCancelRequest {
			var p struct {
				ID any `json:"id"`
			}
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				return nil // a notification: nothing to answer
			}
			var id jsonrpc2.ID
			switch v := p.ID.(type) {
			case float64:
				id = jsonrpc2.NewNumberID(int32(v))
			case string:
				id = jsonrpc2.NewStringID(v)
			default:
				return nil
			}
			mu.Lock()
			cancel := running[id]
			mu.Unlock()
			if cancel != nil {
				cancel()
			}
			return nil
		}
		call, ok := req.(*jsonrpc2.Call)
		if !ok {
			return next(ctx, reply, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		mu.Lock()
		running[call.ID()] = cancel
		mu.Unlock()
		return next(ctx, func(rctx context.Context, result any, err error) error {
			mu.Lock()
			delete(running, call.ID())
			mu.Unlock()
			if ctx.Err() != nil && err == nil {
				result, err = nil, protocol.ErrRequestCancelled
			}
			cancel()
			// a cancelled context writes nothing: the client still needs its answer
			return reply(context.WithoutCancel(rctx), result, err)
		}, req)
	}
}

type releaseKey struct{}

// release lets the requests queued behind this one start before it replies: slow requests call it once
// they have read what they need, so that hover never waits for a context pack.
func release(ctx context.Context) {
	if f, ok := ctx.Value(releaseKey{}).(func()); ok {
		f()
	}
}

// ordered runs each request on its own goroutine, after the previous one replied or released. It is
// called on the read loop only, so prev needs no lock.
func ordered(next jsonrpc2.Handler) jsonrpc2.Handler {
	prev := make(chan struct{})
	close(prev)
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		wait, done := prev, make(chan struct{})
		prev = done
		var once sync.Once
		free := func() { once.Do(func() { close(done) }) }
		ctx = context.WithValue(ctx, releaseKey{}, free)
		go func() {
			<-wait
			_ = next(ctx, func(ctx context.Context, result any, err error) error {
				free()
				return reply(ctx, result, err)
			}, req)
			free()
		}()
		return nil
	}
}

// recovering turns a panic in a handler into an error response and a log line: one bad request must
// not end the session.
func recovering(logf func(string, ...any), next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
		var mu sync.Mutex
		replied := false
		once := func(ctx context.Context, result any, rerr error) error {
			mu.Lock()
			if replied {
				mu.Unlock()
				return nil
			}
			replied = true
			mu.Unlock()
			return reply(ctx, result, rerr)
		}
		defer func() {
			if r := recover(); r != nil {
				logf("panic in %s: %v\n%s", req.Method(), r, debug.Stack())
				err = once(ctx, nil, jsonrpc2.NewError(jsonrpc2.InternalError,
					fmt.Sprintf("internal error in %s: %v (the server logged the details and keeps running)", req.Method(), r)))
			}
		}()
		return next(ctx, once, req)
	}
}

// dispatch calls the method's handler and replies with its result.
func (s *Server) dispatch(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	_, isCall := req.(*jsonrpc2.Call)
	m := methods[req.Method()]
	if m == nil {
		if !isCall {
			return reply(ctx, nil, nil) // unknown notifications ($/..., telemetry) are ignored
		}
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, fmt.Sprintf("method %s is not supported by ctxmap", index.Quote(req.Method()))))
	}
	if err := s.admit(req.Method()); err != nil {
		if !isCall {
			s.logf("%s ignored: %v", req.Method(), err)
			return reply(ctx, nil, nil)
		}
		return reply(ctx, nil, err)
	}
	if ctx.Err() != nil {
		return reply(ctx, nil, protocol.ErrRequestCancelled)
	}
	result, err := m(s, ctx, req.Params())
	if err != nil {
		err = wireError(ctx, req.Method(), err)
		if !isCall {
			s.logf("%s: %v", req.Method(), err)
			s.logMessage(protocol.MessageTypeError, fmt.Sprintf("%s: %v", req.Method(), err))
			return reply(ctx, nil, nil)
		}
		return reply(ctx, nil, err)
	}
	return reply(ctx, result, nil)
}

// wireError gives every error a JSON-RPC code; jsonrpc2 would keep only the code's default message
// of a wrapped *jsonrpc2.Error, so errors are never wrapped around one.
func wireError(ctx context.Context, method string, err error) error {
	var we *jsonrpc2.Error
	var pe paramsError
	switch {
	case errors.As(err, &we):
		return we
	case errors.As(err, &pe):
		return invalidParams("%s: %v", method, pe)
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		return protocol.ErrRequestCancelled
	}
	return jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("%s failed: %v", method, err))
}

// decoded adapts a handler of decoded parameters to the method table; missing or mismatched
// parameters are a paramsError.
func decoded[P any](h func(s *Server, ctx context.Context, p P) (any, error)) method {
	return func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if len(raw) == 0 || string(raw) == "null" {
			return nil, paramsError("parameters are missing")
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, paramsError("malformed parameters: " + err.Error())
		}
		return h(s, ctx, p)
	}
}

// paramsError says why a request's parameters do not decode; on the wire it is InvalidParams naming
// the method.
type paramsError string

func (e paramsError) Error() string { return string(e) }

// noParams adapts a handler that reads no parameters to the method table.
func noParams(h func(s *Server, ctx context.Context) (any, error)) method {
	return func(s *Server, ctx context.Context, _ json.RawMessage) (any, error) { return h(s, ctx) }
}

func (s *Server) ignore(context.Context) (any, error) { return nil, nil }
