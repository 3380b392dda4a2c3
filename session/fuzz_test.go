package session

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// Whatever bytes a client sends on the query socket, the session answers with JSON-RPC messages (progress,
// then one response to the call it sent, or a refusal) or closes the connection, never panics, and goes
// on answering.
func FuzzSocketRequest(f *testing.F) {
	call := func(method, params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + "}\n"
	}
	for _, s := range []string{
		call("context", `{"version":5,"arg":{"text":"add to cart","budget":800}}`),
		call("context", `{"version":5,"arg":{"Text":"x","Budget":800,"Model":{"file_calibration":{"coef":[1,1,1,1]}}}}`),
		call("context", `{"version":5,"arg":{"text":"\u0000\u0000\u0000","budget":100,"without":["nope"]}}`),
		call("context", "{\"version\":5,\"arg\":{\"text\":\"\xff\xfe\"}}"),
		call("entities", `{"version":5,"arg":{"top":-1}}`),
		call("explore", `{"version":5,"arg":{"name":"cart","limit":3}}`),
		call("symbols", `{"version":5,"arg":{"name":"AddToCart","kind":"nope"}}`),
		call("outline", `{"version":5,"arg":{"Budget":300,"Text":"cart"}}`),
		call("picture", `{"version":5,"arg":{"top":5,"name":"cart"}}`),
		call("status", `{"version":5}`),
		call("nope", `{"version":5}`),
		call("explore", `{"version":4,"arg":{"name":"cart"}}`),
		call("explore", `[1,2]`),
		`{"jsonrpc":"2.0","method":"explore","params":{"version":5,"arg":{"name":"cart"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"version":4,"op":"entities","top":3}`,
		`null`,
		"",
	} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	filetest.Write(f, root, map[string]string{"shop/cart.go": "package shop\n\n// AddToCart puts an item in the cart.\nfunc AddToCart() {}\n"})
	s, err := Open(context.Background(), Options{Root: root, CacheDir: f.TempDir(), Listen: true, Logf: func(string, ...any) {}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	s.Start()
	if !s.Listening() {
		f.Fatal("the session does not listen")
	}
	path := s.listener.path
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatalf("the session stopped listening: %v", err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Minute))
		c.Write(data)
		c.(*net.UnixConn).CloseWrite()
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				if len(line) > 0 {
					t.Fatalf("an answer line cut short: %q", line)
				}
				return // closed without an answer: bytes that are no line
			}
			msg, err := jsonrpc2.DecodeMessage(line)
			if err != nil {
				t.Fatalf("not a JSON-RPC message in answer to %q: %q", data, line)
			}
			switch m := msg.(type) {
			case *jsonrpc2.Notification:
				var p map[string]any
				if m.Method() != methodProgress && m.Method() != methodRefused || json.Unmarshal(m.Params(), &p) != nil || p["message"] == "" {
					t.Fatalf("a notification %q in answer to %q", line, data)
				}
				if m.Method() == methodRefused {
					return
				}
			case *jsonrpc2.Response:
				if m.Err() == nil && m.Result() == nil {
					t.Fatalf("an empty answer to %q", data)
				}
				return
			default:
				t.Fatalf("a call %q in answer to %q", line, data)
			}
		}
	})
}
