package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ctxmap/ctxmap/internal/rpcerr"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine bounds one message: 16 MiB, as the SDK's own transport.
const MaxLine = 16 << 20

// Transport is MCP's stdio transport (one JSON-RPC message per line) that survives bad input: the
// SDK's ends the session on a line that is not JSON, an array or a line over its limit, and decodes
// across lines, so a request cut short swallows the ones after it. Here each line stands alone, and
// one that is not a request, a notification or a response is answered with an error and skipped.
// A call the client cancelled (notifications/cancelled) gets no answer, as MCP asks: the SDK stops
// its handler but writes what it returns.
type Transport struct {
	In      io.ReadCloser
	Out     io.Writer
	MaxLine int // 0: MaxLine
	Logf    func(format string, args ...any)
}

// Connect starts reading; it implements sdk.Transport.
func (t *Transport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{in: t.In, out: t.Out, logf: t.Logf, max: t.MaxLine, incoming: make(chan lineOrErr), closed: make(chan struct{}),
		calls: map[string]bool{}}
	if c.max <= 0 {
		c.max = MaxLine
	}
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	go c.readLoop()
	return c, nil
}

type lineOrErr struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	in   io.ReadCloser
	out  io.Writer
	logf func(string, ...any)
	max  int

	writeMu sync.Mutex

	// the calls read and not yet answered, by id (see callKey); true once the client cancelled one
	callsMu sync.Mutex
	calls   map[string]bool

	// reads happen on their own goroutine, so that Close ends a Read waiting on stdin
	incoming  chan lineOrErr
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *lineConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, c.max)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := c.decode(line, tooLong); msg != nil && !c.deliver(lineOrErr{msg: msg}) {
				return
			}
		}
		if err != nil {
			c.deliver(lineOrErr{err: err})
			return
		}
	}
}

func (c *lineConn) deliver(m lineOrErr) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.closed:
		return false
	}
}

// readLine reads up to the next newline. A line longer than limit is read to its end but not kept:
// its first 64 KiB come back with tooLong set, enough to find the request's id.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(part) > limit {
				tooLong = true
				line = line[:min(len(line), 64<<10)]
			} else {
				line = append(line, part...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// decode returns the line's message, or answers the line with an error and returns nil.
func (c *lineConn) decode(line []byte, tooLong bool) jsonrpc.Message {
	if tooLong {
		id := topLevelID(line)
		c.logf("a message of more than %d bytes skipped (id %s)", c.max, id)
		c.replyError(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message is longer than %d bytes; it was skipped", c.max))
		return nil
	}
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		c.logf("malformed message: %s", clip(line))
		c.replyError(nil, jsonrpc.CodeParseError, "the message is not valid JSON")
		return nil
	}
	if line[0] != '{' {
		c.logf("not a JSON-RPC message: %s", clip(line))
		c.replyError(nil, jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 message: a request is one JSON object per line (batches are not supported)")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err == nil {
		c.follow(msg)
		return msg
	}
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	json.Unmarshal(line, &probe)
	c.logf("invalid message (%v): %s", err, clip(line))
	if probe.Method == nil && probe.ID != nil && rpcerr.ValidID(probe.ID) {
		return nil // a malformed response to one of our calls: nothing to answer
	}
	c.replyError(probe.ID, jsonrpc.CodeInvalidRequest, "not a JSON-RPC 2.0 request: "+err.Error())
	return nil
}

// topLevelID finds the id of the object that begins in prefix, before its value is cut off.
func topLevelID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if k == "id" {
			return v
		}
	}
	return nil
}

// replyError writes an error response; an id that is not a valid one is null.
func (c *lineConn) replyError(id json.RawMessage, code int64, message string) {
	if err := c.write(rpcerr.Response(id, code, message)); err != nil {
		c.logf("answer a bad message: %v", err)
	}
}

func (c *lineConn) write(body []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.out.Write(append(body, '\n')); err != nil {
		return fmt.Errorf("write a message: %w", err)
	}
	return nil
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m.msg, m.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// follow keeps the calls read until they are answered, and marks the ones the client cancels.
func (c *lineConn) follow(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	if req.IsCall() {
		c.callsMu.Lock()
		c.calls[callKey(req.ID)] = false
		c.callsMu.Unlock()
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	var params struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &params) != nil {
		return
	}
	id, err := jsonrpc.MakeID(params.RequestID)
	if err != nil {
		return
	}
	c.callsMu.Lock()
	if _, open := c.calls[callKey(id)]; open {
		c.calls[callKey(id)] = true
	}
	c.callsMu.Unlock()
}

// answered says whether a response may be written: false for the answer to a cancelled call.
func (c *lineConn) answered(res *jsonrpc.Response) bool {
	key := callKey(res.ID)
	c.callsMu.Lock()
	cancelled := c.calls[key]
	delete(c.calls, key)
	c.callsMu.Unlock()
	if cancelled {
		c.logf("the answer to call %v is not sent: the client cancelled it", res.ID.Raw())
	}
	return !cancelled
}

// callKey tells ids apart by type and value: the string "1" is not the number 1.
func callKey(id jsonrpc.ID) string { return fmt.Sprintf("%T %v", id.Raw(), id.Raw()) }

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if res, ok := msg.(*jsonrpc.Response); ok && !c.answered(res) {
		return nil
	}
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode a message: %w", err)
	}
	return c.write(body)
}

func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = c.in.Close()
		if errors.Is(err, io.ErrClosedPipe) {
			err = nil
		}
	})
	return err
}

func (c *lineConn) SessionID() string { return "" }

func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
