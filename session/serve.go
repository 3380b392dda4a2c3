package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"go.lsp.dev/jsonrpc2"
)

// The socket's server side: one call read, answered by its operation, with progress meanwhile.

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
	if ready, _, _, _ := s.queue.state(); !ready {
		return fmt.Sprintf("building the index: %.0f%%", 100*s.first.share())
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
	case s.life.stopping.Load() && !stop && !status:
		return nil, jsonrpc2.NewError(codeStopping, errStopping.Error())
	}
	if !status { // a status is no request that keeps a background process from leaving
		s.life.asking(+1)
		defer s.life.asking(-1)
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
	case s.life.stopping.Load() && !stop && !status:
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
