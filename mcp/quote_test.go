package mcp

import (
	"strings"
	"testing"
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
