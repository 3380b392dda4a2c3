package server

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

// skipOffLinux skips a test that reads what of the server process in /proc, where there is none.
func skipOffLinux(t testing.TB, what string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads " + what + " from /proc")
	}
}

// No network at run time: the real server, through a whole session (index, hover, context, symbols,
// an edit), holds no TCP or UDP socket (the unix one it answers the command line on in its cache folder
// is not network), and never reaches the proxy every HTTP client would use.
func TestNoNetwork(t *testing.T) {
	t.Parallel()
	skipOffLinux(t, "the process's sockets")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var dialed atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialed.Add(1)
			c.Close()
		}
	}()
	proxy := "http://" + ln.Addr().String()
	env := []string{"NO_PROXY="}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"} {
		env = append(env, k+"="+proxy)
	}

	root := workspaceCopy(t, "notes")
	p := startProcess(t, root, env...)
	var mu sync.Mutex
	var sockets []string
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() { // the process's open files, sampled all through the session
		defer close(watched)
		fds := filepath.Join("/proc", strconv.Itoa(p.cmd.Process.Pid), "fd")
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			entries, _ := os.ReadDir(fds)
			inet := inetSockets(p.cmd.Process.Pid)
			for _, e := range entries {
				if link, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && inet[link] {
					mu.Lock()
					sockets = append(sockets, link)
					mu.Unlock()
				}
			}
		}
	}()
	p.initialize(t)
	p.waitReady()
	p.hover("gist/gist.go", protocol.Position{Line: 2, Character: 8})
	var pack map[string]any
	if err := p.command(cmdContext, map[string]any{"text": "publishing a gist loses its files", "budget": 800}, &pack); err != nil {
		t.Fatal(err)
	}
	p.symbols("Gist")
	p.open("gist/gist.go", p.read("gist/gist.go")+"\n// Archive keeps old gists.\nfunc Archive() {}\n")
	p.symbols("Archive")
	close(stop)
	<-watched
	if len(sockets) > 0 || dialed.Load() > 0 {
		t.Errorf("network use: sockets %v, proxy connections %d", sockets, dialed.Load())
	}
}

// inetSockets are the TCP and UDP sockets the process's network namespace lists, as socket:[inode].
func inetSockets(pid int) map[string]bool {
	out := map[string]bool{}
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "net", table))
		for _, line := range strings.Split(string(b), "\n")[1:] {
			if f := strings.Fields(line); len(f) > 9 { // sl local rem st queues tr retrnsmt uid timeout inode
				out["socket:["+f[9]+"]"] = true
			}
		}
	}
	return out
}
