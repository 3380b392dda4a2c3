package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

// NoDaemonEnv, set to anything but "" or "0" or "false", keeps every command in its own process.
const NoDaemonEnv = "CTXMAP_NO_DAEMON"

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

// noDaemonFlag adds --no-daemon to a command that can be answered by a background process.
func noDaemonFlag(cmd *cobra.Command) *bool {
	return cmd.Flags().Bool("no-daemon", false, "answer in this process: neither ask nor start a background process (also "+NoDaemonEnv+"=1)")
}

// inThisProcess says whether a command is to answer in its own process and never connect to another:
// --no-daemon, or NoDaemonEnv.
func inThisProcess(noDaemon bool) bool {
	if noDaemon {
		return true
	}
	if v := os.Getenv(NoDaemonEnv); v != "" {
		if off, err := strconv.ParseBool(v); err != nil || off {
			return true
		}
	}
	return false
}

// daemonAllowed says whether a command on dir may start a background process (and hand its work to
// a running one).
func daemonAllowed(dir string, noDaemon bool) bool {
	if inThisProcess(noDaemon) {
		return false
	}
	cfg, err := index.LoadConfig(dir)
	return err == nil && (cfg.Daemon == nil || *cfg.Daemon)
}

// handOff runs ask against the process that serves dir; when none answers and start is true, it
// starts a background process first and asks it. done is false when the command is to answer in its
// own process: none could be asked, or it went away.
func (e *env) handOff(dir string, start bool, ask func(ctx context.Context) error) (done bool, err error) {
	ctx, cancel := interruptible()
	defer cancel()
	note, clear := e.runningProgress()
	defer clear()
	ctx = session.WithProgress(ctx, note)
	err = ask(ctx)
	var other session.OtherBuild
	if errors.As(err, &other) && start {
		// another build's process: replaced by this one's, and said once
		if stopped, serr := session.StopBackground(ctx, dir); serr == nil && stopped != nil && !e.quiet {
			clear()
			fmt.Fprintf(e.stderr, "ctxmap: the background process of %s is another build (%s): this build's replaces it\n", dir, other.Build)
		}
	}
	if errors.Is(err, session.ErrNoSession) && start && !errors.Is(err, session.ErrTooLarge) && !errors.Is(err, session.ErrSilent) {
		if serr := e.startBackground(ctx, dir); serr != nil {
			if !errors.Is(serr, errNothingToServe) {
				fmt.Fprintf(e.stderr, "ctxmap: no background process: %v\n", serr)
			}
			return false, nil
		}
		err = ask(ctx)
		if errors.Is(err, session.ErrNoSession) {
			// one answers but cannot (another version's, one without an index): a new one replaces it
			if stopped, serr := session.StopBackground(ctx, dir); serr == nil && stopped != nil {
				if serr := e.startBackground(ctx, dir); serr == nil {
					err = ask(ctx)
				}
			}
		}
	}
	switch {
	case errors.Is(err, session.ErrSilent):
		// stopped or hung: not asked again, nor stopped (it may come back), and said
		clear()
		fmt.Fprintf(e.stderr, "ctxmap: %v (see %s): answering in this process\n", err, logPath(dir))
		return false, nil
	case errors.Is(err, session.ErrNoSession):
		return false, nil
	case errors.Is(err, index.ErrInvalid):
		return true, usagef("%v", err)
	}
	return true, err
}

// answer runs ask against the process that serves dir when daemon is true (see handOff), and local
// with this process's own index when none answered.
func (e *env) answer(dir string, daemon bool, ask func(ctx context.Context) error, use indexUse, local func(ctx context.Context, ix *index.Index) error) error {
	if daemon {
		if done, err := e.handOff(dir, true, ask); done {
			return err
		}
	}
	return e.withIndex(dir, use, func(ctx context.Context, ix *index.Index, _ index.Stats) error { return local(ctx, ix) })
}

// errNothingToServe is a workspace with no file to read: no process is started for it.
var errNothingToServe = errors.New("nothing to serve")

// startBackground starts `ctxmap daemon` for dir, unless one answers already. It starts none for a
// folder with nothing to read, nor from a binary `go run` made, which go deletes when the command
// ends.
func (e *env) startBackground(ctx context.Context, dir string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if goRun(exe) {
		return fmt.Errorf("%s is go run's binary, which go deletes on exit (go build -o or go install makes one that lasts)", exe)
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if !index.Readable(root) {
		return errNothingToServe
	}
	started, err := session.StartBackground(ctx, root, []string{exe, "daemon", "-C", root})
	if err != nil {
		return err
	}
	if started && !e.quiet {
		fmt.Fprintf(e.stderr, "ctxmap: a background process serves %s from now on (ctxmap daemon --stop ends it; its log: %s)\n",
			root, logPath(root))
	}
	return nil
}

// logPath is the background process's log for dir.
func logPath(dir string) string {
	sock, err := session.SocketPath(dir)
	if err != nil {
		return session.BackgroundLog
	}
	return filepath.Join(filepath.Dir(sock), session.BackgroundLog)
}

// runningProgress shows, on a terminal, how the running process's answer goes while it is made (a
// first build's share) on one line, which clear removes.
func (e *env) runningProgress() (note func(string), clear func()) {
	p := e.progress()
	last := ""
	note = func(n string) {
		if !p.tty || p.quiet || n == last {
			return
		}
		last = n
		fmt.Fprintf(e.stderr, "\r\x1b[Kctxmap: the running process: %s", n)
	}
	clear = func() {
		if last != "" {
			fmt.Fprint(e.stderr, "\r\x1b[K")
		}
	}
	return note, clear
}

// goRun says whether exe is a binary go run built in its temporary folder.
func goRun(exe string) bool {
	for dir := filepath.Dir(exe); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if strings.HasPrefix(filepath.Base(dir), "go-build") {
			return true
		}
	}
	return false
}
