// Command ctxmap turns the text of an issue into the code an LLM needs to act on it, within a token
// budget, and serves the same engine to editors (a language server) and agents (MCP).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `ctxmap: context packs for LLMs from the text of an issue

usage:
  ctxmap index    [-C DIR] [--json]                 build or refresh the index, print stats
  ctxmap entities [-C DIR] [--top N] [--json]       the project's entities by importance
  ctxmap context  [-C DIR] [--budget N] [--format markdown|xml|json] [--intent NAME] (TEXT... | -)
                                                    the context pack for an issue
  ctxmap explore  [-C DIR] [--limit N] [--json] ENTITY   the chunks about an entity
  ctxmap map      [-C DIR] [--entity NAME] [--top N] [-o FILE.svg|FILE.html]   the entity map as a picture
  ctxmap serve    [--stdio] [-C DIR]                the language server, on stdin/stdout
  ctxmap mappings validate [-C DIR]                 check the mapping files (file:line: problem)
  ctxmap mcp      [-C DIR]                          the MCP server for agents, on stdin/stdout
  ctxmap bench    (--dataset FILE --worktrees DIR | --speed -C DIR) [--json]   quality and speed figures
  ctxmap version

Run 'ctxmap COMMAND -h' for a command's flags.
`

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

var commands = map[string]func(args []string, stdin io.Reader, stdout io.Writer) error{
	"index":    runIndex,
	"entities": runEntities,
	"context":  runContext,
	"explore":  runExplore,
	"map":      runMap,
	"bench":    runBench,
	"serve":    runServe,
	"mcp":      runMCP,
	"mappings": runMappings,
	"version":  func([]string, io.Reader, io.Writer) error { fmt.Println("ctxmap", version); return nil },
}

const version = "0.1.0"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ctxmap: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	err := cmd(args[1:], stdin, stdout)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "ctxmap %s: %s\n", args[0], ue.msg)
		return 2
	default:
		fmt.Fprintf(stderr, "ctxmap %s: %v\n", args[0], err)
		return 1
	}
}

// newFlags makes a command's flag set: errors are returned (as usage errors), not printed and exited.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("ctxmap "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

// parseFlags parses args, accepting flags after positional arguments too.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		if args[0] == "-" || args[0] == "--" {
			if args[0] == "--" {
				return append(rest, args[1:]...), nil
			}
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}
