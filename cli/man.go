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
	cmd := newCommand("man [COMMAND]", "print a man page, or write them all (ctxmap.1, ctxmap-context.1, ...) to a folder", `Print the man page of ctxmap, or of one of its commands, on stdout; with --dir, write every page
to that folder.`)
	cmd.Example = "  ctxmap man context | man -l -\n  ctxmap man --dir /usr/local/share/man/man1"
	cmd.Args = cobra.MaximumNArgs(1)
	dir := cmd.Flags().String("dir", "", "write every page to this `FOLDER`")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		root := cmd.Root()
		root.DisableAutoGenTag = true // no date: the same tree gives the same pages
		header := &doc.GenManHeader{Title: "CTXMAP", Section: "1", Source: "ctxmap " + Version, Manual: "ctxmap manual"}
		if *dir == "" {
			page := root
			if len(args) == 1 {
				c, rest, err := root.Find(args)
				if err != nil || len(rest) > 0 || c == root {
					return usagef("no command %q: see ctxmap --help", args[0])
				}
				page = c
			}
			return doc.GenMan(page, header, e.stdout)
		}
		if len(args) > 0 {
			return usagef("--dir writes every page: give no command")
		}
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			return err
		}
		if err := doc.GenManTree(root, header, *dir); err != nil {
			return fmt.Errorf("write the man pages: %w", err)
		}
		fmt.Fprintf(e.stderr, "ctxmap: wrote the man pages to %s\n", *dir)
		return nil
	}
	return cmd
}
