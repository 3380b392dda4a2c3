// Package mcptest connects an MCP client to a server over in-memory transports for the tests of any
// package, and reads the text of a tool's result.
package mcptest

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect runs serve on one end of a pair of in-memory transports and returns a client connected to
// the other end. When the test ends the client is closed, serve's context cancelled, and the test
// waits for serve to return.
func Connect(ctx context.Context, t testing.TB, serve func(context.Context, sdk.Transport) error) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	st, ct := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop")
		}
	})
	return cs
}

// Text is the text of a tool's result: its text contents, joined.
func Text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
