package index

import "github.com/ctxmap/ctxmap/internal/pack"

// PackJSON is a pack as the command line and the MCP server give it as JSON, held to its budget as
// the text is (see pack.JSON): each item's code once, not the rendered text again.
func PackJSON(p *Pack) ([]byte, error) { return pack.JSON(p) }
