package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxmap/ctxmap/session"
)

// Serve builds the index in the background and answers MCP requests on t until the client leaves
// or ctx ends; the session keeps the index current with the disk meanwhile.
func Serve(ctx context.Context, sess *session.Session, t sdk.Transport, version string) error {
	sess.Start()
	return NewServer(sess, version).Run(ctx, t)
}
