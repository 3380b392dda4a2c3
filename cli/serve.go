package cli

import (
	"context"
	"os"

	"go.lsp.dev/pkg/fakenet"

	"github.com/ctxmap/ctxmap/mcp"
	"github.com/ctxmap/ctxmap/server"
	"github.com/ctxmap/ctxmap/session"
)

// runServe is the language server on stdin/stdout; the log goes to stderr.
func runServe(e *env, args []string) error {
	fs := e.flags("serve")
	dir := fs.String("C", ".", "workspace root when the editor names none")
	fs.Bool("stdio", true, "talk LSP over stdin and stdout (the only transport; editors pass it)")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	// fakenet, as gopls: a plain wrapper's blocked stdin read never ends after exit
	conn := fakenet.NewConn("stdio", os.Stdin, os.Stdout)
	return server.Serve(context.Background(), conn, server.Options{Root: *dir, Version: Version, Logf: e.logf("ctxmap serve: ")})
}

// runMCP serves the Model Context Protocol on stdin/stdout; the log goes to stderr.
func runMCP(e *env, args []string) error {
	fs, dir := e.workspaceFlags("mcp")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	ctx, cancel := interruptible()
	defer cancel()
	logf := e.logf("ctxmap mcp: ")
	sess, err := session.Open(ctx, session.Options{Root: *dir, Watch: true, Listen: true, Logf: logf})
	if err != nil {
		return err
	}
	defer sess.Close()
	return mcp.Serve(ctx, sess, &mcp.Transport{In: os.Stdin, Out: os.Stdout, Logf: logf}, Version)
}
