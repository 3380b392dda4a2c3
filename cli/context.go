package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

func (e *env) contextCommand() *cobra.Command {
	cmd := newCommand("context [flags] (TEXT... | -)", "the context pack for an issue", `Print the context pack for the text of an issue: the definitions, snippets, tests and callers an
LLM needs to act on it, within a token budget, each with why it is there. Give the text as arguments,
or pipe it (- reads stdin too); a text over 256 KiB is cut to its first 256 KiB, with a warning. When a ctxmap process (the language server, the MCP server or a background
process) has the workspace open, it answers; otherwise the command starts a background process
(ctxmap daemon) that answers this command and the next ones, or with --no-daemon opens the index
itself.`)
	cmd.Example = `  ctxmap context "checkout fails when the cart is empty"
  ctxmap context --budget 4000 --format json - < issue.md
  ctxmap context -o pack.json "the refund shows a wrong tax"`
	cmd.Args = cobra.ArbitraryArgs // the issue's text
	dir := dirFlag(cmd)
	f := cmd.Flags()
	budget := f.Int("budget", index.DefaultBudget, "token budget (unless given, the workspace's .ctxmap.yaml may set another)")
	format := f.String("format", "", "markdown, xml or json (default: from -o's extension, else markdown, or the workspace's .ctxmap.yaml)")
	asJSON := f.Bool("json", false, "print the pack as JSON (as --format json)")
	intent := f.String("intent", "", "override the detected intent: bug_fix, implementation, refactor, test_writing, definition_lookup, usage_exploration")
	tokenizer := f.String("tokenizer", "", "o200k_base or cl100k_base")
	packs := addPackFlags(cmd)
	out := f.StringP("output", "o", "", "write the pack to `FILE` instead of stdout (-: stdout)")
	copyIt := f.Bool("copy", false, "copy the pack to the system clipboard instead of printing it")
	noDaemon := noDaemonFlag(cmd)
	without := f.StringSlice("without", nil, "signals to switch off, comma-separated: "+strings.Join(index.Signals, ","))
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		// 0 in a request means "the default": on the command line it is a mistake
		if cmd.Flags().Changed("budget") && *budget < index.MinBudget {
			return usagef("--budget %d is below the minimum of %d tokens", *budget, index.MinBudget)
		}
		text, err := e.issueText(args)
		if err != nil {
			return err
		}
		if !cmd.Flags().Changed("budget") {
			*budget = 0 // the workspace's, else the default
		}
		o := packOutput{file: *out, copy: *copyIt}
		if o.file == "-" { // as most tools read it: stdout
			o.file = ""
		}
		form, err := packFormat(*format, *asJSON, o.file)
		if err != nil {
			return err
		}
		req := index.Request{Text: text, Budget: *budget, Format: form, Intent: *intent, Tokenizer: *tokenizer,
			Ranker: *packs.ranker, Fill: *packs.fill, Tight: *packs.tight, Without: *without}
		if err := o.check(); err != nil {
			return err
		}
		return e.runContext(*dir, req, o, *noDaemon)
	}
	return cmd
}

// packFormat is the format a pack is asked in: --format, --json, else the one -o's extension names
// (.json, .xml, .md, .markdown, .txt; another leaves it open); "" leaves it to the workspace's
// configuration.
func packFormat(format string, asJSON bool, file string) (string, error) {
	format = strings.ToLower(format)
	if asJSON {
		if format != "" && format != "json" {
			return "", usagef("--json and --format %s do not go together", format)
		}
		format = "json"
	}
	byExt := ""
	switch strings.ToLower(filepath.Ext(file)) {
	case ".json":
		byExt = "json"
	case ".xml":
		byExt = "xml"
	case ".md", ".markdown", ".txt":
		byExt = "markdown"
	case ".html", ".htm", ".svg":
		return "", usagef("-o %s: a pack is written as .md, .txt, .xml or .json (a picture is ctxmap map's)", file)
	}
	switch {
	case format == "":
		return byExt, nil
	case byExt != "" && byExt != format:
		return "", usagef("-o %s is not a %s file", file, format)
	}
	return format, nil
}

// issueText is the text of the issue: the arguments, else stdin when they are "-" or when none are
// given and stdin is not a terminal (a pipe, a file). A text longer than index.MaxText is cut to it,
// and said; stdin is not read past it.
func (e *env) issueText(args []string) (string, error) {
	text := strings.Join(args, " ")
	if (len(args) == 1 && args[0] == "-") || (len(args) == 0 && e.stdinPiped()) {
		b, err := io.ReadAll(io.LimitReader(e.stdin, index.MaxText+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		text = string(b)
	} else if len(args) == 0 {
		return "", usagef("give the issue text as arguments, or pipe it (- reads it from stdin)")
	}
	text, cut := index.CutText(text)
	if cut && !e.quiet {
		fmt.Fprintf(e.stderr, "ctxmap: the text is longer than %d KiB: only its first %d KiB are read\n", index.MaxText>>10, index.MaxText>>10)
	}
	return text, nil
}

// stdoutTerminal says whether stdout is a terminal.
func (e *env) stdoutTerminal() bool {
	f, ok := e.stdout.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// stdinPiped says whether stdin holds something to read: a pipe or a file, not a terminal.
func (e *env) stdinPiped() bool {
	if e.stdin == nil {
		return false
	}
	f, ok := e.stdin.(*os.File)
	return !ok || !term.IsTerminal(int(f.Fd()))
}

func (e *env) runContext(dir string, req index.Request, o packOutput, noDaemon bool) error {
	// checked here, so that a mistake is said before anyone is asked; the request goes as typed to
	// whoever answers, which resolves it (a running process with its own configuration); a broken
	// file is reported by opening the index
	if err := req.Validate(); err != nil {
		return usagef("%v", err)
	}
	if daemonAllowed(dir, noDaemon) {
		if done, err := e.askRunning(dir, req, o); done || err != nil {
			if cfg, cfgErr := index.LoadConfig(dir); cfgErr == nil {
				for _, msg := range cfg.Ignored { // the process that answered said it in its log
					fmt.Fprintf(e.stderr, "ctxmap: %s\n", msg)
				}
			}
			return err
		}
	}
	// one query: better complete than early, so every vector is waited for
	return e.withIndex(dir, indexUse{packs: true, vectors: true}, func(ctx context.Context, ix *index.Index, _ index.Stats) error {
		p, err := session.OpContext.Own(ctx, ix, req)
		if err != nil {
			return err
		}
		return e.printPack(o, p)
	})
}

// askRunning hands the request to the ctxmap process serving dir, started in the background first
// when none runs, and prints its pack; done is false when none answered.
func (e *env) askRunning(dir string, req index.Request, o packOutput) (done bool, err error) {
	return e.handOff(dir, func(ctx context.Context) error {
		p, err := session.OpContext.Ask(ctx, dir, req)
		if err != nil {
			return err
		}
		return e.printPack(o, p)
	})
}

// printPack prints a pack in the format its request resolved to: its text, or its JSON as agents
// read it (index.PackJSON: compact, held to the budget).
func (e *env) printPack(o packOutput, p *index.Pack) error {
	body := []byte(p.Text)
	if p.Request.Format == "json" {
		out, err := index.PackJSON(p)
		if err != nil {
			return err
		}
		body = append(out, '\n')
	}
	return e.emit(o, body, p)
}
