package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A name of a megabyte is refused with an error that quotes its start and says its length, not the
// megabyte back.
func TestErrorQuotesALongNameShort(t *testing.T) {
	cs, _ := connect(t)
	name := strings.Repeat("NoSuchSymbol", 90000)
	for _, args := range []map[string]any{{"name": name}, {"name": name, "kind": "function"}} {
		res, text := call(t, cs, "find_symbol", args)
		if !res.IsError || len(text) > 1000 || !strings.Contains(text, "NoSuchSymbolNoSuchSymbol") {
			t.Errorf("IsError=%v, an error of %d bytes: %.300s", res.IsError, len(text), text)
		}
	}
}

// A value the tool's schema refuses (a kind of a megabyte) is not repeated whole in the error either.
func TestSchemaErrorQuotesALongValueShort(t *testing.T) {
	cs, _ := connect(t)
	kind := strings.Repeat("nosuchkind", 100000)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "find_symbol", Arguments: map[string]any{"name": "Stock", "kind": kind}})
	if err != nil {
		if len(err.Error()) > 1000 {
			t.Fatalf("an error of %d bytes: %.300s", len(err.Error()), err.Error())
		}
		return
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError || len(text) > 1000 {
		t.Errorf("IsError=%v, an error of %d bytes: %.300s", res.IsError, len(text), text)
	}
}
