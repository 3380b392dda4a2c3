package server

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/session"
)

func TestMalformedMessagesGetErrorsAndServingGoesOn(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	for _, tc := range []struct {
		name, frame string
		want        []string
	}{
		{"truncated JSON", rawFrame(`{"jsonrpc":"2.0","id":99,"method":`), []string{`"id":null`, `"code":-32700`, "not valid JSON"}},
		{"not JSON at all", rawFrame(`hello server`), []string{`"id":null`, `"code":-32700`}},
		{"wrong version, with an id", rawFrame(`{"jsonrpc":"1.0","id":98,"method":"textDocument/hover"}`), []string{`"id":98`, `"code":-32600`}},
		{"method of the wrong type", rawFrame(`{"jsonrpc":"2.0","id":"s-97","method":5}`), []string{`"id":"s-97"`, `"code":-32600`}},
		{"bad length header", "Content-Length: lots\r\n\r\n", []string{`"id":null`, `"code":-32700`, "Content-Length"}},
		{"no length header", "Content-Type: application/json\r\n\r\n", []string{`"id":null`, "no Content-Length"}},
	} {
		if err := c.stream.writeRaw(tc.frame); err != nil {
			t.Fatal(err)
		}
		c.stream.waitFrame(t, tc.want...)
		// the session survives: a real request still gets its answer
		var st session.Status
		if err := c.command(cmdStatus, nil, &st); err != nil || !st.Ready {
			t.Fatalf("after %s: status %+v, %v", tc.name, st, err)
		}
	}
}

func TestReadFrame(t *testing.T) {
	t.Parallel()
	in := bufio.NewReader(strings.NewReader("\r\nContent-Length: 2\r\nContent-Type: x\r\n\r\n{}" +
		"stray line\r\nContent-Length: 2\r\n\r\n[]" +
		"Content-Length: abc\r\n\r\n" +
		"Content-Length: 5\r\n\r\n{\"a"))
	for _, want := range []string{"{}", "[]"} {
		if b, err := readFrame(in); err != nil || string(b) != want {
			t.Fatalf("frame %q, %v; want %q", b, err, want)
		}
	}
	if _, err := readFrame(in); !errors.Is(err, errFrame) || !strings.Contains(err.Error(), `"abc"`) {
		t.Fatalf("a block without a usable length: %v, want a frame error naming the value", err)
	}
	if _, err := readFrame(in); err == nil || errors.Is(err, errFrame) {
		t.Fatalf("a body cut short: %v, want a read error", err)
	}
}
