package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// A background process is a session started by a command line (`ctxmap context` and the others) when
// no ctxmap process serves the workspace: it builds and follows the index, answers on the query socket
// like the editor's or the agent's server, and leaves after a quiet period. Its files sit in the cache
// folder beside the socket: the lock it holds while it lives (one per cache), the lock its starters
// take in turn (one start at a time), and its log.
const (
	backgroundLock = "background.lock"
	startLock      = "start.lock"
	// BackgroundLog is the background process's log (stdout and stderr), in the cache folder; each
	// start rewrites it.
	BackgroundLog = "background.log"
	// startedPid is the pid of the process the holder of the start lock started last
	startedPid = "started.pid"
)

// DefaultQuiet is how long a background process waits for another request before it leaves.
const DefaultQuiet = 10 * time.Minute

// startWait bounds how long a starter waits for the process it started to listen, and for another
// starter to finish.
const startWait = 30 * time.Second

// closeLimit bounds how long a background process that leaves takes to close its session, within the
// startWait a stop waits for it.
const closeLimit = 20 * time.Second

// lostWait bounds how long a starter waits for a background process that runs (it holds its lock) but
// does not listen: one whose socket was removed makes it again within socketCheck; one that does not
// (stopped, hung) is left alone, and the command answers in its own process.
const lostWait = time.Second

// cacheFolder is the cache folder of root, made if missing (for the owner only).
func cacheFolder(root string) (string, error) {
	sock, err := SocketPath(root)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(sock)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// RunBackground is the background process of root: it serves the workspace until it has had no
// request for quiet, until a stop is asked on the socket, or until ctx ends. When another background
// process or any other ctxmap process already serves root, it returns at once.
func RunBackground(ctx context.Context, root string, quiet time.Duration, logf func(string, ...any)) error {
	dir, err := cacheFolder(root)
	if err != nil {
		return err
	}
	release, err := index.TakeCacheLock(dir, backgroundLock)
	if errors.Is(err, index.ErrLockHeld) {
		logf("another background process serves %s", root)
		return nil
	}
	if err != nil {
		return err
	}
	defer release()
	stop := make(chan struct{})
	var once sync.Once
	sess, err := Open(ctx, Options{Root: root, Watch: true, Listen: true, Logf: logf,
		Stop: func() { once.Do(func() { close(stop) }) }})
	if err != nil {
		return err
	}
	defer func() {
		// whatever holds it (a read that never ends), the process leaves: a stop waits startWait
		t := time.AfterFunc(closeLimit, func() {
			logf("still closing after %s: leaving without it", closeLimit)
			os.Exit(1)
		})
		sess.Close()
		t.Stop()
	}()
	sess.Start()
	if !sess.Listening() {
		logf("another process answers for %s: this one leaves", root)
		return nil
	}
	logf("serving %s (pid %d); leaving after %s without a request", sess.Root(), os.Getpid(), quiet)
	tick := time.NewTicker(min(quiet/4+time.Millisecond, 5*time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			logf("stopped by a signal")
			return nil
		case <-stop:
			logf("stopped on request")
			return nil
		case <-tick.C:
			if sess.QuietFor() >= quiet {
				logf("no request for %s: leaving", quiet)
				return nil
			}
		}
	}
}

// StartBackground starts command (the ctxmap binary and its arguments, which run RunBackground for
// root) as a background process unless one answers for root already, and waits until it listens;
// started says whether it started one. Two starters at once start one process: the second waits for
// the first and finds it answering.
func StartBackground(ctx context.Context, root string, command []string) (started bool, err error) {
	dir, err := cacheFolder(root)
	if err != nil {
		return false, err
	}
	sock := filepath.Join(dir, socketName)
	release, err := takeStartLock(ctx, dir, sock)
	if err != nil || release == nil {
		return false, err
	}
	defer release()
	deadline := time.Now().Add(startWait)
	var exited chan error
	var heldSince time.Time
	for !answers(sock) {
		// none listens: start one, unless one holds its lock (starting, leaving, or its socket lost:
		// then it is waited for, a little)
		if exited == nil {
			release, err := index.TakeCacheLock(dir, backgroundLock)
			switch {
			case err == nil:
				release()
				if exited, err = spawn(dir, command); err != nil {
					return false, err
				}
			case heldSince.IsZero():
				heldSince = time.Now()
			case time.Since(heldSince) > lostWait:
				return false, fmt.Errorf("a background process holds %s but has not listened for %s: see %s",
					filepath.Join(dir, backgroundLock), lostWait, filepath.Join(dir, BackgroundLog))
			}
		}
		select {
		case err := <-exited:
			return true, fmt.Errorf("the background process left before it listened (%v): see %s", err, filepath.Join(dir, BackgroundLog))
		case <-ctx.Done():
			return exited != nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return exited != nil, fmt.Errorf("the background process did not listen within %s: see %s", startWait, filepath.Join(dir, BackgroundLog))
		}
	}
	return exited != nil, nil
}

// takeStartLock takes the start lock of the cache folder dir, waiting while another starter holds it;
// nil when the socket at sock answers meanwhile (that starter's process listens). A starter that holds
// the lock for lostWait without a running process to show for it (stopped or hung before it started
// one) is not waited for: the command answers in its own process.
func takeStartLock(ctx context.Context, dir, sock string) (release func(), err error) {
	start := time.Now()
	return takeLockPolling(ctx, dir, startLock, func(waited time.Duration) (bool, error) {
		switch {
		case answers(sock):
			return true, nil
		case waited > lostWait && !startedAlive(dir, start):
			return true, fmt.Errorf("another command holds %s and has started no background process for %s", filepath.Join(dir, startLock), lostWait)
		case waited > startWait:
			return true, fmt.Errorf("%s is still held after %s", filepath.Join(dir, startLock), startWait)
		}
		return false, nil
	})
}

// startedAlive says whether the process the start lock's holder started since runs.
func startedAlive(dir string, since time.Time) bool {
	path := filepath.Join(dir, startedPid)
	fi, err := os.Stat(path)
	if err != nil || fi.ModTime().Before(since.Add(-startWait)) {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(string(b))
	return err == nil && alive(pid)
}

// spawn starts command in the background, its output in the log (rewritten), and reports its end.
func spawn(dir string, command []string) (exited chan error, err error) {
	log, err := os.OpenFile(filepath.Join(dir, BackgroundLog), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Dir = log, log, dir
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start a background process: %w", err)
	}
	// what a command waiting for the start lock reads to know its holder is not stuck
	if err := os.WriteFile(filepath.Join(dir, startedPid), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	exited = make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return exited, nil
}

// StopBackground asks the background process of root to leave and waits until it has; nil when none
// runs. A server that is not a background process (an editor's) refuses. The process is as it was
// when asked (its pid is 0 when another version answered).
func StopBackground(ctx context.Context, root string) (*Process, error) {
	sock, err := SocketPath(root)
	if err != nil {
		return nil, err
	}
	return stopBackgroundAt(ctx, sock)
}

// stopBackgroundAt is StopBackground for the socket at sock, in a cache folder.
func stopBackgroundAt(ctx context.Context, sock string) (*Process, error) {
	p, err := OpStop.askAt(ctx, sock, None{})
	switch {
	case errors.Is(err, errOtherProtocol): // a version before JSON-RPC, which stops all the same
	case errors.Is(err, ErrNoSession):
		return nil, nil
	case err != nil:
		return nil, err
	}
	release, err := takeLockWaiting(ctx, filepath.Dir(sock), backgroundLock)
	if err != nil {
		return &p, err
	}
	release()
	return &p, nil
}

// answers says whether a process listens on the socket at path.
func answers(path string) bool {
	c, err := net.DialTimeout("unix", path, dialTimeout)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// takeLockWaiting takes the lock name in dir, waiting up to startWait for its holder to let it go.
func takeLockWaiting(ctx context.Context, dir, name string) (release func(), err error) {
	return takeLockPolling(ctx, dir, name, func(waited time.Duration) (bool, error) {
		if waited > startWait {
			return true, fmt.Errorf("%s in %s is still held after %s", name, dir, startWait)
		}
		return false, nil
	})
}

// takeLockPolling takes the lock name in dir, trying again every 10 ms while another process holds
// it, until held, told how long it has waited, says to stop: with its error, or with no lock and none.
func takeLockPolling(ctx context.Context, dir, name string, held func(waited time.Duration) (stop bool, err error)) (release func(), err error) {
	start := time.Now()
	for {
		release, err := index.TakeCacheLock(dir, name)
		if err == nil {
			return release, nil
		}
		if !errors.Is(err, index.ErrLockHeld) {
			return nil, err
		}
		if stop, err := held(time.Since(start)); stop || err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// stopBackgroundFor is what a server's Open does first: a background process of the same cache
// leaves, so that the server owns the cache instead of indexing in memory beside it.
func stopBackgroundFor(ctx context.Context, opts Options) {
	sock := filepath.Join(opts.CacheDir, socketName)
	if opts.CacheDir == "" {
		var err error
		if sock, err = SocketPath(opts.Root); err != nil {
			return
		}
	}
	// the request that opens the session may end first: the process is waited for all the same
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), startWait)
	defer cancel()
	switch stopped, err := stopBackgroundAt(ctx, sock); {
	case stopped != nil && err == nil:
		opts.Logf("the background process of %s left for this one", opts.Root)
	case stopped != nil:
		opts.Logf("the background process of %s was asked to leave: %v", opts.Root, err)
	}
}
