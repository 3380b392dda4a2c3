package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ctxmap/ctxmap/index"
)

func runExplore(args []string, _ io.Reader, stdout io.Writer) error {
	fs := newFlags("explore")
	dir := fs.String("C", ".", "workspace root")
	limit := fs.Int("limit", 20, "how many chunks")
	asJSON := fs.Bool("json", false, "print JSON")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("give one entity name, e.g. ctxmap explore RULE")
	}
	if *limit < 1 {
		return usagef("--limit must be at least 1")
	}
	ctx, cancel := interruptible()
	defer cancel()
	ix, _, err := openIndex(ctx, *dir)
	if err != nil {
		return err
	}
	defer ix.Close()
	ex, err := ix.Explore(rest[0], *limit)
	if errors.Is(err, index.ErrInvalid) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	e := ex.Entity
	fmt.Fprintf(stdout, "%s  importance %.2f, %s, %d files\n", e.Name, e.Importance, e.Centrality, len(e.Files))
	var rel []string
	for _, r := range e.Related {
		rel = append(rel, r.Name)
	}
	if len(rel) > 0 {
		fmt.Fprintf(stdout, "related: %s\n", strings.Join(head(rel, 8), ", "))
	}
	if len(e.BusinessTerms) > 0 {
		fmt.Fprintf(stdout, "history terms: %s\n", strings.Join(head(e.BusinessTerms, 8), ", "))
	}
	for _, c := range ex.Chunks {
		name := c.Symbol
		if name == "" {
			name = "(file)"
		}
		fmt.Fprintf(stdout, "%s:%d\t%s\t%d mentions\t%s\n", c.Path, c.StartLine, name, c.Mentions, c.Changed.Format("2006-01-02"))
	}
	return nil
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
