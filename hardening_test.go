package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/jsonrpc2"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

// craftedRequests are socket requests no command sends: an engine's model that skips the model's checks
// (the first crashed every server), counts out of range, and lines that are not requests.
var craftedRequests = []string{
	`{"version":2,"op":"context","request":{"Text":"x","Budget":800,"Model":{"file_calibration":{"coef":[1,1,1,1]}}}}`,
	`{"version":3,"op":"context","request":{"text":"x","budget":800,"Model":{"file_calibration":{"coef":[1,1,1,1]}}}}`,
	`{"version":3,"op":"context","request":{"text":"x","model":{"tree":{"leaf":[1]}}}}`,
	`{"version":3,"op":"entities","top":-5}`,
	`{"version":3,"op":"explore","name":"cart","limit":-1}`,
	`{"version":3,"op":"picture","top":-1}`,
	`{"version":3,"op":"context","request":{"text":"cart","budget":-1}}`,
	`{"version":3,"op":"nonsense"}`,
	`[1,2,3]`,
	"\x00\xff{",
}

// askRaw sends one line on the socket at path and decodes the answer.
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
	var ans map[string]any
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&ans); err != nil {
		t.Fatalf("no answer to %q: %v", line, err)
	}
	return ans
}

// refusesCrafted sends every crafted request to the process serving root, wants each refused with an
// error, and then a good request answered: the process keeps serving.
func refusesCrafted(t *testing.T, who string, root string, alive func() bool) {
	t.Helper()
	path, err := session.SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no socket at %s", who, path)
		}
	}
	for _, line := range craftedRequests {
		ans := askRaw(t, path, line)
		if msg, _ := ans["error"].(string); msg == "" || ans["result"] != nil {
			t.Errorf("%s: %q answered %v, want an error", who, line, ans)
		}
		if !alive() {
			t.Fatalf("%s: gone after %q", who, line)
		}
	}
	raw, err := session.Ask(context.Background(), root, index.Request{Text: "checkout fails when the cart is empty", Format: "json"})
	if err != nil || !strings.Contains(string(raw), "cart") {
		t.Fatalf("%s: a good request after the crafted ones: %v %.200s", who, err, raw)
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
	if testing.Short() {
		t.Skip("builds the binary and starts processes")
	}
	bin := buildBinary(t)
	root := shopRepository(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	t.Run("daemon", func(t *testing.T) {
		cmd := exec.Command(bin, "daemon", "-C", root, "--quiet", "1m")
		cmd.Stderr = os.Stderr
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
