package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/session"
)

// QuietEnv sets the quiet period after which a background process leaves (a Go duration: "10m").
const QuietEnv = "CTXMAP_DAEMON_QUIET"

func (e *env) daemonCommand() *cobra.Command {
	cmd := newCommand("daemon", "the background process that answers context, entities, explore and map", `Serve the workspace's index in the background: build it, follow the disk, and answer ctxmap
context, entities, explore and map on the query socket in the cache folder, until no request came
for the quiet period. Those commands start it themselves when no ctxmap process serves the workspace
(unless --no-daemon, `+NoDaemonEnv+`=1 or "daemon: false" in .ctxmap.yaml); its log is
background.log in the cache folder. An editor's or an agent's server that opens the workspace asks it
to leave, and takes the cache over.`)
	cmd.Example = `  ctxmap daemon -C ~/src/project &
  ctxmap daemon --status
  ctxmap daemon --stop -C ~/src/project`
	dir := dirFlag(cmd)
	idle := cmd.Flags().Duration("idle", session.DefaultQuiet, "leave after this long without a request (or "+QuietEnv+")")
	stop := cmd.Flags().Bool("stop", false, "ask the running background process to leave, wait until it has, and say which it was")
	status := cmd.Flags().Bool("status", false, "list the ctxmap processes that serve workspaces: workspace, pid, since, index, log, build")
	jsonAsked := formatFlag(cmd, "the processes (--status)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if *stop && *status {
			return usagef("--stop and --status do not go together")
		}
		if *status {
			ctx, cancel := interruptible()
			defer cancel()
			asJSON, err := jsonAsked()
			if err != nil {
				return err
			}
			ps, err := session.Running(ctx)
			if err != nil {
				return err
			}
			return e.write(asJSON, ps, func(io.Writer) error { return e.writeProcesses(ps) })
		}
		if *stop {
			ctx, cancel := interruptible()
			defer cancel()
			p, err := session.StopBackground(ctx, *dir)
			switch {
			case err != nil:
				return err
			case p == nil:
				fmt.Fprintln(e.stderr, "ctxmap: no background process serves", *dir)
			case p.Pid == 0:
				fmt.Fprintf(e.stderr, "ctxmap: stopped the background process of %s (another version)\n", *dir)
			default:
				fmt.Fprintf(e.stderr, "ctxmap: stopped the background process of %s (pid %d, since %s)\n", p.Root, p.Pid, p.Since.Local().Format(time.DateTime))
			}
			return nil
		}
		if !cmd.Flags().Changed("idle") {
			d, err := quietPeriod()
			if err != nil {
				return err
			}
			*idle = d
		}
		if *idle <= 0 {
			return usagef("--idle must be positive")
		}
		ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer cancel()
		logf := func(format string, args ...any) {
			fmt.Fprintf(e.stderr, time.Now().Format("2006-01-02 15:04:05.000")+" "+format+"\n", args...)
		}
		return session.RunBackground(ctx, *dir, *idle, logf)
	}
	return cmd
}

// writeProcesses lists the running processes, a line each.
func (e *env) writeProcesses(ps []session.Process) error {
	if len(ps) == 0 {
		_, err := fmt.Fprintln(e.stdout, "no ctxmap process serves a workspace")
		return err
	}
	for _, p := range ps {
		if p.Pid == 0 {
			fmt.Fprintf(e.stdout, "?  %s  (log: %s)\n", p.Error, p.Log)
			continue
		}
		kind, state := "server", fmt.Sprintf("index ready, %s", count(p.Files, "file"))
		if p.Background {
			kind = "background"
		}
		if !p.Ready {
			state = fmt.Sprintf("indexing, %.0f%% done", 100*p.Built)
		}
		if p.Error != "" {
			state += "; last error: " + p.Error
		}
		line := fmt.Sprintf("%s  %s pid %d  since %s  %s", p.Root, kind, p.Pid, p.Since.Local().Format(time.DateTime), state)
		if p.Build != "" {
			line += "  " + p.Build
			if p.Build != session.Build {
				line += " (not this binary's)"
			}
		}
		if p.Log != "" {
			line += "  log: " + p.Log
		}
		if _, err := fmt.Fprintln(e.stdout, line); err != nil {
			return err
		}
	}
	return nil
}

// quietPeriod is the background process's quiet period: QuietEnv's, else session.DefaultQuiet; a value
// that is not a positive duration is a usage error naming the setting.
func quietPeriod() (time.Duration, error) {
	v := os.Getenv(QuietEnv)
	if v == "" {
		return session.DefaultQuiet, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usagef("%s=%s: want a positive duration, such as 10m or 90s", QuietEnv, v)
	}
	return d, nil
}
