// Package cli is ctxmap's command line: subcommands, flags, exit codes and output; the work is the
// engine's (index, session) and the servers'.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/ctxmap/ctxmap/index"
)

// Version is the version the binary reports.
const Version = "0.1.0"

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

// env is what a command reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

var commands = map[string]func(e *env, args []string) error{
	"index":    runIndex,
	"entities": runEntities,
	"context":  runContext,
	"explore":  runExplore,
	"map":      runMap,
	"bench":    runBench,
	"serve":    runServe,
	"mcp":      runMCP,
	"mappings": runMappings,
	"version":  func(e *env, _ []string) error { _, err := fmt.Fprintln(e.stdout, "ctxmap", Version); return err },
}

// Run runs the command line args (without the program's name) and returns the exit code: 0 success,
// 1 failure, 2 a usage error.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
	err := cmd(&env{stdin: stdin, stdout: stdout, stderr: stderr}, args[1:])
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

// flags makes a command's flag set: errors are returned (as usage errors), not printed and exited.
func (e *env) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("ctxmap "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// workspaceFlags makes the flag set of a command on a workspace, with its -C.
func (e *env) workspaceFlags(name string) (*flag.FlagSet, *string) {
	fs := e.flags(name)
	return fs, fs.String("C", ".", "workspace root")
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
		if args[0] == "--" {
			return append(rest, args[1:]...), nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

// parseNoArgs parses a command that takes flags only.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	return nil
}

func (e *env) logf(prefix string) func(string, ...any) {
	return func(format string, args ...any) { fmt.Fprintf(e.stderr, prefix+format+"\n", args...) }
}

func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// withIndex opens and refreshes the index of dir, runs f with it and closes it; progress goes to stderr,
// and an interrupt stops the work. packs says f will make packs.
func (e *env) withIndex(dir string, packs bool, f func(ctx context.Context, ix *index.Index, st index.Stats) error) error {
	ctx, cancel := interruptible()
	defer cancel()
	ix, err := index.Open(ctx, index.Options{Root: dir, Logf: e.logf("ctxmap: "), Packs: packs})
	if err != nil {
		return err
	}
	defer ix.Close()
	st, err := ix.Build(ctx, nil)
	if err != nil {
		return err
	}
	err = f(ctx, ix, st)
	if errors.Is(err, index.ErrInvalid) {
		return usagef("%v", err)
	}
	return err
}

// write prints v as indented JSON, else as text writes it.
func (e *env) write(asJSON bool, v any, text func(w io.Writer) error) error {
	if asJSON {
		return writeJSON(e.stdout, v)
	}
	return text(e.stdout)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
