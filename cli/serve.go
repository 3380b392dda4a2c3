package cli

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"go.lsp.dev/pkg/fakenet"

	"github.com/ctxmap/ctxmap/mcp"
	"github.com/ctxmap/ctxmap/server"
	"github.com/ctxmap/ctxmap/session"
)

// runServe is the language server on stdin/stdout; the log goes to stderr.
func (e *env) serveCommand() *cobra.Command {
	cmd := newCommand("serve", "the language server, on stdin and stdout", `Serve the Language Server Protocol on stdin and stdout, for editors; the log goes to stderr. The
commands it offers (workspace/executeCommand) are ctxmap.context, ctxmap.exploreEntity, ctxmap.entities,
ctxmap.status and ctxmap.reindex.`)
	dir := cmd.Flags().StringP("dir", "C", ".", "workspace root when the editor names none")
	cmd.Flags().Bool("stdio", true, "talk LSP over stdin and stdout (the only transport; editors pass it)")
	cmd.RunE = func(*cobra.Command, []string) error { return e.runServe(*dir) }
	return cmd
}

func (e *env) runServe(dir string) error {
	// fakenet, as gopls: a plain wrapper's blocked stdin read never ends after exit
	conn := fakenet.NewConn("stdio", os.Stdin, os.Stdout)
	return server.Serve(context.Background(), conn, server.Options{Root: dir, Version: Version, Logf: e.logf("ctxmap serve: ")})
}

// runMCP serves the Model Context Protocol on stdin/stdout; the log goes to stderr.
func (e *env) mcpCommand() *cobra.Command {
	cmd := newCommand("mcp", "the MCP server for agents, on stdin and stdout", `Serve the Model Context Protocol on stdin and stdout, for agents; the log goes to stderr. Its tools:
get_context, explore_entity, find_symbol.`)
	dir := dirFlag(cmd)
	cmd.RunE = func(*cobra.Command, []string) error { return e.runMCP(*dir) }
	return cmd
}

func (e *env) runMCP(dir string) error {
	ctx, cancel := interruptible()
	defer cancel()
	logf := e.logf("ctxmap mcp: ")
	sess, err := session.Open(ctx, session.Options{Root: dir, Watch: true, Listen: true, Logf: logf})
	if err != nil {
		return err
	}
	defer sess.Close()
	return mcp.Serve(ctx, sess, &mcp.Transport{In: os.Stdin, Out: os.Stdout, Logf: logf}, Version)
}
