package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ctxmap/ctxmap/index"
)

func runContext(e *env, args []string) error {
	fs := e.flags("context")
	dir := fs.String("C", ".", "workspace root")
	budget := fs.Int("budget", 0, fmt.Sprintf("token budget (default %d, or the workspace's .ctxmap.yaml)", index.DefaultBudget))
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
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		text = string(b)
	}
	if strings.TrimSpace(text) == "" {
		return usagef("give the issue text as arguments, or - to read it from stdin")
	}
	req := index.Request{Text: text, Budget: *budget, Format: *format, Intent: *intent, Tokenizer: *tokenizer, Ranker: *ranker, Fill: *fill}
	if *without != "" {
		req.Without = strings.Split(*without, ",")
	}
	// the request's own mistakes before the index is opened; the workspace's defaults come after
	check := req
	if err := check.Normalize(index.Config{}); err != nil {
		return usagef("%v", err)
	}
	return e.withIndex(*dir, func(ctx context.Context, ix *index.Index, _ index.Stats) error {
		ix.WaitVectors() // one query: better complete than early
		res, err := ix.Context(ctx, req)
		if err != nil {
			return err
		}
		return e.write(*format == "json" || (*format == "" && ix.Config().Format == "json"), res.Pack, func(w io.Writer) error {
			_, err := io.WriteString(w, res.Pack.Text)
			return err
		})
	})
}
