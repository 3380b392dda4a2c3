package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

func (e *env) exploreCommand() *cobra.Command {
	cmd := newCommand("explore [flags] ENTITY", "the chunks about an entity",
		"Print an entity (see ctxmap entities) with its importance, related entities, history terms and the chunks that mention it most.")
	cmd.Example = "  ctxmap explore RULE"
	cmd.Args = func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("give one entity name, e.g. ctxmap explore RULE")
		}
		return nil
	}
	dir := dirFlag(cmd)
	limit := cmd.Flags().Int("limit", index.DefaultExplore, "how many chunks")
	jsonAsked := formatFlag(cmd, "the chunks")
	noDaemon := noDaemonFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		if *limit < 1 {
			return usagef("--limit must be at least 1")
		}
		asJSON, err := jsonAsked()
		if err != nil {
			return err
		}
		a := session.ExploreArgs{Name: args[0], Limit: *limit}
		return answerOp(e, routeOf(*dir, *noDaemon), session.OpExplore, a, indexUse{noSearch: true}, func(ex *index.Exploration) error {
			return e.write(asJSON, ex, func(w io.Writer) error { return writeExploration(w, ex) })
		})
	}
	return cmd
}

func writeExploration(w io.Writer, ex *index.Exploration) error {
	e := ex.Entity
	fmt.Fprintf(w, "%s  importance %.2f, %s, %d files\n", e.Name, e.Importance, e.Centrality, len(e.Files))
	var rel []string
	for _, r := range e.Related {
		rel = append(rel, r.Name)
	}
	if len(rel) > 0 {
		fmt.Fprintf(w, "related: %s\n", strings.Join(head(rel, 8), ", "))
	}
	if len(e.BusinessTerms) > 0 {
		fmt.Fprintf(w, "history terms: %s\n", strings.Join(head(e.BusinessTerms, 8), ", "))
	}
	for _, c := range ex.Chunks {
		name := c.Symbol
		if name == "" {
			name = "(file)"
		}
		if _, err := fmt.Fprintf(w, "%s:%d\t%s\t%d mentions\t%s\n", c.Path, c.StartLine, name, c.Mentions, c.Changed.Format("2006-01-02")); err != nil {
			return err
		}
	}
	return nil
}
