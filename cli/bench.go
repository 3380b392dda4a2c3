package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/bench"
	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/mine"
)

func (e *env) benchCommand() *cobra.Command {
	cmd := newCommand("bench", "quality and speed figures", `Measure ctxmap. Quality mode (--dataset, --worktrees): for each instance, an issue and the files its
fix changed, the pack's file recall within the budget, hit@k, symbol recall and more, beside the
baselines. Speed mode (--speed -C DIR): cold and warm index times against ctags, one-file updates,
queries and peak memory; the command handed off to the background process; the partial pack on a tree
never indexed against the full index's (with --dataset, on its issues and their gold files, under
--issues-prefix in the tree); the first ctxmap context on an empty cache. Readiness mode (--readiness -C DIR):
a session on an empty cache, as an agent's or editor's first minutes meet it, asked each operation as its
first build starts: when each answered and what it gave, and the packs asked meanwhile against the packs of
the same texts once it is in (with --dataset, their gold files). docs/benchmarks.md tells how to fetch the
instances and remake the figures.`)
	cmd.Example = `  ctxmap bench --speed -C ~/src/cli
  ctxmap bench --readiness -C ~/src/cli
  ctxmap bench --dataset instances.jsonl --worktrees trees/ --json`
	f := cmd.Flags()
	dataset := f.String("dataset", "", "instances, one JSON object a line (quality mode; in speed mode, the issues of the partial packs)")
	changed := f.String("lines", "", "the lines each fix changed, one JSON object a line (default: the dataset's -lines.jsonl beside it)")
	worktrees := f.String("worktrees", "", "folder of the instances' work trees, <owner>+<name>@<sha12> (quality mode)")
	budget := f.Int("budget", index.DefaultBudget, "token budget of every pack")
	budgets := f.IntSlice("budgets", nil, "also run every system at these budgets, for a curve (2000,4000,16000): each reported as SYSTEM@BUDGET")
	repos := f.String("repos", "", "comma-separated owner/name list to keep")
	limit := f.Int("limit", 0, "keep at most N instances in all (0: all)")
	perRepo := f.Int("per-repo", 0, "keep the first N instances of each repository (0: all)")
	without := f.String("without", "", "also run ctxmap with these signals off, comma-separated: "+strings.Join(index.Signals, ","))
	ablation := f.Bool("ablation", false, "also run ctxmap with each signal off in turn")
	baseline := f.Bool("baseline", true, "also run the whole-file BM25 baseline")
	fusion := f.Bool("fusion", true, "also run the fused ranking with budget-filling packs ("+bench.SystemFusion+")")
	packs := addPackFlags(cmd) // ctxmap's packs
	model := f.String("model", "", "a model file for the learned ranker (default: the shipped one)")
	reliability := f.String("reliability", "", "write the learned ranker's reliability plot to this SVG file")
	cache := f.String("cache", "", "folder for the per-repository caches (default: a temporary folder)")
	perTree := f.Bool("cache-per-tree", false, "keep a cache per work tree, so that a second run over --cache indexes nothing again")
	speed := f.Bool("speed", false, "measure indexing, update and query speed on the tree given by -C")
	readiness := f.Bool("readiness", false, "ask each operation of a session on the tree given by -C as its first build starts")
	dir := f.StringP("dir", "C", ".", "the tree for --speed or --readiness")
	edits := f.Int("edits", 100, "one-file edits to time (speed mode)")
	queries := f.Int("queries", 30, "context queries to time (speed mode; readiness mode: the texts, 10 unless given)")
	runs := f.Int("runs", 3, "cold, ctags and warm runs, each (speed mode)")
	prefix := f.String("issues-prefix", "", "speed mode with --dataset: the folder of the tree the dataset's repository sits in (sphinx/)")
	jsonAsked := formatFlag(cmd, "one document")
	features := f.String("features", "", "write each instance's candidates and their features to this JSONL file, as mined pairs are")
	cmd.RunE = func(*cobra.Command, []string) error {
		if *budget < index.MinBudget {
			return usagef("--budget %d is below the minimum of %d tokens", *budget, index.MinBudget)
		}
		asJSON, err := jsonAsked()
		if err != nil {
			return err
		}
		logf := e.logf("ctxmap bench: ")
		ctx, cancel := interruptible()
		defer cancel()

		if *readiness {
			texts := 0 // the mode's own default
			if cmd.Flags().Changed("queries") {
				if *queries < 1 {
					return usagef("--queries must be at least 1")
				}
				texts = *queries
			}
			rep, err := bench.Readiness(ctx, bench.ReadinessOptions{Dir: *dir, Budget: *budget, Texts: texts,
				Issues: *dataset, IssuesPrefix: *prefix, Logf: logf})
			if err != nil {
				return err
			}
			return e.write(asJSON, rep, rep.WriteTable)
		}
		if *speed {
			if *edits < 1 || *queries < 1 || *runs < 1 {
				return usagef("--edits, --queries and --runs must be at least 1")
			}
			bin, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find this binary for the one-shot figures: %w", err)
			}
			rep, err := bench.Speed(ctx, bench.SpeedOptions{Dir: *dir, Edits: *edits, Queries: *queries, Runs: *runs, Budget: *budget, Binary: bin,
				Issues: *dataset, IssuesPrefix: *prefix, Logf: logf})
			if err != nil {
				return err
			}
			return e.write(asJSON, rep, rep.WriteTable)
		}

		if *dataset == "" || *worktrees == "" {
			return usagef("give --dataset FILE and --worktrees DIR (or --speed -C DIR)")
		}
		if *limit < 0 || *perRepo < 0 {
			return usagef("--limit and --per-repo must not be negative")
		}
		if *packs.ranker != "" && *packs.ranker != index.RankerLearned && *packs.ranker != index.RankerFusion {
			return usagef("--ranker %q is not one of learned, fusion", *packs.ranker)
		}
		opts := bench.Options{
			Dataset: *dataset, Changed: *changed, Worktrees: *worktrees, Budget: *budget, Baseline: *baseline, CacheDir: *cache, Logf: logf,
			CachePerTree: *perTree,
			Selection:    bench.Selection{Repos: *repos, PerRepo: *perRepo, Limit: *limit},
			Fusion:       *fusion, Ranker: *packs.ranker, Fill: *packs.fill, Tight: *packs.tight, Budgets: *budgets,
		}
		if *features != "" {
			fw, err := os.Create(*features)
			if err != nil {
				return err
			}
			defer fw.Close()
			opts.Features = fw
		}
		if *model != "" {
			b, err := os.ReadFile(*model)
			if err != nil {
				return err
			}
			if opts.Model, err = index.ParseModel(b); err != nil {
				return fmt.Errorf("%s: %w", *model, err)
			}
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
		if *reliability != "" {
			f, ferr := os.Create(*reliability)
			if ferr != nil {
				return ferr
			}
			werr := rep.ReliabilityOf(bench.SystemCtxmap, 10).WriteSVG(f, "ctxmap: calibration of file probabilities on "+filepath.Base(*dataset))
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				return werr
			}
		}
		if werr := e.write(asJSON, rep, rep.WriteTable); werr != nil {
			return werr
		}
		return err
	}
	cmd.AddCommand(e.mineCommand())
	return cmd
}

// runMine writes training pairs mined from the histories of the listed repositories.
func (e *env) mineCommand() *cobra.Command {
	cmd := newCommand("mine", "training pairs mined from repositories' histories",
		"Write training pairs for the learned ranker, mined from the first-parent histories of the listed repositories: a commit's message asked against a snapshot before it, with the files it changed. With --reports, each issue of the file is asked at the parent of the commit that fixed it instead.")
	f := cmd.Flags()
	repos := f.String("repos", "", "file of repositories to mine, one owner/name a line (# comments)")
	reports := f.String("reports", "", `JSONL file of issues and their fixes, {"repo": "owner/name", "commit": HASH, "text": ISSUE} a line, to mine instead of --repos`)
	mirrors := f.String("mirrors", "", "folder of bare mirrors, MIRRORS/<owner>+<name>/repo")
	work := f.String("work", "", "folder for the work trees and caches")
	out := f.String("out", "", "JSONL file to append the pairs to (default: stdout)")
	snapshots := f.Int("snapshots", 4, "snapshots per repository")
	queries := f.Int("queries", 100, "commits asked per snapshot")
	window := f.Int("window", 300, "first-parent commits after a snapshot that may be asked against it")
	shard := f.String("shard", "1/1", "mine the repositories of shard I of N (by line)")
	cmd.RunE = func(*cobra.Command, []string) error {
		if (*repos == "") == (*reports == "") || *mirrors == "" || *work == "" {
			return usagef("give --repos FILE or --reports FILE, --mirrors DIR and --work DIR")
		}
		var si, sn int
		if _, err := fmt.Sscanf(*shard, "%d/%d", &si, &sn); err != nil || sn < 1 || si < 1 || si > sn {
			return usagef("--shard %q is not I/N", *shard)
		}
		if *snapshots < 1 || *queries < 1 || *window < 1 {
			return usagef("--snapshots, --queries and --window must be at least 1")
		}
		var all []string // the repositories to mine, in order
		var issues []mine.Report
		if *reports != "" {
			f, err := os.Open(*reports)
			if err != nil {
				return err
			}
			issues, err = mine.ReadReports(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", *reports, err)
			}
			for _, rp := range issues {
				if !slices.Contains(all, rp.Repo) {
					all = append(all, rp.Repo)
				}
			}
		} else {
			b, err := os.ReadFile(*repos)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
					all = append(all, f[0])
				}
			}
		}
		var shardRepos []string // every N-th repository, from the I-th
		for n, r := range all {
			if n%sn == si-1 {
				shardRepos = append(shardRepos, r)
			}
		}
		w := e.stdout
		if *out != "" {
			f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			defer f.Close()
			w = f
		}
		ctx, cancel := interruptible()
		defer cancel()
		logf := e.logf("ctxmap bench mine: ")
		o := mine.Options{Repos: shardRepos, Mirrors: *mirrors, Work: *work, Snapshots: *snapshots,
			Queries: *queries, Window: *window, Out: w, Logf: logf}
		var pairs int
		var err error
		if *reports != "" {
			issues = slices.DeleteFunc(issues, func(rp mine.Report) bool { return !slices.Contains(shardRepos, rp.Repo) })
			pairs, err = mine.RunReports(ctx, o, issues)
		} else {
			pairs, err = mine.Run(ctx, o)
		}
		logf("%d pairs", pairs)
		return err
	}
	return cmd
}
