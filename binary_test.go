package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// buildBinary is the ctxmap command (filetest.Binary). A test that needs it takes a while (it builds,
// then runs the binary): with -short it is skipped.
func buildBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	return filetest.Binary(t)
}

// command is bin with args, cache as its XDG_CACHE_HOME.
func command(bin, cache string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	return cmd
}

// run runs bin with env and returns its stdout, its stderr and how it ended.
func run(bin string, env []string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// runFor runs cmd, killed after limit, and returns its stdout, its stderr and how it ended.
func runFor(cmd *exec.Cmd, limit time.Duration) (stdout, stderr string, err error) {
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		err = fmt.Errorf("still running after %v", limit)
	}
	return out.String(), errb.String(), err
}

// runWith runs bin with env and returns stdout and stderr; a failure fails the test.
func runWith(t *testing.T, bin string, env []string, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, err := run(bin, env, args...)
	if err != nil {
		t.Fatalf("ctxmap %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return stdout, stderr
}
