package session

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// Whatever bytes a client sends on the query socket, the session answers with a well-formed answer
// or closes the connection, never panics, and goes on answering.
func FuzzSocketRequest(f *testing.F) {
	for _, s := range []string{
		`{"version":3,"op":"context","request":{"text":"add to cart","budget":800}}`,
		`{"version":2,"op":"context","request":{"Text":"x","Budget":800,"Model":{"file_calibration":{"coef":[1,1,1,1]}}}}`,
		`{"version":3,"op":"context","request":{"text":"x","Model":{"file_calibration":{"coef":[1,1,1,1]}}}}`,
		`{"version":3,"op":"entities","top":-1}`,
		`{"version":3,"op":"explore","name":"cart","limit":3}`,
		`{"version":3,"op":"outline","outline":{"Budget":300,"Text":"cart"}}`,
		`{"version":3,"op":"picture","top":5,"name":"cart"}`,
		`{"version":3,"op":"context","request":{"text":"\u0000\u0000\u0000","budget":100,"without":["nope"]}}`,
		"{\"version\":3,\"op\":\"context\",\"request\":{\"text\":\"\xff\xfe\"}}",
		`{"version":1,"op":"stop"}`,
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
		dec := json.NewDecoder(bufio.NewReader(c))
		for {
			var ans askAnswer
			if err := dec.Decode(&ans); err != nil {
				return // closed without an answer: a line that is no request
			}
			if ans.Progress != "" {
				continue
			}
			if ans.Result == nil && ans.Error == "" {
				t.Fatalf("an empty answer to %q", data)
			}
			return
		}
	})
}
