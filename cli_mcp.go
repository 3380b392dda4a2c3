package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ctxmap/ctxmap/mcp"
	"github.com/ctxmap/ctxmap/session"
)

// runMCP serves the Model Context Protocol on stdin/stdout; the log goes to stderr.
func runMCP(args []string, _ io.Reader, _ io.Writer) error {
	fs := newFlags("mcp")
	dir := fs.String("C", ".", "workspace root")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	ctx, cancel := interruptible()
	defer cancel()
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "ctxmap mcp: "+format+"\n", args...) }
	sess, err := session.Open(ctx, session.Options{Root: *dir, Watch: true, Logf: logf})
	if err != nil {
		return err
	}
	defer sess.Close()
	return mcp.Serve(ctx, sess, &mcp.Transport{In: os.Stdin, Out: os.Stdout, Logf: logf}, version)
}
