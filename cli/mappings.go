package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/mapping"
)

var errProblems = errors.New("mapping files have problems")

// runMappings checks the workspace's mapping files: file:line: message for each problem, exit 1 when any.
func runMappings(e *env, args []string) error {
	if len(args) == 0 || args[0] != "validate" {
		return usagef("ctxmap mappings validate [-C DIR]")
	}
	fs, dir := e.workspaceFlags("mappings validate")
	if err := parseNoArgs(fs, args[1:]); err != nil {
		return err
	}
	root, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	cfg, err := index.LoadConfig(root)
	if err != nil {
		return err
	}
	entries, _ := mapping.Load(root, cfg.Mappings)
	problems := mapping.Validate(root, cfg.Mappings)
	for _, p := range problems {
		fmt.Fprintln(e.stdout, p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %d", errProblems, len(problems))
	}
	fmt.Fprintf(e.stdout, "%d mappings, no problems\n", len(entries))
	return nil
}
