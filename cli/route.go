package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

// NoDaemonEnv, set to anything but "" or "0" or "false", keeps every command in its own process.
const NoDaemonEnv = "CTXMAP_NO_DAEMON"

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

// route is where a command on a workspace is answered: asked of the process that serves it (one
// started in the background when none does), or here, with the command's own index.
type route struct {
	dir  string
	here bool // never ask another process: --no-daemon, NoDaemonEnv or "daemon: false"
}

// routeOf is the route of a command on dir given its --no-daemon.
func routeOf(dir string, noDaemon bool) route {
	return route{dir: dir, here: !daemonAllowed(dir, noDaemon)}
}

// answer runs ask against the process that serves the route's workspace (see handOff) unless the
// route keeps the command here, and local with this process's own index when none answered.
func (e *env) answer(r route, ask func(ctx context.Context) error, use indexUse, local func(ctx context.Context, ix *index.Index) error) error {
	if !r.here {
		if done, err := e.handOff(r.dir, ask); done {
			return err
		}
	}
	return e.withIndex(r.dir, use, func(ctx context.Context, ix *index.Index, _ index.Stats) error { return local(ctx, ix) })
}

// answerOp answers op with a and writes the answer: asked of the process that serves r's folder (see
// answer), else answered from an index this process opens (use says how), by the operation's one
// handler either way.
func answerOp[A, R any](e *env, r route, op *session.Operation[A, R], a A, use indexUse, write func(R) error) error {
	ask := func(ctx context.Context) error {
		res, err := op.Ask(ctx, r.dir, a)
		if err != nil {
			return err
		}
		return write(res)
	}
	return e.answer(r, ask, use, func(ctx context.Context, ix *index.Index) error {
		res, err := op.Own(ctx, ix, a)
		if err != nil {
			return err
		}
		return write(res)
	})
}

// handOff runs ask against the process that serves dir; when none answers, it starts a background
// process first and asks it (one of another build is replaced by this build's). done is false when
// the command is to answer in its own process: none could be asked, or it went away.
func (e *env) handOff(dir string, ask func(ctx context.Context) error) (done bool, err error) {
	return e.asking(dir, func(ctx context.Context, clear func()) error {
		return e.askOrStart(ctx, dir, ask, clear)
	})
}

// askServing runs ask against the process that serves dir, starting none; done is as handOff's.
func (e *env) askServing(dir string, ask func(ctx context.Context) error) (done bool, err error) {
	return e.asking(dir, func(ctx context.Context, _ func()) error { return ask(ctx) })
}

// asking runs ask with the running process's progress shown, and reads its error: done is false when
// no process answered.
func (e *env) asking(dir string, ask func(ctx context.Context, clear func()) error) (done bool, err error) {
	ctx, cancel := interruptible()
	defer cancel()
	note, clear := e.runningProgress()
	defer clear()
	ctx = session.WithProgress(ctx, note)
	err = ask(ctx, clear)
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

// askOrStart runs ask; when no process could answer, it starts a background process and asks it. A
// start that fails is ErrNoSession: the command answers in its own process.
func (e *env) askOrStart(ctx context.Context, dir string, ask func(ctx context.Context) error, clear func()) error {
	err := ask(ctx)
	var other session.OtherBuild
	if errors.As(err, &other) {
		// another build's process: replaced by this one's, and said once
		if stopped, serr := session.StopBackground(ctx, dir); serr == nil && stopped != nil && !e.quiet {
			clear()
			fmt.Fprintf(e.stderr, "ctxmap: the background process of %s is another build (%s): this build's replaces it\n", dir, other.Build)
		}
	}
	if !errors.Is(err, session.ErrNoSession) || errors.Is(err, session.ErrTooLarge) || errors.Is(err, session.ErrSilent) {
		return err
	}
	if serr := e.startBackground(ctx, dir); serr != nil {
		if !errors.Is(serr, errNothingToServe) {
			fmt.Fprintf(e.stderr, "ctxmap: no background process: %v\n", serr)
		}
		return session.ErrNoSession
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
	return err
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
