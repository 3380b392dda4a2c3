package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
)

func (e *env) mapCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "map",
		Short: "the entity map as a picture",
		Long:  "Draw the project's entities and their relations as SVG (on stdout or to -o FILE.svg) or as an HTML page.",
		Example: `  ctxmap map -o map.html
  ctxmap map --entity RULE --top 12 -o rule.svg`,
		Args: noArgs,
	}
	dir := dirFlag(cmd)
	name := cmd.Flags().String("entity", "", "centre the map on this entity and its neighbourhood")
	top := cmd.Flags().Int("top", index.DefaultTop, "how many entities")
	out := cmd.Flags().StringP("output", "o", "", "the `FILE` to write: .svg or .html (default: SVG on stdout)")
	cmd.RunE = func(*cobra.Command, []string) error { return e.runMap(*dir, *name, *top, *out) }
	return cmd
}

func (e *env) runMap(dir, name string, top int, out string) error {
	if top < 1 {
		return usagef("--top must be at least 1")
	}
	ext := strings.ToLower(filepath.Ext(out))
	if out != "" && ext != ".svg" && ext != ".html" && ext != ".htm" {
		return usagef("-o must name a .svg or .html file, got %q", out)
	}
	return e.withIndex(dir, indexUse{}, func(_ context.Context, ix *index.Index, _ index.Stats) error {
		m, err := ix.EntityPicture(top, name)
		if err != nil {
			return err
		}
		m.Title = "Entities of " + filepath.Base(ix.Root())
		if name != "" {
			m.Title += " around " + m.Focus
		}
		if out == "" {
			return m.WriteSVG(e.stdout)
		}
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if ext == ".svg" {
			err = m.WriteSVG(f)
		} else {
			err = m.WriteHTML(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
		fmt.Fprintf(e.stderr, "ctxmap: wrote %s (%d entities, %d relations)\n", out, len(m.Nodes), len(m.Edges))
		return nil
	})
}
