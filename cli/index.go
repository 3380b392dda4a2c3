package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

func (e *env) indexCommand() *cobra.Command {
	cmd := newCommand("index", "build or refresh the index, print its stats", `Build or refresh the index of the workspace and print its stats: files, definitions, references,
entities, languages and the files skipped, with why. The index is kept in a cache folder outside the
workspace, so the next run reads only what changed.`)
	dir := dirFlag(cmd)
	jsonAsked := formatFlag(cmd, "the stats")
	export := cmd.Flags().String("export", "", "write the index of this commit to `FILE`, for others to import")
	imp := cmd.Flags().String("import", "", "start from the index exported to `FILE` (of the same commit), then refresh it")
	verify := cmd.Flags().Bool("verify", false, "first read every file of the cache and check it: a damaged one is named, and rebuilt by this run")
	noDaemon := noDaemonFlag(cmd)
	cmd.RunE = func(*cobra.Command, []string) error {
		asJSON, err := jsonAsked()
		if err != nil {
			return err
		}
		return e.runIndex(*dir, indexRun{json: asJSON, export: *export, imp: *imp, verify: *verify, alone: inThisProcess(*noDaemon)})
	}
	return cmd
}

// indexRun is what `ctxmap index` was asked for.
type indexRun struct {
	json        bool   // the stats as JSON
	export, imp string // the file an index is exported to, or imported from
	verify      bool   // every file of the cache checked first
	alone       bool   // refreshed here, not by the process that serves the workspace
}

func (e *env) runIndex(dir string, r indexRun) error {
	if r.export != "" && r.imp != "" {
		return usagef("--export and --import do not go together")
	}
	if r.verify {
		// the check reads the cache's files as no other process writes them: a background process
		// leaves it the cache (the next command starts another)
		ctx, cancel := interruptible()
		stopped, err := session.StopBackground(ctx, dir)
		cancel()
		if err != nil {
			return err
		}
		if stopped != nil && !e.quiet {
			fmt.Fprintln(e.stderr, "ctxmap: the background process left the cache to the check")
		}
	}
	// what is exported is checked first; what is imported, after
	if r.verify && r.imp == "" {
		if err := e.verify(dir); err != nil {
			return err
		}
	}
	if r.export != "" || r.imp != "" {
		ctx, cancel := interruptible()
		defer cancel()
		opts := index.Options{Root: dir, Logf: e.logf("ctxmap: ")}
		if r.export != "" {
			id, err := index.Export(ctx, opts, r.export)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "exported %s (%s)\n", r.export, id)
			return err
		}
		id, err := index.Import(ctx, opts, r.imp)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "ctxmap: imported %s (%s)\n", r.imp, id)
		if r.verify {
			if err := e.verify(dir); err != nil {
				return err
			}
		}
	}
	if r.export == "" && r.imp == "" && !r.alone {
		// a process that serves the workspace refreshes the index it shares, rather than this one
		// indexing in memory beside it
		done, err := e.askServing(dir, func(ctx context.Context) error {
			st, err := session.OpRefresh.Ask(ctx, dir, session.None{})
			if err != nil {
				return err
			}
			if err := st.Empty(); err != nil {
				fmt.Fprintf(e.stderr, "ctxmap: %v\n", err)
			}
			return e.writeStats(r.json, st)
		})
		if done {
			return err
		}
	}
	return e.withIndex(dir, indexUse{vectors: true, checked: true, emptyOK: true, saved: true}, func(_ context.Context, ix *index.Index, st index.Stats) error {
		return e.writeStats(r.json, st)
	})
}

// writeStats prints an index's stats, as JSON or as lines.
func (e *env) writeStats(asJSON bool, st index.Stats) error {
	return e.write(asJSON, st, func(w io.Writer) error {
		fmt.Fprintf(w, "%s: %d files, %d definitions, %d references, %d entities, %d chunks in %.2fs (%d parsed)\n",
			st.Root, st.Files, st.Definitions, st.References, st.Entities, st.Chunks, st.Seconds, st.Parsed)
		fmt.Fprintf(w, "languages: %s\n", index.Counts(st.Languages, strconv.Itoa))
		if len(st.Skipped) > 0 {
			fmt.Fprintf(w, "skipped: %s\n", index.Counts(st.Skipped, strconv.Itoa))
		}
		_, err := fmt.Fprintf(w, "history: %s (%d commits)\nvectors: %s\ncache: %s\n", st.History, st.Commits, st.Vectors, st.Cache)
		return err
	})
}

// verify reads every file of the cache of dir and checks it, saying each damaged one (moved aside, to
// be rebuilt by the index opened next).
func (e *env) verify(dir string) error {
	ctx, cancel := interruptible()
	defer cancel()
	said, err := index.Verify(ctx, index.Options{Root: dir})
	for _, s := range said {
		fmt.Fprintf(e.stderr, "ctxmap: %s\n", s)
	}
	if err == nil && len(said) == 0 && !e.quiet {
		fmt.Fprintln(e.stderr, "ctxmap: verified: every file of the cache is sound")
	}
	return err
}

func (e *env) entitiesCommand() *cobra.Command {
	cmd := newCommand("entities", "the project's entities by importance", "")
	dir := dirFlag(cmd)
	top := cmd.Flags().Int("top", index.DefaultTop, "how many entities")
	jsonAsked := formatFlag(cmd, "the entities")
	noDaemon := noDaemonFlag(cmd)
	cmd.RunE = func(*cobra.Command, []string) error {
		asJSON, err := jsonAsked()
		if err != nil {
			return err
		}
		return e.runEntities(routeOf(*dir, *noDaemon), *top, asJSON)
	}
	return cmd
}

func (e *env) runEntities(r route, top int, asJSON bool) error {
	if top < 1 {
		return usagef("--top must be at least 1")
	}
	return answerOp(e, r, session.OpEntities, session.EntitiesArgs{Top: top}, indexUse{noSearch: true}, func(es []index.EntitySummary) error {
		return e.writeEntities(asJSON, es)
	})
}

func (e *env) writeEntities(asJSON bool, es []index.EntitySummary) error {
	return e.write(asJSON, es, func(w io.Writer) error {
		for _, s := range es {
			if _, err := fmt.Fprintf(w, "%-28s %.2f %-14s %4d files  related: %s\n", s.Name, s.Importance, s.Centrality, len(s.Files), strings.Join(head(s.Related, 5), ", ")); err != nil {
				return err
			}
		}
		return nil
	})
}
