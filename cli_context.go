package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxmap/ctxmap/index"
)

func runContext(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := newFlags("context")
	dir := fs.String("C", ".", "workspace root")
	budget := fs.Int("budget", 0, "token budget (default 8000, or the workspace's .ctxmap.yaml)")
	format := fs.String("format", "", "markdown, xml or json")
	intent := fs.String("intent", "", "override the detected intent: bug_fix, implementation, refactor, test_writing, definition_lookup, usage_exploration")
	tokenizer := fs.String("tokenizer", "", "o200k_base or cl100k_base")
	ranker := fs.String("ranker", "", "learned (default) or fusion")
	fill := fs.Bool("fill", false, "fill the budget instead of stopping when the evidence does")
	without := fs.String("without", "", "comma-separated signals to switch off: "+strings.Join(index.Signals, ","))
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	text := strings.Join(rest, " ")
	if len(rest) == 1 && rest[0] == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return usagef("give the issue text as arguments, or - to read it from stdin")
	}
	if *budget != 0 && *budget < 100 {
		return usagef("--budget %d is below the minimum of 100 tokens", *budget)
	}
	switch *format {
	case "", "markdown", "xml", "json":
	default:
		return usagef("--format %q is not one of markdown, xml, json", *format)
	}
	var off []string
	if *without != "" {
		off = strings.Split(*without, ",")
	}
	ctx, cancel := interruptible()
	defer cancel()
	ix, _, err := openIndex(ctx, *dir)
	if err != nil {
		return err
	}
	defer ix.Close()
	ix.WaitVectors() // one query: better complete than early
	res, err := ix.Context(ctx, index.Request{Text: text, Budget: *budget, Format: *format, Intent: *intent, Tokenizer: *tokenizer, Without: off, Ranker: *ranker, Fill: *fill})
	if errors.Is(err, index.ErrInvalid) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	if *format == "json" || (*format == "" && ix.Config().Format == "json") {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Pack)
	}
	_, err = io.WriteString(stdout, res.Pack.Text)
	return err
}
