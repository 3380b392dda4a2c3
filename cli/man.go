package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manCommand writes the man pages, made from the command tree itself so they never disagree with --help;
// the release runs it.
func (e *env) manCommand() *cobra.Command {
	cmd := newCommand("man", "write the man pages (ctxmap.1, ctxmap-context.1, ...) to a folder", "")
	cmd.Example = "  ctxmap man --dir /usr/local/share/man/man1"
	dir := cmd.Flags().String("dir", "man", "the `FOLDER` to write them to")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			return err
		}
		root := cmd.Root()
		root.DisableAutoGenTag = true // no date: the same tree gives the same pages
		header := &doc.GenManHeader{Title: "CTXMAP", Section: "1", Source: "ctxmap " + Version, Manual: "ctxmap manual"}
		if err := doc.GenManTree(root, header, *dir); err != nil {
			return fmt.Errorf("write the man pages: %w", err)
		}
		fmt.Fprintf(e.stderr, "ctxmap: wrote the man pages to %s\n", *dir)
		return nil
	}
	return cmd
}
