// Package cli is ctxmap's command line: subcommands, flags, exit codes and output; the work is the
// engine's (index, session) and the servers'. It sits at the top of the house: nothing imports it but
// main.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
)

// Version is the version the binary reports; a release sets it with
// -ldflags "-X github.com/ctxmap/ctxmap/cli.Version=...", and Commit and Built (RFC 3339) beside it.
// Without them, the commit and its time come from what go build stamps into the binary.
var (
	Version = "0.1.0"
	Commit  = ""
	Built   = ""
)

// versionLine is what --version prints: the version, the commit (marked when the tree had changes)
// and when it was built.
func versionLine() string {
	commit, built := Commit, Built
	if info, ok := debug.ReadBuildInfo(); ok && commit == "" {
		dirty := false
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				commit = kv.Value
			case "vcs.time":
				if built == "" {
					built = kv.Value
				}
			case "vcs.modified":
				dirty = kv.Value == "true"
			}
		}
		if dirty && commit != "" {
			commit += "-modified"
		}
	}
	if len(commit) > 12 && !strings.HasSuffix(commit, "-modified") {
		commit = commit[:12]
	} else if len(commit) > 12 {
		commit = commit[:12] + "-modified"
	}
	if commit == "" {
		commit = "unknown"
	}
	if built == "" {
		built = "unknown"
	}
	return fmt.Sprintf("ctxmap %s (commit %s, built %s)", Version, commit, built)
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// env is what a command reads and writes.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	quiet          bool // no progress and no summary on stderr
}

// Run runs the command line args (without the program's name) and returns the exit code: 0 success,
// 1 failure, 2 a usage error; messages go to stderr.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := e.command()
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "%s: %s\nRun '%s --help' for usage.\n", cmd.CommandPath(), ue.msg, cmd.CommandPath())
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", cmd.CommandPath(), err)
		return 1
	}
}

// command is the whole command tree; the man pages and completions are made from it too.
func (e *env) command() *cobra.Command {
	root := &cobra.Command{
		Use:   "ctxmap",
		Short: "context packs for LLMs from the text of an issue",
		Long: `ctxmap turns the text of an issue into the code an LLM needs to act on it, within a token
budget, and says why each piece is there. The same engine serves editors (ctxmap serve, a language
server) and agents (ctxmap mcp).`,
		Example: `  ctxmap context "checkout fails when the cart is empty"
  git log -1 --format=%B | ctxmap context --budget 4000 -
  ctxmap map --format text --budget 1000`,
		Version:                    Version,
		SuggestionsMinimumDistance: 2,
		SilenceErrors:              true, // Run prints them, with the exit code's distinction
		SilenceUsage:               true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %q?)", s[0])
			}
			return usageError{msg}
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(e.stderr)
			_ = cmd.Help()
			return usagef("give a command")
		},
	}
	// a missing or wrong -C is said before anything is asked, opened or written (no cache folder for it)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags().Lookup("dir")
		if f == nil || f.Shorthand != "C" { // man's --dir is where it writes
			return nil
		}
		if err := checkDir(f.Value.String()); err != nil {
			return err
		}
		// the workspace is the repository the folder is in: its nearest folder with .ctxmap.yaml or .git
		root, err := index.FindRoot(f.Value.String())
		if err != nil {
			return usagef("-C %s: %v", f.Value.String(), err)
		}
		if err := f.Value.Set(root); err != nil {
			return err
		}
		// a command here may start a background process, which takes its settings
		_, err = quietPeriod()
		return err
	}
	root.PersistentFlags().BoolVarP(&e.quiet, "quiet", "q", false, "no progress bars or summary line on stderr")
	root.SetVersionTemplate(versionLine() + "\n")
	// a flag's mistake is a usage error, as an argument's is
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err.Error()} })
	root.AddCommand(
		e.indexCommand(), e.entitiesCommand(), e.contextCommand(), e.exploreCommand(), e.mapCommand(),
		e.serveCommand(), e.mcpCommand(), e.daemonCommand(), e.mappingsCommand(), e.benchCommand(), e.manCommand(),
		e.versionCommand(), e.trustCommand(),
	)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	// cobra's own completion command (which takes the writer now), with a missing or unknown shell as a usage error
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = func(_ *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usagef("no completion for %q: give bash, zsh, fish or powershell", args[0])
				}
				return nil
			}
			c.RunE = func(*cobra.Command, []string) error { return usagef("give a shell: bash, zsh, fish or powershell") }
		}
	}
	return root
}

func (e *env) versionCommand() *cobra.Command {
	cmd := newCommand("version", "print the version", "")
	cmd.RunE = func(*cobra.Command, []string) error {
		_, err := fmt.Fprintln(e.stdout, versionLine())
		return err
	}
	return cmd
}

// noArgs accepts a command line with flags only.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unexpected argument %q", args[0])
	}
	return nil
}

// newCommand makes a subcommand with its help, taking no arguments: one that takes some sets Args again.
func newCommand(use, short, long string) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Long: long, Args: noArgs}
}

// formatFlag adds --format (text or json) and --json, its older spelling; the function returned says
// whether JSON is asked, or what is wrong with --format.
func formatFlag(cmd *cobra.Command, what string) func() (bool, error) {
	format := cmd.Flags().String("format", "text", "text or json")
	asJSON := cmd.Flags().Bool("json", false, "print "+what+" as JSON (as --format json)")
	return func() (bool, error) {
		switch strings.ToLower(*format) {
		case "text":
			return *asJSON, nil
		case "json":
			return true, nil
		}
		return false, usagef("--format %q is not one of text, json", *format)
	}
}

// checkDir says what is wrong with a workspace root: missing, or not a folder.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return usagef("-C %s: no such folder", dir)
	case err != nil:
		return usagef("-C %s: %v", dir, err)
	case !fi.IsDir():
		return usagef("-C %s: not a folder", dir)
	}
	return nil
}

// dirFlag adds the workspace root flag, -C as in git and make.
func dirFlag(cmd *cobra.Command) *string {
	return cmd.Flags().StringP("dir", "C", ".", "a folder of the workspace: its nearest enclosing folder with .ctxmap.yaml or .git is the root")
}

// packFlags are how a pack is ranked and filled (--ranker, --fill, --tight), the same for ctxmap
// context and for the packs ctxmap bench measures.
type packFlags struct {
	ranker      *string
	fill, tight *bool
}

func addPackFlags(cmd *cobra.Command) packFlags {
	f := cmd.Flags()
	return packFlags{
		ranker: f.String("ranker", "", "learned (default) or fusion"),
		fill:   f.Bool("fill", false, "fill the budget in the fused ranking's order"),
		tight:  f.Bool("tight", false, "a short pack: stop with the evidence (at most five files) instead of spending the budget on likely code"),
	}
}

func (e *env) logf(prefix string) func(string, ...any) {
	return func(format string, args ...any) { fmt.Fprintf(e.stderr, prefix+format+"\n", args...) }
}

func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// indexUse says what a command needs of the index besides its files.
type indexUse struct {
	packs   bool // it makes packs: the tokenizer loads while the index builds
	vectors bool // every chunk's vector in place before it goes on
	// the vector store loaded and checked whole: a damaged one is found and refilled now
	checked  bool
	emptyOK  bool // a workspace with nothing to read is said on stderr, not a failure
	noSearch bool // it searches nothing: a cache another process holds is read without its stores
	// the point is the cache: one that could not be written fails the command; every other command
	// reads a cache another process holds as that process last saved it (index.Options.ReadHeld)
	// instead of indexing in memory
	saved bool
}

// withIndex opens and refreshes the index of dir, runs f with it and closes it; progress goes to stderr,
// and an interrupt stops the work.
func (e *env) withIndex(dir string, use indexUse, f func(ctx context.Context, ix *index.Index, st index.Stats) error) (err error) {
	ctx, cancel := interruptible()
	defer cancel()
	ix, err := index.Open(ctx, index.Options{Root: dir, Logf: e.logf("ctxmap: "), Packs: use.packs,
		ReadHeld: !use.saved, SearchHeld: !use.noSearch})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := ix.Close(); cerr != nil && use.saved && err == nil {
			err = fmt.Errorf("the index was made but not kept: %w", cerr)
		}
	}()
	p := e.progress()
	st, err := ix.Build(ctx, p.files)
	p.endFiles()
	if err != nil {
		return err
	}
	if use.checked {
		ix.LoadVectors()
	}
	if use.vectors {
		p.vectors(ix)
	}
	p.summary(st)
	if err := st.Empty(); err != nil {
		if !use.emptyOK {
			return err
		}
		fmt.Fprintf(e.stderr, "ctxmap: %v\n", err)
	}
	err = safely(func() error { return f(ctx, ix, st) })
	if errors.Is(err, index.ErrInvalid) {
		return usagef("%v", err)
	}
	return err
}

// safely runs f; a panic in it (a bug met on one request) is the command's error, saying where it
// happened, instead of a stack trace.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v, at %s (a bug in ctxmap: please report it with the command)", r, panicSite())
		}
	}()
	return f()
}

// panicSite is the file and line of the code that panicked: the first frame outside the runtime.
func panicSite() string {
	pc := make([]uintptr, 32)
	frames := runtime.CallersFrames(pc[:runtime.Callers(3, pc)])
	for {
		fr, more := frames.Next()
		if !strings.HasPrefix(fr.Function, "runtime.") {
			return filepath.Base(filepath.Dir(fr.File)) + "/" + filepath.Base(fr.File) + ":" + strconv.Itoa(fr.Line)
		}
		if !more {
			return "an unknown place"
		}
	}
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
