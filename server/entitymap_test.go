package server

import (
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

func TestEntityMapCommand(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	c := start(t, root, Options{}, nil, nil)
	c.waitReady()

	var got struct {
		HTML     string `json:"html"`
		SVG      string `json:"svg"`
		Entities int    `json:"entities"`
	}
	if err := c.command(cmdEntityMap, map[string]any{"entity": "gist", "top": 3}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Entities != 3 || !strings.HasPrefix(got.SVG, "<svg") || !strings.Contains(got.SVG, ">GIST<") ||
		!strings.Contains(got.HTML, "<!DOCTYPE html>") || !strings.Contains(got.HTML, `"focus":"GIST"`) {
		t.Errorf("entity map around gist: %d entities, svg %.80q, html %.80q", got.Entities, got.SVG, got.HTML)
	}
	err := c.command(cmdEntityMap, map[string]any{"entity": "spaceship"}, &got)
	if e, ok := err.(*jsonrpc2.Error); !ok || e.Code != jsonrpc2.InvalidParams || !strings.Contains(e.Message, "unknown entity") {
		t.Errorf("unknown entity: %v, want InvalidParams naming it", err)
	}
}
