package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// stream frames JSON-RPC messages with Content-Length headers, like jsonrpc2.NewStream, but answers a
// malformed message with an error response and reads on: the library's stream would end the session.
type stream struct {
	rwc  io.ReadWriteCloser
	in   *bufio.Reader
	logf func(format string, args ...any)

	mu sync.Mutex // one message on the wire at a time
}

func newStream(rwc io.ReadWriteCloser, logf func(string, ...any)) *stream {
	return &stream{rwc: rwc, in: bufio.NewReader(rwc), logf: logf}
}

// maxMessage bounds one message: a client bug must not make the server allocate without limit.
const maxMessage = 256 << 20

// errFrame is a header block that names no usable length; the next block may still be good.
var errFrame = errors.New("bad message header")

// readFrame reads one header block and the body it announces. Lines it does not understand are
// skipped when a usable Content-Length follows, since the body must be read to stay in step.
func readFrame(in *bufio.Reader) ([]byte, error) {
	length := -1
	var bad error
	headers := 0
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			if err == io.EOF && (line != "" || headers > 0) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if headers == 0 {
				continue // blank lines between messages
			}
			break
		}
		headers++
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			bad = fmt.Errorf("%w: %q is not a header line", errFrame, clipText(line, 80))
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n <= 0 || n > maxMessage {
				bad = fmt.Errorf("%w: Content-Length %q is not a length between 1 and %d", errFrame, strings.TrimSpace(value), maxMessage)
				continue
			}
			length = n
		}
	}
	if length < 0 {
		if bad == nil {
			bad = fmt.Errorf("%w: no Content-Length", errFrame)
		}
		return nil, bad
	}
	// grow with what arrives: a header announcing 200 MB must not allocate 200 MB before the bytes come
	var body bytes.Buffer
	body.Grow(min(length, 64<<10))
	if n, err := io.CopyN(&body, in, int64(length)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read a message of %d bytes (got %d): %w", length, n, err)
	}
	return body.Bytes(), nil
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, err := readFrame(s.in)
		if errors.Is(err, errFrame) {
			s.logf("%v", err)
			s.replyError(nil, jsonrpc2.ParseError, err.Error())
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, int64(len(body)), nil
		}
		s.rejectMessage(body, err)
	}
}

// rejectMessage answers a body that is not a JSON-RPC message: a parse error when it is not JSON, an
// invalid request (with its id when it has one) when it is JSON of the wrong shape.
func (s *stream) rejectMessage(body []byte, err error) {
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if jerr := json.Unmarshal(body, &probe); jerr != nil {
		s.logf("malformed message (%v): %s", jerr, clipText(string(body), 200))
		s.replyError(nil, jsonrpc2.ParseError, "the message is not valid JSON: "+jerr.Error())
		return
	}
	s.logf("invalid message (%v): %s", err, clipText(string(body), 200))
	if probe.Method == nil && probe.ID != nil {
		return // a malformed response to one of our calls: nothing to answer
	}
	id := probe.ID
	if !validID(id) {
		id = nil
	}
	s.replyError(id, jsonrpc2.InvalidRequest, "not a JSON-RPC 2.0 request: "+err.Error())
}

func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// replyError writes an error response outside the connection's bookkeeping; id nil means null.
func (s *stream) replyError(id json.RawMessage, code jsonrpc2.Code, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	body, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc2.Error  `json:"error"`
	}{"2.0", id, jsonrpc2.Error{Code: code, Message: message}})
	if err != nil {
		s.logf("encode an error response: %v", err)
		return
	}
	if err := s.write(body); err != nil {
		s.logf("write an error response: %v", err)
	}
}

func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("encode a message: %w", err)
	}
	return int64(len(body)), s.write(body)
}

func (s *stream) write(body []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	if _, err := s.rwc.Write(frame); err != nil {
		return fmt.Errorf("write a message: %w", err)
	}
	return nil
}

func (s *stream) Close() error { return s.rwc.Close() }

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
