package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
)

var errProblems = errors.New("mapping files have problems")

// runMappings checks the workspace's mapping files: file:line: message for each problem, exit 1 when any.
func (e *env) mappingsCommand() *cobra.Command {
	cmd := newCommand("mappings", "check the mapping files", "")
	cmd.RunE = func(*cobra.Command, []string) error { return usagef("give a subcommand: ctxmap mappings validate") }
	validate := newCommand("validate", "check the mapping files: file:line: problem, exit 1 when any", "")
	dir := dirFlag(validate)
	validate.RunE = func(*cobra.Command, []string) error { return e.runMappings(*dir) }
	cmd.AddCommand(validate)
	return cmd
}

func (e *env) runMappings(dir string) error {
	root, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	cfg, err := index.LoadConfig(root)
	if err != nil {
		return err
	}
	entries, _ := index.LoadMappings(root, cfg.Mappings)
	problems := index.ValidateMappings(root, cfg.Mappings)
	for _, p := range problems {
		fmt.Fprintln(e.stdout, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %d", errProblems, len(problems))
	}
	fmt.Fprintf(e.stdout, "%d mappings, no problems\n", len(entries))
	return nil
}
