package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// mcpProcess is `ctxmap mcp` on real pipes, spoken to line by line.
type mcpProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan map[string]any
	stderr *strings.Builder
	exited chan error
}

func startMCP(t *testing.T) *mcpProcess {
	t.Helper()
	p := &mcpProcess{t: t, cmd: filetest.Command(t, "mcp", "-C", writeWorkspace(t)), lines: make(chan map[string]any, 100),
		stderr: &strings.Builder{}, exited: make(chan error, 1)}
	p.cmd.Stderr = p.stderr
	p.stdin, _ = p.cmd.StdinPipe()
	stdout, _ := p.cmd.StdoutPipe()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			p.lines <- m
		}
		close(p.lines)
		p.exited <- p.cmd.Wait()
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
		}
	})
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n")
	p.until("init")
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	return p
}

func (p *mcpProcess) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatalf("write: %v; the server said %s", err, p.stderr.String())
	}
}

// until reads messages up to the answer to id, and returns them all, that answer last.
func (p *mcpProcess) until(id any) []map[string]any {
	p.t.Helper()
	var got []map[string]any
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the server ended (%v) before answering %v; it said %s", <-p.exited, id, p.stderr.String())
			}
			got = append(got, m)
			if m["id"] == id {
				return got
			}
		case <-timeout:
			p.t.Fatalf("no answer to %v; got %v; the server said %s", id, got, p.stderr.String())
		}
	}
}

// findGist is a valid request with a known answer.
func findGist(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"find_symbol","arguments":{"name":"CreateGist"}}}`+"\n", id)
}

func checkFound(t *testing.T, what string, m map[string]any) {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if b, _ := json.Marshal(res); res == nil || res["isError"] == true || !strings.Contains(string(b), "gist/gist.go") {
		t.Errorf("after %s, the next request: %v", what, m)
	}
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// Each kind of bad line is answered as JSON-RPC says (or, for a stray response, ignored) and the
// next request is answered; the process never exits on input.
func TestBadLinesAreAnsweredAndServingGoesOn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	p := startMCP(t)
	for i, tc := range []struct {
		name, line string
		id         any // the id of the error answer; nil: null
		code       float64
	}{
		{"not JSON", "hello world", nil, -32700},
		{"a request cut short", `{"jsonrpc":"2.0","id":50,"method":`, nil, -32700},
		{"an array of numbers", "[1,2,3]", nil, -32600},
		{"an empty array", "[]", nil, -32600},
		{"a string", `"hello"`, nil, -32600},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, nil, -32600},
		{"the wrong version", `{"jsonrpc":"1.0","id":54,"method":"ping"}`, 54.0, -32600},
		{"an empty method", `{"jsonrpc":"2.0","id":55,"method":""}`, 55.0, -32601},
		{"an unknown method", `{"jsonrpc":"2.0","id":56,"method":"no/such"}`, 56.0, -32601},
		{"parameters of the wrong type", `{"jsonrpc":"2.0","id":57,"method":"tools/call","params":5}`, 57.0, -32602},
		{"a line over the limit", `{"jsonrpc":"2.0","id":58,"method":"tools/call","params":{"name":"get_context","arguments":{"text":"` +
			strings.Repeat("a", MaxLine+10) + `"}}}`, 58.0, -32600},
		{"a stray response", `{"jsonrpc":"2.0","id":59,"result":{}}`, nil, 0},
	} {
		id := 1000 + i
		p.send(tc.line + "\n" + findGist(id))
		got := p.until(float64(id))
		checkFound(t, tc.name, got[len(got)-1])
		answers := got[:len(got)-1]
		if tc.code == 0 {
			if len(answers) > 0 {
				t.Errorf("%s: answered %v", tc.name, answers)
			}
			continue
		}
		if len(answers) != 1 || answers[0]["id"] != tc.id || errorCode(answers[0]) != tc.code {
			t.Errorf("%s: answered %v, want one error %v with id %v", tc.name, answers, tc.code, tc.id)
		}
	}
}

// A stream of random garbage, framed as lines or not, then a request: it is answered, and the
// process is still there.
func TestGarbageStreamThenRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	p := startMCP(t)
	seed := filetest.Seed(t)
	rng := rand.New(rand.NewSource(seed))
	pieces := []string{"{", "}", "[", "]", `"jsonrpc"`, `"2.0"`, `"id"`, `"method"`, `"params"`, ":", ",", "1", "null",
		`"tools/call"`, `"ping"`, "\\", `"`, "\x00", "\xff", " ", "\t", "\r", "Content-Length: 10\r\n\r\n", "\n", "\n"}
	rounds := 30
	if os.Getenv("CTXMAP_RELIABILITY") == "full" {
		rounds = 1000
	}
	for round := 0; round < rounds; round++ {
		g := filetest.Garbage(rng, pieces, 40, 8)
		id := 2000 + round
		p.send(g + "\n" + findGist(id))
		got := p.until(float64(id))
		checkFound(t, fmt.Sprintf("garbage %q (seed %d)", g, seed), got[len(got)-1])
	}
}
