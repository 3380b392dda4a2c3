package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/bench"
	"github.com/ctxmap/ctxmap/index"
)

func runBench(args []string, _ io.Reader, stdout io.Writer) error {
	fs := newFlags("bench")
	dataset := fs.String("dataset", "", "instances, one JSON object a line (quality mode)")
	worktrees := fs.String("worktrees", "", "folder of the instances' work trees, <owner>+<name>@<sha12> (quality mode)")
	budget := fs.Int("budget", 8000, "token budget of every pack")
	repos := fs.String("repos", "", "comma-separated owner/name list to keep")
	limit := fs.Int("limit", 0, "keep at most N instances in all (0: all)")
	perRepo := fs.Int("per-repo", 0, "keep the first N instances of each repository (0: all)")
	without := fs.String("without", "", "also run ctxmap with these signals off, comma-separated: "+strings.Join(index.Signals, ","))
	ablation := fs.Bool("ablation", false, "also run ctxmap with each signal off in turn")
	baseline := fs.Bool("baseline", true, "also run the whole-file BM25 baseline")
	cache := fs.String("cache", "", "folder for the per-repository caches (default: a temporary folder)")
	speed := fs.Bool("speed", false, "measure indexing, update and query speed on the tree given by -C")
	dir := fs.String("C", ".", "the tree for --speed")
	edits := fs.Int("edits", 100, "one-file edits to time (speed mode)")
	queries := fs.Int("queries", 30, "context queries to time (speed mode)")
	runs := fs.Int("runs", 3, "cold, ctags and warm runs, each (speed mode)")
	asJSON := fs.Bool("json", false, "print one JSON document")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if *budget < 100 {
		return usagef("--budget %d is below the minimum of 100 tokens", *budget)
	}
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, "ctxmap bench: "+f+"\n", a...) }
	ctx, cancel := interruptible()
	defer cancel()

	if *speed {
		if *edits < 1 || *queries < 1 || *runs < 1 {
			return usagef("--edits, --queries and --runs must be at least 1")
		}
		rep, err := bench.Speed(ctx, bench.SpeedOptions{Dir: *dir, Edits: *edits, Queries: *queries, Runs: *runs, Budget: *budget, Logf: logf})
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(stdout, rep)
		}
		return rep.WriteTable(stdout)
	}

	if *dataset == "" || *worktrees == "" {
		return usagef("give --dataset FILE and --worktrees DIR (or --speed -C DIR)")
	}
	if *limit < 0 || *perRepo < 0 {
		return usagef("--limit and --per-repo must not be negative")
	}
	opts := bench.Options{
		Dataset: *dataset, Worktrees: *worktrees, Budget: *budget, Baseline: *baseline, CacheDir: *cache, Logf: logf,
		Selection: bench.Selection{Repos: *repos, PerRepo: *perRepo, Limit: *limit},
	}
	if *without != "" {
		off := strings.Split(*without, ",")
		for _, s := range off {
			if !slices.Contains(index.Signals, s) {
				return usagef("--without: unknown signal %q (known: %s)", s, strings.Join(index.Signals, ", "))
			}
		}
		opts.Without = append(opts.Without, off)
	}
	if *ablation {
		for _, s := range index.Signals {
			opts.Without = append(opts.Without, []string{s})
		}
	}
	rep, err := bench.Run(ctx, opts)
	if rep == nil {
		return err
	}
	if *asJSON {
		if werr := writeJSON(stdout, rep); werr != nil {
			return werr
		}
	} else if werr := rep.WriteTable(stdout); werr != nil {
		return werr
	}
	return err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
