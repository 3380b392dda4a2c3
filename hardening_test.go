package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/session"
)

// craftedRequests are socket requests no command sends: an engine's model that skips the model's checks
// (the first crashed every server), counts out of range, and lines that are not requests.
var craftedRequests = []string{
	call("context", `{"Text":"x","Budget":800,"Model":{"file_calibration":{"coef":[1,1,1,1]}}}`),
	call("context", `{"text":"x","budget":800,"Model":{"file_calibration":{"coef":[1,1,1,1]}}}`),
	call("context", `{"text":"x","model":{"tree":{"leaf":[1]}}}`),
	call("entities", `{"top":-5}`),
	call("explore", `{"name":"cart","limit":-1}`),
	call("picture", `{"top":-1}`),
	call("context", `{"text":"cart","budget":-1}`),
	call("nonsense", `{}`),
	`{"version":3,"op":"entities","top":3}`,
	`[1,2,3]`,
	"\x00\xff{",
}

// call is the line of a JSON-RPC call of the socket's method with arg.
func call(method, arg string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"version":5,"build":"` + session.Build + `","arg":` + arg + `}}`
}

// askRaw sends one line on the socket at path and decodes the answer: a response, or a refusal.
func askRaw(t *testing.T, path, line string) map[string]any {
	t.Helper()
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bufio.NewReader(c))
	for {
		var ans map[string]any
		if err := dec.Decode(&ans); err != nil {
			t.Fatalf("no answer to %q: %v", line, err)
		}
		if ans["method"] != "progress" {
			return ans
		}
	}
}

// refusesCrafted sends every crafted request to the process serving root, wants each refused with an
// error, and then a good request answered: the process keeps serving.
func refusesCrafted(t *testing.T, who string, root string, alive func() bool) {
	t.Helper()
	path, err := session.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	filetest.Eventually(t, time.Minute, who+"'s socket at "+path, func() bool {
		c, err := net.Dial("unix", path)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	for _, line := range craftedRequests {
		ans := askRaw(t, path, line)
		e, _ := ans["error"].(map[string]any)
		if msg, _ := e["message"].(string); (msg == "" || ans["result"] != nil) && ans["method"] != "refused" {
			t.Errorf("%s: %q answered %v, want an error", who, line, ans)
		}
		if !alive() {
			t.Fatalf("%s: gone after %q", who, line)
		}
	}
	p, err := session.OpContext.Ask(context.Background(), root, index.Request{Text: "checkout fails when the cart is empty", Format: "json"})
	if err != nil || !strings.Contains(p.Query, "cart") || len(p.Items) == 0 {
		t.Fatalf("%s: a good request after the crafted ones: %v %+v", who, err, p)
	}
}

// processAlive says whether cmd's process still runs.
func processAlive(cmd *exec.Cmd) func() bool {
	return func() bool { return cmd.ProcessState == nil && cmd.Process.Signal(syscall.Signal(0)) == nil }
}

// Requests no command sends, a model among them, are refused by every process that listens on the
// query socket (the background process, the MCP server, the language server), each of which keeps
// answering on the socket and on its own protocol.
func TestCraftedSocketRequestsAreRefused(t *testing.T) {
	bin := buildBinary(t)
	root := shopRepository(t)
	ownCache(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	t.Run("daemon", func(t *testing.T) {
		cmd := exec.Command(bin, "daemon", "-C", root, "--idle", "1m")
		cmd.Stderr = os.Stderr
		// this process asks it as a command of its build would: another build's is refused
		defer func(b string) { session.Build = b }(session.Build)
		session.Build = session.BuildOf(bin)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("the background process: %v", err)
			}
		}()
		refusesCrafted(t, "ctxmap daemon", root, processAlive(cmd))
	})

	t.Run("mcp", func(t *testing.T) {
		cmd := exec.Command(bin, "mcp", "-C", root)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		refusesCrafted(t, "ctxmap mcp", root, processAlive(cmd))
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_context", Arguments: map[string]any{"text": "stock reservation", "budget": 600}})
		if err != nil || res.IsError {
			t.Fatalf("get_context after the crafted requests: %v %+v", err, res)
		}
	})

	t.Run("serve", func(t *testing.T) {
		cmd := exec.Command(bin, "serve", "--stdio")
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		conn := jsonrpc2.NewConn(jsonrpc2.NewStream(struct {
			io.Reader
			io.WriteCloser
		}{out, in}))
		conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
			return reply(ctx, nil, nil)
		})
		defer func() {
			conn.Call(ctx, "shutdown", nil, nil)
			conn.Notify(ctx, "exit", nil)
			if err := cmd.Wait(); err != nil {
				t.Errorf("the language server: %v", err)
			}
		}()
		if _, err := conn.Call(ctx, "initialize", map[string]any{"rootUri": index.FileURI(root), "capabilities": map[string]any{}}, nil); err != nil {
			t.Fatal(err)
		}
		conn.Notify(ctx, "initialized", map[string]any{})
		refusesCrafted(t, "ctxmap serve", root, processAlive(cmd))
		var pack map[string]any
		if _, err := conn.Call(ctx, "workspace/executeCommand", map[string]any{"command": "ctxmap.context",
			"arguments": []any{map[string]any{"text": "stock reservation", "budget": 600}}}, &pack); err != nil || pack["text"] == nil {
			t.Fatalf("ctxmap.context after the crafted requests: %v %v", err, pack)
		}
	})
}

// settledProcesses is backgroundProcesses once it holds n of them, or after 5 s: a process the
// background process forks to run git shows its command line until it execs.
func settledProcesses(t *testing.T, bin string, n int) []int {
	t.Helper()
	pids := backgroundProcesses(t, bin)
	for deadline := time.Now().Add(5 * time.Second); len(pids) != n && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		pids = backgroundProcesses(t, bin)
	}
	return pids
}

// stopProcess stops pid (kill -STOP) and waits until it has stopped: the signal is delivered after
// kill returns, and a process that runs on meanwhile may still do what the test is about to undo.
func stopProcess(t *testing.T, pid int) {
	t.Helper()
	syscall.Kill(pid, syscall.SIGSTOP)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		if _, after, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(after, "T") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not stop: %s", pid, stat)
		}
	}
}

// timedRun runs bin with env and returns its output, its exit code and how long it took.
func timedRun(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int, took time.Duration) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took = time.Since(start)
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("ctxmap %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code, took
}

// A background process that stops (kill -STOP) costs a command at most session.AnswerWait, after
// which the command answers in its own process and says why; one whose socket file is removed makes it
// again, and the next command waits for it less than a second; one whose cache folder is removed
// leaves, and the next command starts another.
func TestStoppedOrLostBackgroundProcess(t *testing.T) {
	bin := backgroundBinary(t)
	root := shopRepository(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // where SocketPath looks
	env := daemonEnv(cache, time.Minute)
	question := []string{"context", "-C", root, "--budget", "600", "checkout fails when the cart is empty"}
	want, _, _, own := timedRun(t, bin, daemonEnv(t.TempDir(), time.Minute), append(question, "--no-daemon")...)
	t.Logf("answered in its own process in %s", own.Round(time.Millisecond))
	runWith(t, bin, env, question...)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if out, _ := runWith(t, bin, env, question...); out == want {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the background process's answer differs from the command's own:\n%s\n---\n%s", out, want)
		}
	}
	pids := settledProcesses(t, bin, 1)
	if len(pids) != 1 {
		t.Fatalf("background processes %v; want one", pids)
	}
	daemon := pids[0]
	sock, err := session.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("stopped", func(t *testing.T) {
		stopProcess(t, daemon)
		defer syscall.Kill(daemon, syscall.SIGCONT)
		out, said, code, took := timedRun(t, bin, env, question...)
		t.Logf("a command beside a stopped background process took %s", took.Round(time.Millisecond))
		if code != 0 || out != want {
			t.Errorf("exit %d, pack:\n%s\nwant:\n%s\nit said: %s", code, out, want, said)
		}
		if !strings.Contains(said, "sent nothing for "+session.AnswerWait.String()) || !strings.Contains(said, "answering in this process") {
			t.Errorf("it said %q; want why it answered in its own process", said)
		}
		// its own answer is in memory beside the held cache, a little slower than own
		if limit := session.AnswerWait + 2*own + 5*time.Second; took > limit {
			t.Errorf("took %s, more than %s", took, limit)
		}
	})

	t.Run("stopped, socket removed", func(t *testing.T) {
		stopProcess(t, daemon)
		defer syscall.Kill(daemon, syscall.SIGCONT)
		if err := os.Remove(sock); err != nil {
			t.Fatal(err)
		}
		out, said, code, took := timedRun(t, bin, env, question...)
		t.Logf("a command beside a stopped background process without a socket took %s", took.Round(time.Millisecond))
		if code != 0 || out != want || !strings.Contains(said, "has not listened for 1s") {
			t.Errorf("exit %d, said %q, pack:\n%s\nwant:\n%s", code, said, out, want)
		}
		if limit := time.Second + 2*own + 5*time.Second; took > limit {
			t.Errorf("took %s, more than %s", took, limit)
		}
	})

	t.Run("socket removed", func(t *testing.T) {
		filetest.Eventually(t, 5*time.Second, "the background process to make its socket again", func() bool {
			_, err := os.Stat(sock)
			return err == nil
		})
		if err := os.Remove(sock); err != nil {
			t.Fatal(err)
		}
		out, said, code, took := timedRun(t, bin, env, question...)
		t.Logf("a command after the socket was removed took %s (in its own process alone, %s)", took.Round(time.Millisecond), own.Round(time.Millisecond))
		// nothing said: the process made its socket again while the command waited its second for it
		// (past that, the command answers in its own process and says so); its time is logged, not held to a
		// limit on a shared machine
		if code != 0 || out != want || said != "" {
			t.Errorf("exit %d, said %q, pack:\n%s\nwant:\n%s", code, said, out, want)
		}
		if got := settledProcesses(t, bin, 1); !slices.Equal(got, []int{daemon}) {
			t.Errorf("background processes %v; want the same one, %d", got, daemon)
		}
	})

	t.Run("cache folder removed", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Dir(sock)); err != nil {
			t.Fatal(err)
		}
		filetest.Eventually(t, 10*time.Second, "the background process to leave once its cache folder was removed", func() bool {
			return !slices.Contains(backgroundProcesses(t, bin), daemon)
		})
		out, said, code, _ := timedRun(t, bin, env, question...)
		if code != 0 || !strings.Contains(said, "a background process serves") {
			t.Errorf("exit %d, said %q, pack:\n%s", code, said, out)
		}
	})

	t.Run("status and stop", func(t *testing.T) {
		pids := settledProcesses(t, bin, 1)
		if len(pids) != 1 {
			t.Fatalf("background processes %v; want one", pids)
		}
		listed, _ := runWith(t, bin, env, "daemon", "--status")
		if want := fmt.Sprintf("%s  background pid %d  since ", root, pids[0]); !strings.Contains(listed, want) ||
			!strings.Contains(listed, filepath.Join(filepath.Dir(sock), session.BackgroundLog)) || !strings.Contains(listed, "  index") {
			t.Errorf("daemon --status:\n%s\nwant a line with %q, its log and its index", listed, want)
		}
		_, said := runWith(t, bin, env, "daemon", "--stop", "-C", root)
		if want := fmt.Sprintf("stopped the background process of %s (pid %d, since ", root, pids[0]); !strings.Contains(said, want) {
			t.Errorf("daemon --stop said %q, want %q", said, want)
		}
		if listed, _ := runWith(t, bin, env, "daemon", "--status"); !strings.Contains(listed, "no ctxmap process") {
			t.Errorf("daemon --status after --stop:\n%s", listed)
		}
		if _, said := runWith(t, bin, env, "daemon", "--stop", "-C", root); !strings.Contains(said, "no background process serves") {
			t.Errorf("daemon --stop with none running said %q", said)
		}
	})
}

// shortTemp is a temporary folder with a short path: a socket's path must fit in 108 bytes, and a
// subtest's own temporary folder is named after it.
func shortTemp(t *testing.T) string {
	dir, err := os.MkdirTemp("", "ctxmap")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// lastLine is the last line of a command's stderr: its message, after what it said on the way.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// A command gives the same answer, exit code and message whether a background process answers it or
// it answers in its own process: an empty folder, a missing one (nothing written for it), a binary text,
// an empty one and an oversized one (cut, with a warning). ctxmap index beside a background process
// refreshes the index that process shares, and --verify has it leave the cache to the check.
func TestOneAnswerWithOrWithoutTheBackgroundProcess(t *testing.T) {
	bin := backgroundBinary(t)
	root := shopRepository(t)
	ownCache(t)
	empty := t.TempDir()
	missing := filepath.Join(t.TempDir(), "nowhere")
	binary, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("checkout fails when the cart is empty; ", 300<<10/39)
	cases := []struct {
		name  string
		args  []string
		stdin string
		code  int
		said  string
		asked bool // the background process is started and asked; else the command refuses first
	}{
		// no background process for a folder with nothing to read
		{"empty folder", []string{"context", "-C", empty, "foo bar"}, "", 1, "nothing to read: " + empty + " is empty", false},
		{"empty folder, entities", []string{"entities", "-C", empty}, "", 1, "nothing to read", false},
		{"missing folder", []string{"context", "-C", missing, "foo"}, "", 2, "-C " + missing + ": no such folder", false},
		{"missing folder, map", []string{"map", "-C", missing, "--format", "text"}, "", 2, "no such folder", false},
		{"binary text", []string{"context", "-C", root, "-"}, string(binary[:1<<20]), 2, "the text is binary", false},
		{"binary text piped", []string{"context", "-C", root}, string(binary[:1<<20]), 2, "the text is binary", false},
		{"empty stdin", []string{"context", "-C", root, "-"}, "", 2, "the text is empty", false},
		{"oversized text", []string{"context", "-C", root, "--budget", "600", "-"}, long, 0, "only its first 256 KiB are read", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var outs []string
			for _, daemon := range []bool{false, true} {
				cache := shortTemp(t)
				env := daemonEnv(cache, time.Minute)
				args := c.args
				if !daemon {
					args = append(slices.Clone(args), "--no-daemon")
				}
				var out, said strings.Builder
				code := 0
				for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
					cmd := exec.Command(bin, args...)
					cmd.Env, cmd.Stdin = env, strings.NewReader(c.stdin)
					out.Reset()
					cmd.Stdout, cmd.Stderr = &out, &said // what every run said
					err := cmd.Run()
					var ee *exec.ExitError
					if errors.As(err, &ee) {
						code = ee.ExitCode()
					} else if err != nil {
						t.Fatal(err)
					}
					// the first answers of a background process may come before its build is in
					if !strings.Contains(out.String(), "- partial: from ") || time.Now().After(deadline) {
						break
					}
				}
				if started := strings.Contains(said.String(), "a background process serves"); daemon && started != c.asked {
					logs, _ := filepath.Glob(filepath.Join(cache, "ctxmap", "*", session.BackgroundLog))
					var log []byte
					if len(logs) > 0 {
						log, _ = os.ReadFile(logs[0])
					}
					t.Errorf("a background process started: %v, want %v (%q); its log:\n%s", started, c.asked, said.String(), log)
				}
				if code != c.code || !strings.Contains(said.String(), c.said) {
					t.Errorf("daemon %v: exit %d, said %q; want exit %d and %q", daemon, code, said.String(), c.code, c.said)
				}
				if c.code != 0 {
					outs = append(outs, lastLine(said.String()))
				} else {
					outs = append(outs, out.String())
				}
				if c.name == "missing folder" {
					if entries, _ := os.ReadDir(cache); len(entries) > 0 {
						t.Errorf("daemon %v: the cache holds %v for a missing folder", daemon, entries)
					}
					if _, err := os.Stat(missing); err == nil {
						t.Errorf("daemon %v: the missing folder was made", daemon)
					}
				}
			}
			if outs[0] != outs[1] {
				t.Errorf("in its own process:\n%s\nwith a background process:\n%s", outs[0], outs[1])
			}
		})
	}

	t.Run("index", func(t *testing.T) {
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		env := daemonEnv(cache, time.Minute)
		runWith(t, bin, env, "entities", "-C", root, "--top", "3") // starts the background process
		pids := settledProcesses(t, bin, 1)
		if len(pids) != 1 {
			t.Fatalf("background processes %v; want one", pids)
		}
		var before index.Stats
		out, _ := runWith(t, bin, env, "index", "-C", root, "--json")
		if err := json.Unmarshal([]byte(out), &before); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "shop", "refund.py"), []byte("def refund(order):\n    return order.total\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, said := runWith(t, bin, env, "index", "-C", root, "--json")
		var after index.Stats
		if err := json.Unmarshal([]byte(out), &after); err != nil {
			t.Fatal(err)
		}
		sock, _ := session.SocketPath(root)
		if after.Files != before.Files+1 || after.Cache != filepath.Dir(sock) || strings.Contains(said, "in memory") {
			t.Errorf("index beside a background process: %d files (before %d), cache %q, said %q; want one more file in %s",
				after.Files, before.Files, after.Cache, said, filepath.Dir(sock))
		}
		if got := settledProcesses(t, bin, 1); !slices.Equal(got, pids) {
			t.Errorf("background processes %v after index; want %v", got, pids)
		}
		// the background process answers with the new file
		if out, _ := runWith(t, bin, env, "context", "-C", root, "--format", "json", "refund of an order total"); !strings.Contains(out, "shop/refund.py") {
			t.Errorf("the pack after index does not hold the new file:\n%.400s", out)
		}
		_, said = runWith(t, bin, env, "index", "-C", root, "--verify")
		if !strings.Contains(said, "left the cache to the check") || !strings.Contains(said, "every file of the cache is sound") {
			t.Errorf("index --verify beside a background process said %q", said)
		}
	})
}

// A command that finds another holding the start lock without a background process to show for it (a
// starter stopped before it started one) answers in its own process within a second, and says why.
func TestStuckStarterIsNotWaitedFor(t *testing.T) {
	bin := backgroundBinary(t)
	root := shopRepository(t)
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	env := daemonEnv(cache, time.Minute)
	question := []string{"context", "-C", root, "--budget", "600", "checkout fails when the cart is empty"}
	want, _, _, own := timedRun(t, bin, daemonEnv(t.TempDir(), time.Minute), append(question, "--no-daemon")...)

	sock, err := session.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	held, err := store.TakeNamedLock(filepath.Dir(sock), "start.lock")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	out, said, code, took := timedRun(t, bin, env, question...)
	t.Logf("a command beside a stuck starter took %s (in its own process alone, %s)", took.Round(time.Millisecond), own.Round(time.Millisecond))
	if code != 0 || out != want || !strings.Contains(said, "has started no background process for 1s") {
		t.Errorf("exit %d, said %q, pack:\n%s\nwant:\n%s", code, said, out, want)
	}
	if limit := time.Second + 2*own + 3*time.Second; took > limit {
		t.Errorf("took %s, more than %s", took, limit)
	}
	if pids := backgroundProcesses(t, bin); len(pids) != 0 {
		t.Errorf("background processes %v started beside the stuck starter", pids)
	}
}
