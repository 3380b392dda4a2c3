// Command ctxmap turns the text of an issue into the code an LLM needs to act on it, within a token
// budget, and serves the same engine to editors (a language server) and agents (MCP).
package main

import (
	"os"

	"github.com/ctxmap/ctxmap/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
