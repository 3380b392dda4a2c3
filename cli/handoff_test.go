package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/session"
)

// ctxmap context answers the same pack whether a running process of the workspace answers it or the
// command opens the index itself.
func TestContextFromARunningSession(t *testing.T) {
	root := shop(t)
	ask := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := Run(append([]string{"context", "-C", root}, args...), nil, &stdout, &stderr); code != 0 {
			t.Fatalf("ctxmap context %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	questions := [][]string{
		{"checkout fails when the cart is empty"},
		{"--format", "json", "--budget", "600", "stock reservation"},
		{"--format", "xml", "--fill", "--ranker", "fusion", "price rounding"},
	}

	t.Setenv(NoDaemonEnv, "0") // the running session is asked; with it, a command never connects
	sess := readySession(t, session.Options{Root: root, Listen: true, Logf: t.Logf})
	sock, err := session.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the socket: %v, %v; want it for its owner only", fi, err)
	}
	var served []string
	for _, q := range questions {
		out, log := ask(q...)
		// opening the index while the session owns the cache would have said so
		if log != "" {
			t.Errorf("%s: the command opened the index itself: %s", q, log)
		}
		served = append(served, out)
	}
	// a bad request is the command line's mistake either way
	var stderr bytes.Buffer
	if code := Run([]string{"context", "-C", root, "--intent", "nope", "x"}, nil, &bytes.Buffer{}, &stderr); code != 2 {
		t.Errorf("a bad intent through the session: exit %d, want 2: %s", code, stderr.String())
	}

	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket outlived the session: %v", err)
	}
	t.Setenv(NoDaemonEnv, "1") // answered in this process, with no background process to start
	for i, q := range questions {
		if out, _ := ask(q...); out != served[i] {
			t.Errorf("%s: the running session's pack differs from the command's own:\n%s\n---\n%s", q, served[i], out)
		}
	}
}

// A command in its own process (--no-daemon) that needs no search reads a cache another process holds
// as that process last saved it: it parses nothing and says so.
func TestNoDaemonReadsAHeldCache(t *testing.T) {
	root := shop(t)
	readySession(t, session.Options{Root: root, Logf: t.Logf})
	var stdout, stderr bytes.Buffer // the first build saved the state
	if code := Run([]string{"entities", "-C", root, "--no-daemon", "--top", "3"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("entities: exit %d: %s", code, stderr.String())
	}
	said := stderr.String()
	if !strings.Contains(said, "reading it as that process last saved it") || strings.Contains(said, "indexing in memory") ||
		strings.Contains(said, "parsed") || !strings.Contains(stdout.String(), "PRICE") {
		t.Errorf("entities --no-daemon beside a process that holds the cache:\n%s\n%s", stdout.String(), said)
	}
}

// readySession opens a session, closed when the test ends, and waits for its first build.
func readySession(t *testing.T, opts session.Options) *session.Session {
	t.Helper()
	sess, err := session.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	sess.Start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sess.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return sess
}
