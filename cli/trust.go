package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

func (e *env) trustCommand() *cobra.Command {
	cmd := newCommand("trust", "let the workspace's .ctxmap.yaml reach outside the folder", `Trust the workspace: its .ctxmap.yaml may then set what reaches outside the folder (an embedding
endpoint and the variable holding its key, paths outside the workspace, limits above the defaults).
Until then those settings are ignored, with a warning; the rest of the file applies. The folder is
recorded by its real path in the user's configuration folder ($XDG_CONFIG_HOME/ctxmap, else
~/.config/ctxmap), where config.yaml sets the same keys for every workspace. A background process
serving the folder is stopped, so the next command reads the configuration again.`)
	cmd.Example = `  ctxmap trust -C ~/src/project
  ctxmap trust --revoke -C ~/src/project`
	dir := dirFlag(cmd)
	revoke := cmd.Flags().Bool("revoke", false, "no longer trust the folder")
	cmd.RunE = func(*cobra.Command, []string) error {
		real, err := index.Trust(*dir, *revoke)
		if err != nil {
			return err
		}
		ctx, cancel := interruptible()
		defer cancel()
		if _, err := session.StopBackground(ctx, *dir); err != nil {
			fmt.Fprintf(e.stderr, "ctxmap: the background process of %s goes on with the old configuration: %v\n", real, err)
		}
		if *revoke {
			fmt.Fprintf(e.stdout, "no longer trusted: %s\n", real)
		} else {
			fmt.Fprintf(e.stdout, "trusted: %s\n", real)
		}
		return nil
	}
	return cmd
}
