package server

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/embed/embedtest"
	"github.com/ctxmap/ctxmap/internal/filetest"
)

func TestInitializeCapabilitiesAndStatus(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	serverEnd, clientEnd := net.Pipe()
	go Serve(context.Background(), serverEnd, Options{InMemory: true, Logf: t.Logf, Version: "test"})
	c := newClient(t, clientEnd, root)
	defer c.conn.Close()

	// before initialize, requests are refused with the protocol's own code
	err := c.command(cmdStatus, nil, nil)
	if wireCode(t, err) != codeServerNotInitialized {
		t.Fatalf("status before initialize: %v", err)
	}

	var res struct {
		Capabilities struct {
			TextDocumentSync struct {
				OpenClose bool `json:"openClose"`
				Change    int  `json:"change"`
			} `json:"textDocumentSync"`
			HoverProvider           bool            `json:"hoverProvider"`
			CodeLensProvider        json.RawMessage `json:"codeLensProvider"`
			DocumentSymbolProvider  bool            `json:"documentSymbolProvider"`
			WorkspaceSymbolProvider bool            `json:"workspaceSymbolProvider"`
			ExecuteCommandProvider  struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	c.mustCall("initialize", map[string]any{
		"processId": os.Getpid(), "capabilities": map[string]any{},
		"workspaceFolders": []any{map[string]any{"uri": fileURI(root), "name": "notes"}},
	}, &res)
	caps := res.Capabilities
	if !caps.TextDocumentSync.OpenClose || caps.TextDocumentSync.Change != 2 {
		t.Errorf("text sync: %+v, want open/close and incremental changes", caps.TextDocumentSync)
	}
	if !caps.HoverProvider || !caps.DocumentSymbolProvider || !caps.WorkspaceSymbolProvider || caps.CodeLensProvider == nil {
		t.Errorf("providers missing: %+v", caps)
	}
	cmds := append([]string(nil), caps.ExecuteCommandProvider.Commands...)
	sort.Strings(cmds)
	want := []string{cmdContext, cmdEntities, cmdEntityMap, cmdExplore, cmdReindex, cmdStatus}
	if strings.Join(cmds, ",") != strings.Join(want, ",") {
		t.Errorf("commands %v, want %v", cmds, want)
	}
	if res.ServerInfo.Name != "ctxmap" || res.ServerInfo.Version != "test" {
		t.Errorf("serverInfo %+v", res.ServerInfo)
	}

	err = c.call("initialize", map[string]any{"capabilities": map[string]any{}, "rootUri": fileURI(root)}, nil)
	if wireCode(t, err) != jsonrpc2.InvalidRequest {
		t.Errorf("second initialize: %v", err)
	}

	c.notify("initialized", map[string]any{})
	st := c.waitReady()
	if st.Root != root || st.Files != 8 || st.Definitions == 0 || st.Entities == 0 || st.LastUpdate.IsZero() {
		t.Errorf("status %+v: want the 8 files of %s with definitions and entities", st, root)
	}
}

func TestUnknownMethods(t *testing.T) {
	t.Parallel()
	c := start(t, workspaceCopy(t, "notes"), Options{}, nil, nil)
	err := c.call("textDocument/formatting", map[string]any{}, nil)
	if wireCode(t, err) != jsonrpc2.MethodNotFound || !strings.Contains(err.Error(), "textDocument/formatting") {
		t.Errorf("unknown request: %v, want MethodNotFound naming it", err)
	}
	// unknown notifications are dropped without an answer; the session goes on
	c.notify("$/somethingNew", map[string]any{"x": 1})
	c.waitReady()
}

func TestPanicBecomesErrorResponse(t *testing.T) {
	// not parallel: it adds a method to the table every server reads
	methods["ctxmap/test/panic"] = func(*Server, context.Context, json.RawMessage) (any, error) {
		words := strings.Fields("")
		return words[0], nil // a real runtime panic: index out of range
	}
	t.Cleanup(func() { delete(methods, "ctxmap/test/panic") })
	c := start(t, workspaceCopy(t, "notes"), Options{}, nil, nil)
	err := c.call("ctxmap/test/panic", map[string]any{}, nil)
	if wireCode(t, err) != jsonrpc2.InternalError || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("panicking handler: %v, want InternalError with the panic", err)
	}
	c.waitReady() // still serving
}

func TestCancelRequest(t *testing.T) {
	// not parallel: it adds a method to the table every server reads
	// a request that runs until it is cancelled, releasing the queue first like the slow commands do
	methods["ctxmap/test/wait"] = func(_ *Server, ctx context.Context, _ json.RawMessage) (any, error) {
		release(ctx)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	t.Cleanup(func() { delete(methods, "ctxmap/test/wait") })
	c := start(t, workspaceCopy(t, "notes"), Options{}, nil, nil)
	for _, id := range []string{`4242`, `"wait-1"`} {
		frame := `{"jsonrpc":"2.0","id":` + id + `,"method":"ctxmap/test/wait","params":{}}`
		if err := c.stream.writeRaw(rawFrame(frame)); err != nil {
			t.Fatal(err)
		}
		c.waitReady() // answered while the waiting request is still running
		// numeric ids arrive as JSON numbers (float64 once decoded): they must still cancel
		if err := c.stream.writeRaw(rawFrame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`)); err != nil {
			t.Fatal(err)
		}
		c.stream.waitFrame(t, `"id":`+id, `"code":-32800`)
	}
}

func TestProgressAndWatchRegistration(t *testing.T) {
	t.Parallel()
	caps := map[string]any{
		"window":    map[string]any{"workDoneProgress": true},
		"workspace": map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}},
	}
	c := start(t, workspaceCopy(t, "notes"), Options{}, caps, nil)
	create := c.waitMessage("window/workDoneProgress/create")
	var tok tokenParams
	if err := json.Unmarshal(create.params, &tok); err != nil || tok.Token == "" {
		t.Fatalf("progress create %s: want a token", create.params)
	}
	c.waitMessage("$/progress", `"end"`, tok.Token)
	var kinds []string
	for _, m := range c.messages("$/progress") {
		var p struct {
			Token string `json:"token"`
			Value struct {
				Kind       string `json:"kind"`
				Message    string `json:"message"`
				Percentage int    `json:"percentage"`
			} `json:"value"`
		}
		if err := json.Unmarshal(m.params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Token != tok.Token {
			// the chunks still to embed after the build, when there are any, have a stage of their own
			if p.Value.Kind == "report" && !regexp.MustCompile(`^\d[\d,]*/\d[\d,]* chunks$`).MatchString(p.Value.Message) {
				t.Errorf("embedding report %q, want done/total chunks", p.Value.Message)
			}
			continue
		}
		kinds = append(kinds, p.Value.Kind)
		if p.Value.Kind == "report" && !regexp.MustCompile(`^\d[\d,]*/\d[\d,]* files$`).MatchString(p.Value.Message) {
			t.Errorf("report message %q, want done/total files", p.Value.Message)
		}
	}
	if len(kinds) < 3 || kinds[0] != "begin" || kinds[len(kinds)-1] != "end" || kinds[1] != "report" {
		t.Errorf("progress kinds %v, want begin, report..., end", kinds)
	}
	reg := c.waitMessage("client/registerCapability", "workspace/didChangeWatchedFiles")
	if !strings.Contains(string(reg.params), `"globPattern":"**/*"`) {
		t.Errorf("registration %s: want a watcher for every file", reg.params)
	}
	c.waitMessage("window/logMessage", "ctxmap indexed")
}

func TestNoProgressWithoutCapability(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	c.waitMessage("window/logMessage", "ctxmap indexed")
	if n := len(c.messages("window/workDoneProgress/create")) + len(c.messages("$/progress")) + len(c.messages("client/registerCapability")); n != 0 {
		t.Errorf("%d progress or registration messages to a client that declared neither", n)
	}
}

func TestDidChangeConfiguration(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	c := start(t, root, Options{}, nil, map[string]any{"budget": 600})
	c.waitReady()
	// budget is the budget of the pack the server answers text with
	budget := func(text string) (int, error) {
		var pack struct {
			Budget int `json:"budget"`
		}
		err := c.command(cmdContext, map[string]any{"text": text}, &pack)
		return pack.Budget, err
	}
	if b, err := budget("gist summary cuts words"); err != nil || b != 600 {
		t.Errorf("budget %d, %v; want 600 from initializationOptions", b, err)
	}
	if !hasSymbol(c.symbols("RuleIndex"), "RuleIndex") {
		t.Fatal("RuleIndex missing before the exclude")
	}

	// editors nest their settings under the server's name
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxmap": map[string]any{"budget": 900, "exclude": []string{"rule/"}}}})
	filetest.Eventually(t, testTimeout, "rule/ leaves the index", func() bool { return !hasSymbol(c.symbols("RuleIndex"), "RuleIndex") })
	c.waitReady()
	if b, err := budget("gist summary cuts words"); err != nil || b != 900 {
		t.Errorf("budget %d, %v after the change; want 900", b, err)
	}
	if !hasSymbol(c.symbols("GistStore"), "GistStore") {
		t.Error("GistStore lost with the new settings")
	}

	// a bad value is reported and the settings in force stay
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"budget": 5, "exclude": []string{"rule/"}}})
	c.waitMessage("window/logMessage", "budget 5 is below the minimum")
	if b, err := budget("gist summary"); err != nil || b != 900 {
		t.Errorf("after a bad setting: budget %d, %v; want 900", b, err)
	}
}

// TestEmbeddingSettings: the embedding block of the editor's options names the model, and a change of
// it opens the index again with the new model, which embeds the workspace.
func TestEmbeddingSettings(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, 64, nil)
	embedding := func(model string) map[string]any {
		return map[string]any{"provider": "openai", "url": srv.BaseURL(), "model": model}
	}
	c := start(t, workspaceCopy(t, "notes"), Options{CacheDir: t.TempDir()}, nil, map[string]any{"embedding": embedding("a")})
	if st := c.waitReady(); st.Vectors != "openai/a/64" {
		t.Errorf("status vectors %q, want openai/a/64", st.Vectors)
	}
	filetest.Eventually(t, testTimeout, "the chunks are embedded with model a", func() bool { return srv.Texts("a") > 1 })
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"ctxmap": map[string]any{"embedding": embedding("b")}}})
	filetest.Eventually(t, testTimeout, "the index opens again with model b", func() bool { return c.waitReady().Vectors == "openai/b/64" })
	filetest.Eventually(t, testTimeout, "the chunks are embedded with model b", func() bool { return srv.Texts("b") > 1 })
	var pack struct {
		Items []any `json:"items"`
	}
	if err := c.command(cmdContext, map[string]any{"text": "gist summary cuts words"}, &pack); err != nil || len(pack.Items) == 0 {
		t.Errorf("context with model b: %d items, %v", len(pack.Items), err)
	}

	// back to the default: the offline model
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"embedding": map[string]any{}}})
	filetest.Eventually(t, testTimeout, "the index opens again with GloVe", func() bool { return c.waitReady().Vectors == embed.Default().ID() })
}

func TestBadInitializationOptions(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	serverEnd, clientEnd := net.Pipe()
	go Serve(context.Background(), serverEnd, Options{InMemory: true, Logf: t.Logf})
	c := newClient(t, clientEnd, root)
	defer c.conn.Close()
	for _, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"rootUri": fileURI(root), "initializationOptions": map[string]any{"budget": "lots"}}, "budget must be a whole number"},
		{map[string]any{"rootUri": fileURI(root), "initializationOptions": map[string]any{"format": "pdf"}}, `format "pdf" is not one of`},
		{map[string]any{"rootUri": fileURI(root), "initializationOptions": map[string]any{"embedding": map[string]any{"provider": "openai", "model": "m"}}}, "embedding.url is required"},
		{map[string]any{"rootUri": fileURI(root + "/missing")}, "missing"},
		{map[string]any{"rootUri": "untitled:Untitled-1"}, "not a file: URI"},
		{map[string]any{}, "no workspace"},
	} {
		tc.params["capabilities"] = map[string]any{}
		err := c.call("initialize", tc.params, nil)
		if wireCode(t, err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("initialize %v: %v, want InvalidParams with %q", tc.params, err, tc.want)
		}
	}
	// a good initialize still works after the bad ones
	var res protocol.InitializeResult
	c.mustCall("initialize", map[string]any{"rootPath": root, "capabilities": map[string]any{}}, &res)
}
