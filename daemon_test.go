package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/cli"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/shoptest"
	"github.com/ctxmap/ctxmap/session"
)

func TestMain(m *testing.M) {
	// the binary's commands in these tests answer in their own process, as before the background
	// process; the tests of the background process ask for it (daemonEnv)
	os.Setenv(cli.NoDaemonEnv, "1")
	code := m.Run()
	filetest.RemoveBinary()
	os.Exit(code)
}

// daemonEnv is the environment of a command that may start a background process: cache as
// XDG_CACHE_HOME, quiet as its quiet period.
func daemonEnv(cache string, quiet time.Duration) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, cli.NoDaemonEnv+"=") })
	return append(env, "XDG_CACHE_HOME="+cache, cli.QuietEnv+"="+quiet.String())
}

// backgroundProcesses are the pids of the live `bin daemon` processes (zombies aside), from /proc.
func backgroundProcesses(t *testing.T, bin string) []int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmdline), "\x00")
		if len(args) < 2 || args[0] != bin || args[1] != "daemon" {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue // gone, not yet reaped by its new parent
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		pids = append(pids, pid)
	}
	return pids
}

// backgroundBinary is the binary for a test of the background process: a link of its own to the one
// built (the processes a test finds in /proc are its own, so tests run in parallel), whose background
// processes left are stopped when the test ends. It skips off Linux (processes are found in /proc).
func backgroundBinary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("finds the processes in /proc")
	}
	built := buildBinary(t)
	// the test's temporary folders are removed once (the first TempDir registers it): registered
	// before the processes' stop, the removal runs after it, when nothing writes to a cache there
	bin := filepath.Join(t.TempDir(), "ctxmap")
	if err := os.Link(built, bin); err != nil {
		t.Fatalf("a link to the binary: %v", err)
	}
	t.Cleanup(func() { stopBackground(t, bin) })
	return bin
}

// stopBackground ends every background process of bin the test left, and fails if one would not go.
func stopBackground(t *testing.T, bin string) {
	for _, pid := range backgroundProcesses(t, bin) {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(backgroundProcesses(t, bin)) > 0 {
		if time.Now().After(deadline) {
			for _, pid := range backgroundProcesses(t, bin) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("a background process did not leave on SIGTERM")
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The command line's background process, with the real binary: the first command starts one, which
// answers it and the next commands as the commands would in their own process; a killed one is
// replaced by the next command; commands started at once on a fresh cache start one process; a server
// that opens the workspace takes its cache over; and it leaves by itself after its quiet period.
func TestBackgroundProcess(t *testing.T) {
	t.Parallel()
	bin := backgroundBinary(t)
	root := shopRepository(t)
	cache := t.TempDir()
	env := daemonEnv(cache, time.Minute)
	// the same questions, answered by each command in its own process on a cache of its own
	questions := [][]string{
		{"context", "-C", root, "--budget", "600", "checkout fails when the cart is empty"},
		{"context", "-C", root, "--format", "json", "--budget", "800", "stock reservation"},
		{"entities", "-C", root, "--top", "5"},
		{"explore", "-C", root, "--limit", "3", "cart"},
		{"map", "-C", root, "--format", "text", "--budget", "300"},
		{"map", "-C", root, "--format", "text", "--budget", "300", "price rounding"},
		{"map", "-C", root, "--top", "6"},
	}
	own := daemonEnv(t.TempDir(), time.Minute)
	var want []string
	for _, q := range questions {
		out, _ := runWith(t, bin, own, append(q, "--no-daemon")...)
		want = append(want, out)
	}
	if pids := backgroundProcesses(t, bin); len(pids) != 0 {
		t.Fatalf("--no-daemon started background processes %v", pids)
	}

	_, said := runWith(t, bin, env, questions[0]...)
	if !strings.Contains(said, "a background process serves") {
		t.Errorf("the first command did not say it started a background process: %q", said)
	}
	// the first answers may come before the build is in, from the files the question matches
	filetest.Eventually(t, time.Minute, "a whole pack", func() bool {
		out, _ := runWith(t, bin, env, questions[0]...)
		return !strings.Contains(out, "- partial: from ")
	})
	first := backgroundProcesses(t, bin)
	if len(first) != 1 {
		t.Fatalf("after the first command, background processes %v; want one", first)
	}
	for i, q := range questions {
		out, said := runWith(t, bin, env, q...)
		if out != want[i] {
			t.Errorf("%s: the background process's answer differs from the command's own:\n%s\n---\n%s", q, out, want[i])
		}
		if said != "" {
			t.Errorf("%s: said %q; a command the background process answers says nothing", q, said)
		}
	}
	// an unknown entity is the answer, not a reason to open the index here
	cmd := exec.Command(bin, "explore", "-C", root, "nosuchentity")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "nosuchentity") || strings.Contains(string(out), "in use by another") {
		t.Errorf("explore of an unknown entity: %v\n%s", err, out)
	}
	if got := backgroundProcesses(t, bin); !slices.Equal(got, first) {
		t.Fatalf("background processes %v after the questions; want %v", got, first)
	}

	// killed: the next command finds the socket dead, starts another and answers as before
	syscall.Kill(first[0], syscall.SIGKILL)
	for len(backgroundProcesses(t, bin)) > 0 {
		time.Sleep(time.Millisecond)
	}
	if out, said := runWith(t, bin, env, questions[2]...); out != want[2] || !strings.Contains(said, "a background process serves") {
		t.Errorf("after a kill: %s\nwant %s\nit said: %s", out, want[2], said)
	}
	second := backgroundProcesses(t, bin)
	if len(second) != 1 || second[0] == first[0] {
		t.Errorf("after a kill, background processes %v; want one new one", second)
	}

	// an editor's server opening the workspace: the background process leaves it the cache
	server := exec.Command(bin, "serve", "--stdio", "-C", root)
	server.Env = env
	stdin, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &filetest.Log{}
	server.Stderr = stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, `{"jsonrpc":"2.0","method":"initialized","params":{}}`} {
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(backgroundProcesses(t, bin)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := backgroundProcesses(t, bin); len(pids) > 0 {
		t.Errorf("the background process %v stayed beside the editor's server", pids)
	}
	// the server says so once it has seen the process go, which may come after /proc shows it gone
	for !strings.Contains(stderr.String(), "background process") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stdin.Close()
	server.Wait()
	if s := stderr.String(); !strings.Contains(s, "background process") || strings.Contains(s, "in use by another") {
		var log []byte
		logs, _ := filepath.Glob(filepath.Join(cache, "ctxmap", "*", "background.log"))
		for _, l := range logs {
			log, _ = os.ReadFile(l)
		}
		t.Errorf("the server's log: %s\nthe background process's: %s", s, log)
	}

	// four commands at once on a fresh cache start one process, and every one answers
	fresh := daemonEnv(t.TempDir(), 2*time.Second)
	outs := make(chan string, 4)
	for range 4 {
		go func() {
			cmd := exec.Command(bin, questions[0]...)
			cmd.Env = fresh
			out, err := cmd.Output()
			if err != nil {
				out = []byte(fmt.Sprintf("failed: %v", err))
			}
			outs <- string(out)
		}()
	}
	for range 4 {
		// answered in full, or from the files the question matches while the build runs
		if out := <-outs; out != want[0] && !strings.Contains(out, "- partial: from ") {
			t.Errorf("a command of four started at once: %s\nwant %s", out, want[0])
		}
	}
	// one serves; a process that found another serving may still be on its way out
	pids := backgroundProcesses(t, bin)
	for deadline := time.Now().Add(3 * time.Second); len(pids) > 1 && time.Now().Before(deadline); pids = backgroundProcesses(t, bin) {
		time.Sleep(20 * time.Millisecond)
	}
	if len(pids) != 1 {
		t.Errorf("four commands at once: background processes %v; want one", pids)
	}
	// it leaves after two quiet seconds by itself, and says why in its log
	deadline = time.Now().Add(30 * time.Second)
	for len(backgroundProcesses(t, bin)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if pids := backgroundProcesses(t, bin); len(pids) > 0 {
		t.Errorf("the background processes %v did not leave after their quiet period", pids)
	}
	logs, _ := filepath.Glob(filepath.Join(strings.TrimPrefix(fresh[len(fresh)-2], "XDG_CACHE_HOME="), "ctxmap", "*", "background.log"))
	if len(logs) != 1 {
		t.Fatalf("background logs %v; want one", logs)
	}
	log, _ := os.ReadFile(logs[0])
	if !bytes.Contains(log, []byte("no request for 2s: leaving")) {
		t.Errorf("the log does not say why it left:\n%s", log)
	}
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		t.Log(sc.Text())
	}
}

// A command of another build is never answered by the background process of the first: it replaces
// it, says so once, and daemon --status shows the build that serves.
func TestAnotherBuildReplacesTheProcess(t *testing.T) {
	t.Parallel()
	bin := backgroundBinary(t)
	other := filepath.Join(t.TempDir(), "ctxmap")
	if out, err := exec.Command("go", "build", "-o", other, "-ldflags", "-X github.com/ctxmap/ctxmap/cli.Version=0.0.0-other", ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Cleanup(func() { stopBackground(t, other) })
	root := shopRepository(t)
	env := daemonEnv(t.TempDir(), time.Minute)
	ask := []string{"entities", "-C", root, "--top", "3"}
	runWith(t, bin, env, ask...)
	if pids := settledProcesses(t, bin, 1); len(pids) != 1 {
		t.Fatalf("the first build's background processes: %v", pids)
	}
	_, said := runWith(t, other, env, ask...)
	if !strings.Contains(said, "is another build") || strings.Count(said, "another build") != 1 {
		t.Errorf("the second build did not say once that it replaced the first's process: %q", said)
	}
	if pids := backgroundProcesses(t, bin); len(pids) != 0 {
		t.Errorf("the first build's process %v still runs", pids)
	}
	if pids := settledProcesses(t, other, 1); len(pids) != 1 {
		t.Errorf("the second build's background processes: %v", pids)
	}
	if _, said := runWith(t, other, env, ask...); said != "" {
		t.Errorf("the second build's next command said %q", said)
	}
	status, _ := runWith(t, other, env, "daemon", "--status", "-q")
	if !strings.Contains(status, root) || !strings.Contains(status, "build ") || strings.Contains(status, "not this binary's") {
		t.Errorf("daemon --status -q: %s", status)
	}
}

// --no-daemon answers in this process and never connects to the socket, whatever the command.
func TestNoDaemonNeverConnects(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a workspace in several commands")
	}
	root := shopRepository(t)
	ownCache(t)
	// a listener where the workspace's process would listen, which counts who connects
	sock, err := session.SocketPath(root)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(sock), 0o700)
	}
	var ln net.Listener
	if err == nil {
		ln, err = net.Listen("unix", sock)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var connections atomic.Int32
	go func() {
		for c, err := ln.Accept(); err == nil; c, err = ln.Accept() {
			connections.Add(1)
			c.Close()
		}
	}()
	for _, args := range [][]string{
		{"context", "-C", root, "--no-daemon", "checkout fails"},
		{"entities", "-C", root, "--no-daemon", "--top", "3"},
		{"explore", "-C", root, "--no-daemon", "cart"},
		{"map", "-C", root, "--no-daemon", "--format", "text"},
	} {
		runCLI(t, args...)
	}
	if n := connections.Load(); n != 0 {
		t.Errorf("--no-daemon connected to the socket %d times", n)
	}
}

// context --no-daemon beside a background process that holds the cache reads that cache, read-only:
// its lexical index from the files as the state records them, its vectors where they lie, and gives
// the process's pack byte for byte, parsing nothing and writing nothing in the cache.
func TestNoDaemonReadsTheHeldCacheForPacks(t *testing.T) {
	t.Parallel()
	bin := backgroundBinary(t)
	root := gitRepository(t, shoptest.Files(t)) // with vectors
	cache := t.TempDir()
	env := daemonEnv(cache, time.Minute)
	own := append(env, cli.NoDaemonEnv+"=1")
	questions := [][]string{
		{"--budget", "1500", "checkout fails when the cart is empty"},
		{"--json", "--budget", "500", "stock reservation is not released"},
		{"--format", "xml", "price rounding"},
	}
	// the process's first answers may be partial, and its vectors are saved once embedded: until
	// then the command says it answers without them
	filetest.Eventually(t, time.Minute, "the background process to settle (a whole pack, its vectors saved)", func() bool {
		out, _ := runWith(t, bin, env, append([]string{"context", "-C", root}, questions[0]...)...)
		_, said := runWith(t, bin, own, append([]string{"context", "-C", root, "--no-daemon"}, questions[0]...)...)
		return !strings.Contains(out, "- partial: from ") && strings.Contains(said, "last saved it") && !strings.Contains(said, "without them")
	})
	before := cacheFiles(t, cache)
	for _, q := range questions {
		served, _ := runWith(t, bin, env, append([]string{"context", "-C", root}, q...)...)
		mine, said := runWith(t, bin, own, append([]string{"context", "-C", root, "--no-daemon"}, q...)...)
		if mine != served {
			t.Errorf("%s: the process's pack differs from --no-daemon's:\n%s\n---\n%s", q, served, mine)
		}
		if !strings.Contains(said, "reading it as that process last saved it") || strings.Contains(said, "in memory") ||
			strings.Contains(said, "without them") || strings.Contains(said, " parsed") {
			t.Errorf("%s: --no-daemon said %q", q, said)
		}
	}
	if !strings.Contains(runCLIWith(t, bin, own, root), "embedding #") {
		t.Error("no item of the --no-daemon pack was found by its vectors")
	}
	if after := cacheFiles(t, cache); !reflect.DeepEqual(after, before) {
		t.Errorf("the cache changed:\n%v\n---\n%v", before, after)
	}
}

// runCLIWith is bin's pack for a question its vectors answer, made in its own process.
func runCLIWith(t *testing.T, bin string, env []string, root string) string {
	out, _ := runWith(t, bin, env, "context", "-C", root, "--no-daemon", "--budget", "4000", "the basket total")
	return out
}

// cacheFiles are the files under the cache folder with their size and time, the process's log aside.
func cacheFiles(t *testing.T, cache string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == session.BackgroundLog {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			files[p] = fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A command run in a subfolder of a repository serves the repository: the same pack as from its root,
// paths from the root, and one background process for both.
func TestSubfolderIsTheRepository(t *testing.T) {
	t.Parallel()
	bin := backgroundBinary(t)
	root := shopRepository(t)
	env := daemonEnv(t.TempDir(), time.Minute)
	ask := func(dir string) string {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			out, _ := runWith(t, bin, env, "context", "-C", dir, "--budget", "800", "stock reservation is not released")
			if !strings.Contains(out, "- partial: from ") || time.Now().After(deadline) {
				return out
			}
		}
	}
	fromRoot := ask(root)
	cmd := exec.Command(bin, "context", "--budget", "800", "stock reservation is not released")
	cmd.Dir, cmd.Env = filepath.Join(root, "inventory"), env // no -C: the folder the user stands in
	fromSub, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(fromSub) != fromRoot || !strings.Contains(fromRoot, "inventory/stock.go") {
		t.Errorf("from inventory/:\n%s\n---\nfrom the root:\n%s", fromSub, fromRoot)
	}
	if pids := settledProcesses(t, bin, 1); len(pids) != 1 {
		t.Errorf("background processes %v; want one for the repository", pids)
	}
}
