package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool that panics answers its call with an error, and the server answers the next call: the SDK
// recovers nothing, recovered does.
func TestPanicInAToolIsAnError(t *testing.T) {
	ctx := context.Background()
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	calls := 0
	sdk.AddTool(s, &sdk.Tool{Name: "fragile"}, recovered("fragile", func(context.Context, *sdk.CallToolRequest, SymbolInput) (*sdk.CallToolResult, *Symbols, error) {
		calls++
		if calls == 1 {
			var coef []float64
			_ = coef[3] // index out of range, as a bad model's calibration did
		}
		return nil, &Symbols{}, nil
	}))
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "fragile", Arguments: map[string]any{"name": "x"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "internal error in fragile") {
		t.Fatalf("the panicking call: %v %+v, want an error result", err, res)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "fragile", Arguments: map[string]any{"name": "x"}})
	if err != nil || res.IsError {
		t.Fatalf("the call after the panic: %v %+v", err, res)
	}
}
