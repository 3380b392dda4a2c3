package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"go.lsp.dev/pkg/fakenet"

	"github.com/ctxmap/ctxmap/server"
)

// runServe is the language server on stdin/stdout; the log goes to stderr.
func runServe(args []string, _ io.Reader, _ io.Writer) error {
	fs := newFlags("serve")
	dir := fs.String("C", ".", "workspace root when the editor names none")
	fs.Bool("stdio", true, "talk LSP over stdin and stdout (the only transport; editors pass it)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	conn := fakenet.NewConn("stdio", os.Stdin, os.Stdout)
	return server.Serve(context.Background(), conn, server.Options{
		Root:    *dir,
		Version: version,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "ctxmap serve: "+format+"\n", args...)
		},
	})
}
