package server

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	filetest.RemoveBinary()
	os.Exit(code)
}

// process is `ctxmap serve --stdio` speaking LSP on its stdin and stdout (env: more of its
// environment, KEY=value).
type process struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	*client
}

type pipes struct {
	io.Reader
	io.WriteCloser
}

func startProcess(t testing.TB, root string, env ...string) *process {
	t.Helper()
	p := &process{cmd: filetest.Command(t, "serve", "--stdio", "-C", root)}
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = &p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	p.client = newClient(t, pipes{stdout, stdin}, root)
	return p
}

// exitCode waits for the process to end.
func (p *process) exitCode(t testing.TB) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(testTimeout):
		t.Fatalf("ctxmap serve did not exit; stderr:\n%s", p.stderr.String())
		return -1
	}
}

func (p *process) initialize(t testing.TB) {
	t.Helper()
	// no rootUri: the server takes its -C folder
	p.mustCall("initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}}, nil)
	p.notify("initialized", map[string]any{})
}

func TestExitAfterShutdownIsZero(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	p := startProcess(t, root)
	p.initialize(t)
	if st := p.waitReady(); st.Root != root || st.Files != 8 {
		t.Errorf("status %+v", st)
	}
	p.mustCall("shutdown", nil, nil)
	p.stream.waitFrame(t, `"result":null`) // the only answer without a value
	err := p.command(cmdStatus, nil, nil)
	if wireCode(t, err) != jsonrpc2.InvalidRequest || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("a request after shutdown: %v", err)
	}
	p.notify("exit", nil)
	if code := p.exitCode(t); code != 0 {
		t.Errorf("exit code %d after shutdown and exit, want 0; stderr:\n%s", code, p.stderr.String())
	}
}

func TestExitWithoutShutdownIsOne(t *testing.T) {
	t.Parallel()
	p := startProcess(t, workspaceCopy(t, "notes"))
	p.initialize(t)
	p.notify("exit", nil)
	if code := p.exitCode(t); code != 1 {
		t.Errorf("exit code %d after exit alone, want 1", code)
	}
	if !strings.Contains(p.stderr.String(), "exit without shutdown") {
		t.Errorf("stderr %q does not say why", p.stderr.String())
	}
}

func TestClientGoneIsOne(t *testing.T) {
	t.Parallel()
	p := startProcess(t, workspaceCopy(t, "notes"))
	p.initialize(t)
	p.conn.Close() // closes the server's stdin
	if code := p.exitCode(t); code != 1 {
		t.Errorf("exit code %d when the client vanished, want 1", code)
	}
}
