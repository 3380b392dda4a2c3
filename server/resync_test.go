package server

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/session"
)

// answered fails the test unless the process answers a status request within a few seconds.
func answered(t *testing.T, p *process, after string) {
	t.Helper()
	done := make(chan error, 1)
	var st session.Status
	go func() { done <- p.command(cmdStatus, nil, &st) }()
	select {
	case err := <-done:
		if err != nil || st.Root == "" {
			t.Fatalf("after %s: status %+v, %v", after, st, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("after %s: no answer to the next request; the server said:\n%s", after, p.stderr.String())
	}
}

const statusBody = `{"jsonrpc":"2.0","id":"bad-77","method":"workspace/executeCommand","params":{"command":"ctxmap.status"}}`

// After each bad frame the real server answers the next valid request: a header naming too few or
// too many bytes, a negative, non-numeric, zero or huge length, a body without a header, a request
// with an empty method (answered MethodNotFound).
func TestBadFramesThenARequest(t *testing.T) {
	t.Parallel()
	p := startProcess(t, workspaceCopy(t, "notes"))
	p.initialize(t)
	n := len(statusBody)
	for _, tc := range []struct{ name, frame, want string }{
		{"a length too short", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", n-10, statusBody), `"code":-32700`},
		{"a length too long", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", n+10, statusBody), `"id":"bad-77"`},
		{"a length far too long", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", n+100000, statusBody), `"id":"bad-77"`},
		{"a negative length", "Content-Length: -5\r\n\r\n" + statusBody, `"code":-32700`},
		{"a length that is no number", "Content-Length: lots\r\n\r\n" + statusBody, `"code":-32700`},
		{"a length of zero", "Content-Length: 0\r\n\r\n" + statusBody, `"code":-32700`},
		{"a length of 10^12", "Content-Length: 1000000000000\r\n\r\n" + statusBody, `"code":-32700`},
		{"a body without a header", statusBody, ""},
		{"garbage lines", "hello\r\nworld\n\n", ""},
		{"a truncated request", rawFrame(`{"jsonrpc":"2.0","id":50,"method":`), `"code":-32700`},
		{"an empty method", rawFrame(`{"jsonrpc":"2.0","id":78,"method":""}`), `"code":-32601`},
	} {
		if err := p.stream.writeRaw(tc.frame); err != nil {
			t.Fatal(err)
		}
		if tc.want != "" {
			p.stream.waitFrame(t, tc.want)
		}
		answered(t, p, tc.name)
	}
}

// Random framed and unframed garbage, each followed by a valid request, which the real server
// answers. CTXMAP_SEED replays a run; CTXMAP_RELIABILITY=full sends 1,000 rounds.
func TestGarbageThenRequests(t *testing.T) {
	t.Parallel()
	p := startProcess(t, workspaceCopy(t, "notes"))
	p.initialize(t)
	seed := filetest.Seed(t)
	rng := rand.New(rand.NewSource(seed))
	rounds := 40
	if os.Getenv("CTXMAP_RELIABILITY") == "full" {
		rounds = 1000
	}
	for round := 0; round < rounds; round++ {
		g := garbage(rng)
		if err := p.stream.writeRaw(g); err != nil {
			t.Fatal(err)
		}
		answered(t, p, fmt.Sprintf("round %d (CTXMAP_SEED=%d): %q", round, seed, g))
	}
}

var garbagePieces = []string{"{", "}", "[", "]", `"`, `\`, ":", ",", "1", "true", `"jsonrpc":"2.0"`, `"id":`, `"method":`,
	`"params":`, "\r\n", "\n", "\r\n\r\n", "Content-Length: ", "Content-Length: 12\r\n\r\n", "Content-Type: x\r\n",
	"-5", "999999999999", "\x00", "\xff", " "}

// garbage is a few frames with right and wrong lengths and bodies of pieces of JSON, or pieces alone.
func garbage(rng *rand.Rand) string {
	var b strings.Builder
	for k := rng.Intn(4); k >= 0; k-- {
		body := filetest.Garbage(rng, garbagePieces, 30, 10)
		switch rng.Intn(4) {
		case 0: // unframed
			b.WriteString(body)
		case 1: // the right length
			b.WriteString(rawFrame(body))
		default: // a wrong one
			fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body)+rng.Intn(200)-100, body)
		}
	}
	return b.String()
}

// Whatever bytes come first, a well-framed request after them is read.
func FuzzStreamResync(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		f.Add([]byte(garbage(rng)))
	}
	f.Add([]byte(`Content-Length: 300` + "\r\n\r\n" + `{"a":"\`))
	f.Add([]byte("Content-Length: 5\r\n\r"))
	f.Fuzz(func(t *testing.T, data []byte) {
		last := `{"jsonrpc":"2.0","id":"the-last-one","method":"x"}`
		w := &wire{in: bytes.NewReader(append(data, rawFrame(last)...))}
		s := newStream(w, func(string, ...any) {})
		var got jsonrpc2.Message
		for i := 0; ; i++ {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				break
			}
			got = msg
			if i > len(data)+1 {
				t.Fatal("more messages than bytes")
			}
		}
		if c, ok := got.(*jsonrpc2.Call); !ok || c.ID() != jsonrpc2.NewStringID("the-last-one") {
			t.Fatalf("the request after %q was not read; the last message: %#v", data, got)
		}
	})
}
