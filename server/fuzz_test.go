package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"go.lsp.dev/protocol"
)

// wire is a client's bytes in, the server's answers out.
type wire struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (w *wire) Read(p []byte) (int, error)  { return w.in.Read(p) }
func (w *wire) Write(p []byte) (int, error) { return w.out.Write(p) }
func (w *wire) Close() error                { return nil }

// Whatever bytes arrive, the reader yields messages or an error, never panics, and every error
// response it writes back is a well-framed JSON message.
func FuzzStreamRead(f *testing.F) {
	for _, s := range []string{
		rawFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		rawFrame(`{"jsonrpc":"2.0","id":1,"method":`),
		"Content-Length: lots\r\n\r\n",
		"Content-Length: 3\r\n\r\n{}",
		"Content-Length: 99999999\r\n\r\n{",
		"\r\n\r\nContent-Type: x\r\n\r\n" + rawFrame(`[]`),
		rawFrame("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"x\u0000\"}"),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w := &wire{in: bytes.NewReader(data)}
		s := newStream(w, func(string, ...any) {})
		for i := 0; ; i++ {
			if _, _, err := s.Read(context.Background()); err != nil {
				break
			}
			if i > len(data) {
				t.Fatal("more messages than bytes")
			}
		}
		out := bufio.NewReader(&w.out)
		for {
			body, err := readFrame(out)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil || !json.Valid(body) {
				t.Fatalf("the server wrote a bad frame: %v %q", err, body)
			}
		}
	})
}

// Command arguments from arbitrary JSON: a decoded value or an InvalidParams error, never a panic;
// a selection of any range of any document is text or an error.
func FuzzCommandArguments(f *testing.F) {
	f.Add([]byte(`{"uri":"file:///w/a.go","range":{"start":{"line":0,"character":0},"end":{"line":9,"character":99}}}`), []byte("package a\n// TODO: x\n"))
	f.Add([]byte(`{"text":"x","budget":-1,"format":"pdf"}`), []byte("😀 é\r\n\n"))
	f.Add([]byte(`[1,2]`), []byte(""))
	f.Add([]byte(`{"position":{"line":4294967295,"character":-1}}`), []byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, raw, doc []byte) {
		var a contextArgs
		if err := decodeArg(cmdContext, raw, &a, contextArgNames); err != nil {
			return
		}
		r := protocol.Range{}
		if a.Range != nil {
			r = *a.Range
		} else if a.Position != nil {
			r = protocol.Range{Start: *a.Position, End: *a.Position}
		}
		if text, err := selection(doc, r); err == nil && !bytes.Contains(doc, []byte(text)) {
			t.Fatalf("the selection %q is not part of the document", text)
		}
	})
}
