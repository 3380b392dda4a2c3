package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// serveForever listens on a socket under dir and answers every connection with what send writes.
func serveForever(t *testing.T, send func(c net.Conn)) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctxmap-sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, socketName)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				send(c)
			}()
		}
	}()
	return path
}

// An asking command's wait is bounded whatever the process sends: progress lines for ever end at the
// overall deadline, an endless answer line at the size limit; either way the command answers itself.
func TestAnswerWaitHasALimit(t *testing.T) {
	defer func(d time.Duration, n int64) { askDeadline, maxAnswer = d, n }(askDeadline, maxAnswer)
	askDeadline, maxAnswer = 2*time.Second, 1<<20

	progress := serveForever(t, func(c net.Conn) {
		for {
			n, _ := jsonrpc2.NewNotification(methodProgress, progressNote{"building the index: 1%"})
			line, _ := json.Marshal(n)
			if _, err := c.Write(append(line, '\n')); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	start := time.Now()
	_, err := OpStatus.askAt(context.Background(), progress, None{})
	if !errors.Is(err, ErrSilent) || time.Since(start) > 4*time.Second {
		t.Errorf("progress for ever: %v after %v, want ErrSilent after about 2 s", err, time.Since(start))
	}

	endless := serveForever(t, func(c net.Conn) {
		c.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"`))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
	start = time.Now()
	_, err = OpStatus.askAt(context.Background(), endless, None{})
	if !errors.Is(err, ErrNoSession) || time.Since(start) > 4*time.Second {
		t.Errorf("an endless line: %v after %v, want ErrNoSession at once", err, time.Since(start))
	}
}

// pythonListener runs, as uid, a process that listens on the socket at path and answers every request
// with a pack of its own; it ends with the test.
func pythonListener(t *testing.T, path string, uid int) {
	t.Helper()
	py := "/usr/bin/python3" // a shim under root's home would not run as another user
	if _, err := os.Stat(py); err != nil {
		t.Skip("no python3 to run a listener as another user")
	}
	script := `import socket, sys, os
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(8)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    try:
        c.recv(1 << 20)
        c.sendall(b'{"result":{"pid":4242,"root":"/planted"}}\n')
    except OSError:
        pass
    c.close()
`
	cmd := exec.Command(py, "-c", script, path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run a process as uid %d: %v", uid, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// a line may come in more than one read
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("the listener did not start: %q %v", line, err)
	}
}

// Only the owner's process is asked: a socket in a folder of another user's (a shared cache folder), or
// a process of another user's answering on a socket in our own folder, is refused with a message that
// says so, and daemon --status lists neither.
func TestOnlyTheOwnersProcessIsAsked(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SO_PEERCRED is Linux's")
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user and to give it a folder")
	}
	const other = 65534 // nobody
	base, err := os.MkdirTemp("", "ctxmap-shared")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o777) // a shared, world-writable cache folder
	t.Setenv("XDG_CACHE_HOME", base)

	// another user's folder, at the path our cache would take for root
	root := t.TempDir()
	sock, err := SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Dir(filepath.Dir(sock)), filepath.Dir(sock)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, other, other); err != nil {
			t.Skipf("cannot give a folder to uid %d: %v", other, err)
		}
	}
	pythonListener(t, sock, other)
	_, err = OpStatus.Ask(context.Background(), root, None{})
	if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), "belongs to uid 65534") {
		t.Errorf("a socket in another user's folder: %v, want it refused", err)
	}
	if ps, err := Running(context.Background()); err != nil || len(ps) != 0 {
		t.Errorf("Running lists %+v, %v; want none", ps, err)
	}

	// the same process answering on a socket moved into a folder of our own
	own := filepath.Join(base, "ctxmap", "mine")
	if err := os.MkdirAll(own, 0o700); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(own, socketName)
	if err := os.Rename(sock, moved); err != nil {
		t.Fatal(err)
	}
	_, err = OpStatus.askAt(context.Background(), moved, None{})
	if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), "runs as uid 65534") {
		t.Errorf("another user's process on our socket: %v, want it refused", err)
	}
	if ps, err := Running(context.Background()); err != nil || len(ps) != 0 {
		t.Errorf("Running lists %+v, %v; want none", ps, err)
	}
}
