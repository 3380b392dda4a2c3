package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/cli"
	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/mcptest"
	"github.com/ctxmap/ctxmap/internal/shoptest"
	"github.com/ctxmap/ctxmap/mcp"
	"github.com/ctxmap/ctxmap/server"
	"github.com/ctxmap/ctxmap/session"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"golang.org/x/tools/txtar"
)

// The language server, the MCP server and the command line are front ends of one engine: asked the
// same questions about the same workspace, they give the same answers.
func TestFrontEndsAnswerAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three front ends")
	}
	root := shopRepository(t)
	ownCache(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lsp := startLSP(ctx, t, root)
	agent := startMCP(ctx, t, root)

	// context: the whole pack, in each format
	for _, q := range []struct {
		text, format string
		budget       int
	}{
		{"checkout fails when the cart is empty", "json", 0},
		{"stock reservation is not released when an order is cancelled", "markdown", 1500},
		{"price rounding", "xml", 600},
	} {
		var fromLSP json.RawMessage
		lsp.command(ctx, "ctxmap.context", map[string]any{"text": q.text, "format": q.format, "budget": q.budget}, &fromLSP)
		args := map[string]any{"text": q.text, "format": q.format}
		if q.budget > 0 {
			args["budget"] = q.budget
		}
		fromMCP := agent.call(ctx, "get_context", args)
		cliArgs := []string{"context", "-C", root, "--format", q.format}
		if q.budget > 0 {
			cliArgs = append(cliArgs, "--budget", strconv.Itoa(q.budget))
		}
		fromCLI := runCLI(t, append(cliArgs, q.text)...)
		if q.format == "json" {
			same(t, "context "+q.text, withoutText(t, fromLSP), canonical(t, []byte(fromMCP)), canonical(t, []byte(fromCLI)))
			continue
		}
		var pack struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(fromLSP, &pack); err != nil {
			t.Fatal(err)
		}
		same(t, "context "+q.text, pack.Text, fromMCP, fromCLI)
	}

	// symbols: workspace/symbol and find_symbol
	for _, name := range []string{"Cart", "reserve", "chekout"} {
		var fromLSP []protocol.SymbolInformation
		lsp.call(ctx, "workspace/symbol", &protocol.WorkspaceSymbolParams{Query: name}, &fromLSP)
		var fromMCP struct {
			Definitions []index.Symbol `json:"definitions"`
		}
		if err := json.Unmarshal([]byte(agent.call(ctx, "find_symbol", map[string]any{"name": name})), &fromMCP); err != nil {
			t.Fatal(err)
		}
		var a, b []string
		for i, s := range fromLSP {
			if i == len(fromMCP.Definitions) {
				break
			}
			a = append(a, strings.TrimPrefix(string(s.Location.URI), index.FileURI(root)+"/")+":"+s.Name+":"+strconv.Itoa(int(s.Location.Range.Start.Line)+1))
		}
		for _, d := range fromMCP.Definitions {
			b = append(b, d.Path+":"+d.Name+":"+strconv.Itoa(d.StartLine))
		}
		if len(a) == 0 {
			t.Errorf("symbols %q: none", name)
		}
		t.Logf("symbols %q: %d from the language server, %d from MCP; the first %v", name, len(fromLSP), len(b), b[:min(3, len(b))])
		same(t, "symbols "+name, a, b)
	}

	// entities: ctxmap.entities and ctxmap entities --json, as far as both tell
	var fromLSP []struct {
		Name       string   `json:"name"`
		Importance float64  `json:"importance"`
		FileCount  int      `json:"fileCount"`
		Related    []string `json:"related"`
	}
	lsp.command(ctx, "ctxmap.entities", map[string]any{"top": 8}, &fromLSP)
	var fromCLI []index.EntitySummary
	if err := json.Unmarshal([]byte(runCLI(t, "entities", "-C", root, "--json", "--top", "8")), &fromCLI); err != nil {
		t.Fatal(err)
	}
	var a, b []string
	for _, e := range fromLSP {
		a = append(a, e.Name+" "+ftoa(e.Importance)+" "+strconv.Itoa(e.FileCount)+" "+strings.Join(e.Related, ","))
	}
	for _, e := range fromCLI {
		b = append(b, e.Name+" "+ftoa(e.Importance)+" "+strconv.Itoa(len(e.Files))+" "+strings.Join(e.Shortened(10).Related, ","))
	}
	if len(a) == 0 {
		t.Error("no entities")
	}
	same(t, "entities", a, b)

	// an entity explored: ctxmap.exploreEntity, explore_entity and ctxmap explore --json
	var explored json.RawMessage
	lsp.command(ctx, "ctxmap.exploreEntity", map[string]any{"name": fromCLI[0].Name}, &explored)
	same(t, "explore "+fromCLI[0].Name, canonical(t, explored),
		canonical(t, []byte(agent.call(ctx, "explore_entity", map[string]any{"name": fromCLI[0].Name}))),
		canonical(t, []byte(runCLI(t, "explore", "-C", root, "--json", fromCLI[0].Name))))

	// hover: the editor's description of a word is the engine's
	ix, err := index.Open(ctx, index.Options{Root: root, InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rel, word := "shop/cart.py", "Cart"
	text, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	line, col := positionOf(string(text), "class "+word)
	var hover protocol.Hover
	lsp.call(ctx, "textDocument/hover", &protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI(index.FileURI(filepath.Join(root, rel)))},
		Position:     protocol.Position{Line: line, Character: col + uint32(len("class "))},
	}, &hover)
	if want := ix.Snapshot().Describe(word); want == "" || hover.Contents.Value != want {
		t.Errorf("hover over %s:\n%s\nthe engine's description:\n%s", word, hover.Contents.Value, want)
	}
}

// shopRepository writes testdata/shop.txtar to a git repository, without vectors: the servers answer
// before the background embeddings are done, the command waits for them.
func shopRepository(t *testing.T) string {
	t.Helper()
	return gitRepository(t, append(shoptest.Files(t), txtar.File{Name: ".ctxmap.yaml", Data: []byte("vectors: false\n")}))
}

// gitRepository writes files to a git repository of one commit.
func gitRepository(t *testing.T, files []txtar.File) string {
	t.Helper()
	root := shoptest.Write(t, files)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "Shop: carts, orders, stock and prices"}} {
		filetest.Git(t, root, args...)
	}
	return root
}

// ownCache gives the test's process a cache folder of its own (XDG_CACHE_HOME), for what it runs in
// process (cli.Run, session.SocketPath) and the commands that inherit its environment; such a test
// does not run in parallel.
func ownCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

type lspClient struct {
	t    *testing.T
	conn jsonrpc2.Conn
}

// startLSP runs the language server on a pipe and waits for its first index.
func startLSP(ctx context.Context, t *testing.T, root string) *lspClient {
	ours, theirs := net.Pipe()
	done := make(chan error, 1)
	// the server lives until the test's end, past ctx
	go func() {
		done <- server.Serve(context.Background(), theirs, server.Options{InMemory: true, Logf: t.Logf})
	}()
	c := &lspClient{t: t, conn: jsonrpc2.NewConn(jsonrpc2.NewStream(ours))}
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		return reply(ctx, nil, nil) // progress tokens, registrations, log lines
	})
	t.Cleanup(func() {
		if _, err := c.conn.Call(context.Background(), "shutdown", nil, nil); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		c.conn.Notify(context.Background(), "exit", nil)
		if err := <-done; err != nil {
			t.Errorf("the language server: %v", err)
		}
	})
	c.call(ctx, "initialize", map[string]any{"rootUri": index.FileURI(root), "capabilities": map[string]any{}}, nil)
	if err := c.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	for {
		var st session.Status
		c.command(ctx, "ctxmap.status", nil, &st)
		if st.Ready && st.Pending == 0 {
			return c
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *lspClient) call(ctx context.Context, method string, params, result any) {
	c.t.Helper()
	if _, err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *lspClient) command(ctx context.Context, name string, arg, result any) {
	c.t.Helper()
	args := []any{}
	if arg != nil {
		args = append(args, arg)
	}
	c.call(ctx, "workspace/executeCommand", map[string]any{"command": name, "arguments": args}, result)
}

type mcpClient struct {
	t  *testing.T
	cs *sdk.ClientSession
}

func startMCP(ctx context.Context, t *testing.T, root string) *mcpClient {
	sess, err := session.Open(ctx, session.Options{Root: root, InMemory: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	cs := mcptest.Connect(ctx, t, func(ctx context.Context, tr sdk.Transport) error { return mcp.Serve(ctx, sess, tr, "test") })
	return &mcpClient{t: t, cs: cs}
}

func (c *mcpClient) call(ctx context.Context, tool string, args map[string]any) string {
	c.t.Helper()
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	text := mcptest.Text(res)
	if res.IsError {
		c.t.Fatalf("%s: %s", tool, text)
	}
	return text
}

func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.Run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("ctxmap %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// canonical decodes JSON to compare it whatever its layout.
func canonical(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %.200s", err, b)
	}
	return v
}

// same reports the answers that differ from the first.
func same(t *testing.T, what string, answers ...any) {
	t.Helper()
	for i, a := range answers[1:] {
		if !reflect.DeepEqual(answers[0], a) {
			t.Errorf("%s: answer %d differs from the first:\n%v\n---\n%v", what, i+2, answers[0], a)
		}
	}
}

func positionOf(text, s string) (line, col uint32) {
	i := strings.Index(text, s)
	before := text[:max(i, 0)]
	line = uint32(strings.Count(before, "\n"))
	return line, uint32(len(before) - strings.LastIndex(before, "\n") - 1)
}

func ftoa(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// A request is one type (index.Request) whatever front end takes it, resolved once, where it is
// answered, with the workspace's configuration: the
// command line through the background process, the command line alone (--no-daemon), the language
// server and the MCP server, asked the same request, answer the same pack for the same resolved
// request. The JSON pack states that request whole; a rendered pack shows its budget, tokenizer,
// intent and format, and must be the language server's text byte for byte.
func TestFrontEndsResolveAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs four front ends")
	}
	if runtime.GOOS != "linux" {
		t.Skip("finds the background processes in /proc")
	}
	bin := buildBinary(t)
	t.Cleanup(func() { stopBackground(t, bin) })
	root := shopRepository(t)
	ownCache(t)
	// defaults of the workspace's own, none of them the built-in ones
	yaml := "vectors: false\nbudget: 1500\ntokenizer: cl100k_base\nformat: xml\nranker: fusion\nfill: true\n"
	if err := os.WriteFile(filepath.Join(root, ".ctxmap.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	lsp := startLSP(ctx, t, root)
	agent := startMCP(ctx, t, root)
	env := daemonEnv(t.TempDir(), time.Minute)
	// the background process, started by a first command, answers once its first build is in
	warm := []string{"context", "-C", root, "--format", "markdown", "checkout fails"}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if out, _ := runWith(t, bin, env, warm...); !strings.Contains(out, "- partial: from ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background process's packs are still partial after a minute")
		}
	}

	all := false // a case sets every field of index.Request
	defer func() {
		if !all {
			t.Errorf("no case sets every field of index.Request: %v", index.RequestFields())
		}
	}()
	for _, q := range []struct {
		text string
		set  map[string]any // what the request sets, as the servers take it; the rest is resolved
		want string         // the request as resolved, as the JSON pack states it
	}{
		{"checkout fails when the cart is empty", nil,
			`{"budget":1500,"format":"xml","tokenizer":"cl100k_base","ranker":"fusion","fill":true}`},
		{"stock reservation is not released when an order is cancelled", map[string]any{"intent": "refactor", "format": "json"},
			`{"budget":1500,"format":"json","tokenizer":"cl100k_base","intent":"refactor","ranker":"fusion","fill":true}`},
		{"price rounding", map[string]any{"budget": 900, "tokenizer": "o200k_base", "ranker": "learned", "format": "markdown", "intent": "bug_fix"},
			`{"budget":900,"format":"markdown","tokenizer":"o200k_base","intent":"bug_fix","ranker":"learned","fill":true}`},
		// every field of the request at once, each through all four front ends
		{"the refund shows a wrong tax", map[string]any{"budget": 1200, "format": "json", "intent": "implementation",
			"tokenizer": "o200k_base", "ranker": "learned", "fill": true, "tight": true, "without": []string{"history", "lexicon"}},
			`{"budget":1200,"format":"json","tokenizer":"o200k_base","intent":"implementation","ranker":"learned","fill":true,"tight":true,"without":["history","lexicon"]}`},
	} {
		args := map[string]any{"text": q.text}
		flags := []string{"context", "-C", root}
		for k, v := range q.set {
			args[k] = v
			if list, ok := v.([]string); ok {
				v = strings.Join(list, ",")
			}
			flags = append(flags, "--"+k+"="+fmt.Sprint(v))
		}

		if len(args) == len(index.RequestFields()) {
			all = true
		}
		var fromLSP json.RawMessage
		lsp.command(ctx, "ctxmap.context", args, &fromLSP)
		fromMCP := agent.call(ctx, "get_context", args)
		fromDaemon, said := runWith(t, bin, env, slices.Concat(flags, []string{q.text})...)
		if said != "" {
			t.Errorf("%q: the command said %q; one the background process answers says nothing", q.text, said)
		}
		alone := runCLI(t, slices.Concat(flags, []string{"--no-daemon", q.text})...)

		var lspPack struct {
			Request   map[string]any `json:"request"`
			Budget    int            `json:"budget"`
			Tokenizer string         `json:"tokenizer"`
			Text      string         `json:"text"`
		}
		if err := json.Unmarshal(fromLSP, &lspPack); err != nil {
			t.Fatal(err)
		}
		// the request as resolved: the pack says its budget and tokenizer once, beside the rest
		stated := lspPack.Request
		stated["budget"], stated["tokenizer"] = lspPack.Budget, lspPack.Tokenizer
		b, err := json.Marshal(stated)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "the request "+q.text+" as resolved by the language server", canonical(t, []byte(q.want)), canonical(t, b))
		if strings.Contains(q.want, `"format":"json"`) {
			same(t, "the JSON pack of "+q.text+" (language server, MCP, the background process, --no-daemon)",
				withoutText(t, fromLSP), canonical(t, []byte(fromMCP)), canonical(t, []byte(fromDaemon)), canonical(t, []byte(alone)))
			continue
		}
		same(t, "the pack of "+q.text+" (language server, MCP, the background process, --no-daemon)",
			lspPack.Text, fromMCP, fromDaemon, alone)
	}
}

// withoutText is a JSON pack as the language server gives it (whole, with the rendered text the
// editors show) as the command line and MCP give it (index.PackJSON).
func withoutText(t *testing.T, b []byte) any {
	t.Helper()
	var p index.Pack
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	out, err := index.PackJSON(&p)
	if err != nil {
		t.Fatal(err)
	}
	return canonical(t, out)
}
