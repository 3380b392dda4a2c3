package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctxmap/ctxmap/internal/rpcerr"
	"go.lsp.dev/jsonrpc2"
)

// stream frames JSON-RPC messages with Content-Length headers, like jsonrpc2.NewStream, but answers a
// malformed message with an error response and reads on: the library's stream would end the session.
type stream struct {
	rwc  io.ReadWriteCloser
	in   *bufio.Reader // reads src
	src  *pushback
	logf func(format string, args ...any)

	mu sync.Mutex // one message on the wire at a time
}

func newStream(rwc io.ReadWriteCloser, logf func(string, ...any)) *stream {
	src := &pushback{r: rwc}
	return &stream{rwc: rwc, in: bufio.NewReader(src), src: src, logf: logf}
}

// pushback is a reader that bytes already read can be put back in front of.
type pushback struct {
	pending []byte
	r       io.Reader
}

func (p *pushback) Read(b []byte) (int, error) {
	if len(p.pending) > 0 {
		n := copy(b, p.pending)
		p.pending = p.pending[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// resync puts back the part of a bad body from a Content-Length header on: a header that named too
// many bytes took in the next message's header.
func (s *stream) resync(body []byte) {
	if i := headerStart(body, false); i > 0 {
		s.unread(bytes.Clone(body[i:]))
		return
	}
	// the length named may end inside the header's name
	for n := min(len(body)-1, len(lengthHeader)-1); n > 0; n-- {
		if foldEqual(body[len(body)-n:], lengthHeader[:n]) {
			s.unread(bytes.Clone(body[len(body)-n:]))
			return
		}
	}
}

const lengthHeader = "content-length:"

// headerStart is where "Content-Length:" first (or last) appears in b, in any case, or -1.
func headerStart(b []byte, last bool) int {
	found := -1
	for i := 0; i+len(lengthHeader) <= len(b); i++ {
		if foldEqual(b[i:i+len(lengthHeader)], lengthHeader) {
			if found = i; !last {
				break
			}
		}
	}
	return found
}

// foldEqual compares b with lower, ASCII letters in any case. (Lower-casing b with the strings
// package would move the bytes of invalid UTF-8.)
func foldEqual(b []byte, lower string) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return len(b) == len(lower)
}

// unread puts b back in front of what s reads next.
func (s *stream) unread(b []byte) {
	buffered, _ := s.in.Peek(s.in.Buffered())
	s.src.pending = slices.Concat(b, buffered, s.src.pending)
	s.in.Reset(s.src)
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
		if i := headerStart([]byte(line), true); i > 0 {
			// the rest of a body whose header named the wrong length (or none) runs into the next
			// header: a new message starts at the last one
			bad = fmt.Errorf("%w: %q before a header", errFrame, clipText(line[:i], 80))
			line, length, headers = line[i:], -1, 0
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
	var scan jsonScan
	for body.Len() < length {
		if in.Buffered() == 0 {
			if _, err := in.Peek(1); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, fmt.Errorf("read a message of %d bytes (got %d): %w", length, body.Len(), err)
			}
		}
		chunk, _ := in.Peek(min(in.Buffered(), length-body.Len()))
		n, end := scan.feed(chunk)
		body.Write(chunk[:n])
		in.Discard(n)
		switch {
		case end == endBad:
			// what follows is not this message's (the header named too many bytes, or the body is
			// not JSON): it stays in the stream, where the next header is looked for
			return body.Bytes(), fmt.Errorf("%w: byte %d of a message of %d bytes cannot be part of it", errNotJSON, body.Len()+1, length)
		case end == endValue && body.Len() < length:
			// a header that names more bytes than its message holds: the next message follows
			// the value, and waiting for the bytes named would wait for it
			return body.Bytes(), fmt.Errorf("%w: Content-Length %d, but the message ends after %d bytes", errLong, length, body.Len())
		}
	}
	return body.Bytes(), nil
}

var (
	// errLong is a message shorter than its header said: it is served all the same.
	errLong = errors.New("message shorter than its header")
	// errNotJSON is a body cut off where it stops being JSON.
	errNotJSON = errors.New("the message is not valid JSON")
)

// jsonScan follows a JSON object or array just enough to tell where it ends, or where a byte shows
// that what follows is no longer part of it (a header line, garbage).
type jsonScan struct {
	started, inString, escaped bool
	depth                      int
}

const (
	endNone  = iota // more to come
	endValue        // the value ended
	endBad          // a byte that cannot belong to the value
)

// feed scans b; n is how much of it belongs to the value.
func (j *jsonScan) feed(b []byte) (n, end int) {
	for i, c := range b {
		switch {
		case !j.started:
			switch c {
			case ' ', '\t', '\r', '\n':
			case '{', '[':
				j.started, j.depth = true, 1
			default:
				return i, endBad // a request is an object (or a batch, an array)
			}
		case j.inString:
			switch {
			case j.escaped:
				j.escaped = false
			case c == '\\':
				j.escaped = true
			case c == '"':
				j.inString = false
			case c < 0x20:
				return i, endBad // a raw control character, such as a header's line end
			}
		case c == '"':
			j.inString = true
		case c == '{' || c == '[':
			j.depth++
		case c == '}' || c == ']':
			if j.depth--; j.depth == 0 {
				return i + 1, endValue
			}
		case !jsonByte[c]:
			return i, endBad
		}
	}
	return len(b), endNone
}

// jsonByte are the bytes JSON has outside strings, besides brackets and quotes.
var jsonByte = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n:,-+.0123456789eEtruefalsn") {
		t[c] = true
	}
	return t
}()

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
		if errors.Is(err, errNotJSON) {
			s.logf("%v: %s", err, clipText(string(body), 200))
			s.replyError(nil, jsonrpc2.ParseError, err.Error())
			s.resync(body)
			continue
		}
		if errors.Is(err, errLong) {
			s.logf("%v", err)
		} else if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if _, isResponse := msg.(*jsonrpc2.Response); isResponse && emptyMethod(body, s) {
			continue
		}
		if err == nil {
			return msg, int64(len(body)), nil
		}
		s.rejectMessage(body, err)
		if !json.Valid(body) {
			s.resync(body)
		}
	}
}

// emptyMethod answers a request whose method is "", which the library takes for a response and
// would never answer, and reports whether body was one.
func emptyMethod(body []byte, s *stream) bool {
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(body, &probe) != nil || probe.Method == nil || *probe.Method != "" {
		return false
	}
	s.logf("a message without a method: %s", clipText(string(body), 200))
	s.replyError(probe.ID, jsonrpc2.MethodNotFound, "the method is empty")
	return true
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
	s.replyError(probe.ID, jsonrpc2.InvalidRequest, "not a JSON-RPC 2.0 request: "+err.Error())
}

// replyError writes an error response outside the connection's bookkeeping; an invalid id is null.
func (s *stream) replyError(id json.RawMessage, code jsonrpc2.Code, message string) {
	if err := s.write(rpcerr.Response(id, int64(code), message)); err != nil {
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
