package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/mcptest"
	"github.com/ctxmap/ctxmap/internal/shoptest"
	"github.com/ctxmap/ctxmap/session"
)

var workspace = map[string]string{
	"release/release.go": `package release

// Publish uploads the assets of a release and marks it as published.
func Publish(r *Release) error {
	if r.Tag == "" {
		return errNoTag
	}
	return upload(r.Assets)
}

// Release is a tagged version with its assets.
type Release struct {
	Tag    string
	Assets []string
}
`,
	"release/upload.go": "package release\n\nimport \"errors\"\n\nvar errNoTag = errors.New(\"a release needs a tag\")\n\nfunc upload(assets []string) error { return nil }\n",
	"gist/gist.go": `package gist

// Gist is a shared snippet with its files.
type Gist struct {
	ID    string
	Files map[string]string
}

// CreateGist makes a gist from files.
func CreateGist(files map[string]string) *Gist { return &Gist{Files: files} }

// GistStore keeps gists.
type GistStore struct{ gists []*Gist }

func (s *GistStore) Save(g *Gist) { s.gists = append(s.gists, g) }
`,
	"gist/list.go": "package gist\n\n// ListGists returns the stored gists.\nfunc (s *GistStore) ListGists() []*Gist { return s.gists }\n",
}

func TestMain(m *testing.M) {
	code := m.Run()
	filetest.RemoveBinary()
	os.Exit(code)
}

func writeWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for p, body := range workspace {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// connect starts the server on an in-memory transport and connects the SDK's own client to it.
func connect(t *testing.T) (*sdk.ClientSession, string) {
	t.Helper()
	root := writeWorkspace(t)
	return connectTo(t, root), root
}

// connectTo is connect on the workspace at root.
func connectTo(t *testing.T, root string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sess, err := session.Open(ctx, session.Options{Root: root, InMemory: true, Watch: true, Logf: t.Logf})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		sess.Close()
	})
	return mcptest.Connect(ctx, t, func(ctx context.Context, tr sdk.Transport) error { return Serve(ctx, sess, tr, "test") })
}

func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (*sdk.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	return res, mcptest.Text(res)
}

func TestToolsListed(t *testing.T) {
	cs, _ := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"get_context": "text", "explore_entity": "name", "find_symbol": "name"}
	for _, tool := range res.Tools {
		req, ok := want[tool.Name]
		if !ok {
			continue
		}
		delete(want, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		if tool.Description == "" || !strings.Contains(string(schema), `"required":["`+req+`"]`) {
			t.Errorf("%s: description %q, schema %s", tool.Name, tool.Description, schema)
		}
		if a := tool.Annotations; a == nil || !a.ReadOnlyHint || !a.IdempotentHint {
			t.Errorf("%s: annotations %+v, want read-only and idempotent", tool.Name, a)
		}
		// the output schema follows the Go type of the answer; get_context's answer is its content alone
		out, _ := json.Marshal(tool.OutputSchema)
		if (tool.OutputSchema == nil) != (tool.Name == "get_context") {
			t.Errorf("%s: output schema %s", tool.Name, out)
		}
		// the values a field accepts are listed: format, intent; kind
		if enums := strings.Count(string(schema), `"enum":[`); tool.Name == "get_context" && enums != 2 || tool.Name == "find_symbol" && enums != 1 {
			t.Errorf("%s: %d fields list their values: %s", tool.Name, enums, schema)
		}
	}
	if len(want) > 0 {
		t.Errorf("tools missing: %v", want)
	}
}

func TestGetContext(t *testing.T) {
	cs, _ := connect(t)
	res, text := call(t, cs, "get_context", map[string]any{"text": "Publishing a release without a tag fails", "budget": 600})
	if res.IsError {
		t.Fatalf("tool error: %s", text)
	}
	if !strings.Contains(text, "release/release.go") || !strings.Contains(text, "Publish") {
		t.Errorf("the pack misses the release code:\n%s", text)
	}
	res, js := call(t, cs, "get_context", map[string]any{"text": "gist files are lost when saving", "format": "json", "budget": 800})
	var pack struct {
		Tokens, Budget int
		Items          []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(js), &pack); err != nil {
		t.Fatalf("format json is not JSON: %v\n%s", err, js)
	}
	if pack.Budget != 800 || pack.Tokens > 800 || len(pack.Items) == 0 || !strings.HasPrefix(pack.Items[0].Path, "gist/") {
		t.Errorf("json pack = %+v", pack)
	}
	// the pack once, as the budget counts it: no text beside its items' code, no structuredContent
	// repeating it; its bytes follow its tokens (a token is about 4 bytes of code)
	var fields map[string]any
	if err := json.Unmarshal([]byte(js), &fields); err != nil || fields["text"] != nil || res.StructuredContent != nil {
		t.Errorf("format json: text %v, structuredContent %v", fields["text"] != nil, res.StructuredContent != nil)
	}
	if ratio := float64(len(js)) / 4 / float64(pack.Tokens); ratio > 1.5 {
		t.Errorf("format json: %d bytes for %d tokens: bytes/4 is %.2f times the tokens", len(js), pack.Tokens, ratio)
	} else {
		t.Logf("format json: %d bytes for %d tokens: bytes/4 is %.2f times the tokens", len(js), pack.Tokens, ratio)
	}
	// markdown: the rendered pack alone
	res, md := call(t, cs, "get_context", map[string]any{"text": "gist files are lost when saving", "budget": 800})
	if res.StructuredContent != nil || !strings.HasPrefix(md, "# Context") || len(md)/4 > 800*3/2 {
		t.Errorf("a markdown pack: content %.200q (%d bytes), structuredContent %v", md, len(md), res.StructuredContent != nil)
	}
}

// A JSON pack's bytes follow its budget at every size: bytes/4 within 1.5 times its tokens.
func TestGetContextJSONHeldToTheBudget(t *testing.T) {
	cs := connectTo(t, shoptest.Write(t, shoptest.Files(t)))
	for _, budget := range []int{500, 2000, 8000} {
		for _, q := range []string{"checkout fails when the cart is empty", "stock reservation is not released", "price rounding"} {
			res, js := call(t, cs, "get_context", map[string]any{"text": q, "format": "json", "budget": budget})
			var pack struct{ Tokens int }
			if err := json.Unmarshal([]byte(js), &pack); err != nil || res.IsError || pack.Tokens == 0 {
				t.Fatalf("%d %q: %v %s", budget, q, err, js)
			}
			ratio := float64(len(js)) / 4 / float64(pack.Tokens)
			t.Logf("budget %d, %q: %d bytes for %d tokens: %.2f", budget, q, len(js), pack.Tokens, ratio)
			if ratio > 1.5 {
				t.Errorf("budget %d, %q: %d bytes for %d tokens: bytes/4 is %.2f times the tokens", budget, q, len(js), pack.Tokens, ratio)
			}
		}
	}
}

func TestExploreEntity(t *testing.T) {
	cs, _ := connect(t)
	res, text := call(t, cs, "explore_entity", map[string]any{"name": "gist", "limit": 5})
	if res.IsError {
		t.Fatalf("tool error: %s", text)
	}
	var ex index.Exploration
	if err := json.Unmarshal([]byte(text), &ex); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if ex.Entity == nil || ex.Entity.Name != "GIST" || len(ex.Chunks) == 0 || len(ex.Chunks) > 5 {
		t.Fatalf("exploration = %s", text)
	}
	for _, c := range ex.Chunks {
		if !strings.HasPrefix(c.Path, "gist/") {
			t.Errorf("chunk outside the gist code: %+v", c)
		}
	}
}

func TestFindSymbol(t *testing.T) {
	cs, _ := connect(t)
	for _, tc := range []struct{ name, kind, path, match string }{
		{"Publish", "", "release/release.go", "exact"},
		{"GistStore.ListGists", "", "gist/list.go", "exact"},
		{"giststore", "", "gist/gist.go", "case-insensitive"},
		{"CreatGist", "", "gist/gist.go", "fuzzy"},
		{"Release", "struct", "release/release.go", "exact"},
		{"Release", "type", "release/release.go", "exact"}, // as a user says it: a struct is a type
		{"GistStore", "type", "gist/gist.go", "exact"},
	} {
		args := map[string]any{"name": tc.name}
		if tc.kind != "" {
			args["kind"] = tc.kind
		}
		res, text := call(t, cs, "find_symbol", args)
		var got Symbols
		if res.IsError || json.Unmarshal([]byte(text), &got) != nil || len(got.Definitions) == 0 {
			t.Errorf("%s: %s", tc.name, text)
			continue
		}
		d := got.Definitions[0]
		if d.Path != tc.path || d.Match != tc.match || d.StartLine == 0 {
			t.Errorf("%s: first definition %+v, want %s (%s)", tc.name, d, tc.path, tc.match)
		}
	}
}

// Bad arguments are tool errors a model can read and act on; the session goes on.
func TestBadArguments(t *testing.T) {
	cs, _ := connect(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_context", map[string]any{"text": ""}, "text is empty"},
		{"get_context", map[string]any{"text": "release", "budget": 10}, "budget"},
		{"get_context", map[string]any{"text": "release", "format": "pdf"}, "format"},
		{"get_context", map[string]any{"text": "release\x00\x00\x7fELF"}, "the text is binary"},
		{"explore_entity", map[string]any{"name": "NO_SUCH_THING"}, "unknown entity"},
		{"explore_entity", map[string]any{"name": "gist", "limit": -1}, "limit"},
		{"find_symbol", map[string]any{"name": "zzzqqq"}, "no definition"},
		// an unknown value is refused with the values there are
		{"find_symbol", map[string]any{"name": "Release", "kind": "structure"}, "interface"},
		{"get_context", map[string]any{"text": "release", "intent": "fix"}, "bug_fix"},
		{"get_context", map[string]any{"text": "release", "ranker": "magic"}, "fusion"},
		{"get_context", map[string]any{"text": "release", "without": []string{"colour"}}, "bm25"},
	} {
		res, text := call(t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(strings.ToLower(text), tc.want) {
			t.Errorf("%s %v: IsError=%v %q, want an error saying %q", tc.tool, tc.args, res.IsError, text, tc.want)
		}
	}
	// a wrong type is rejected by the schema before the handler runs
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_context", Arguments: map[string]any{"text": 12}}); err == nil {
		if res, text := call(t, cs, "get_context", map[string]any{"text": 12}); !res.IsError {
			t.Errorf("text=12 accepted: %s", text)
		}
	}
	if _, text := call(t, cs, "find_symbol", map[string]any{"name": "Publish"}); !strings.Contains(text, "release.go") {
		t.Errorf("the session did not survive the bad calls: %s", text)
	}
	// a text of 5 MB is read up to index.MaxText: the pack is made, and its query is the text cut
	huge := strings.Repeat("publishing a release without a tag fails ", 5<<20/42)
	start := time.Now()
	res, text := call(t, cs, "get_context", map[string]any{"text": huge, "format": "json", "budget": 600})
	var pack struct{ Query string }
	if res.IsError || json.Unmarshal([]byte(text), &pack) != nil || len(pack.Query) > index.MaxText || !strings.Contains(text, "release/release.go") {
		t.Errorf("a text of %d bytes: IsError=%v, query of %d bytes, %.300s", len(huge), res.IsError, len(pack.Query), text)
	}
	t.Logf("a text of %d MB answered in %s", len(huge)>>20, time.Since(start).Round(time.Millisecond))
}

// A file written after the start is found: the index follows the disk.
func TestFollowsTheDisk(t *testing.T) {
	cs, root := connect(t)
	call(t, cs, "find_symbol", map[string]any{"name": "Publish"}) // the first build is done
	if err := os.WriteFile(filepath.Join(root, "release", "notes.go"), []byte("package release\n\nfunc RenderNotes() string { return \"\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	filetest.Eventually(t, 20*time.Second, "the new file found", func() bool {
		res, text := call(t, cs, "find_symbol", map[string]any{"name": "RenderNotes"})
		return !res.IsError && strings.Contains(text, "release/notes.go")
	})
}

// The real binary over stdio: what an MCP client configured with `ctxmap mcp -C DIR` sees.
func TestStdioBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root := writeWorkspace(t)
	cmd := filetest.Command(t, "mcp", "-C", root)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, text := call(t, cs, "get_context", map[string]any{"text": "release without a tag", "budget": 500})
	if res.IsError || !strings.Contains(text, "release/release.go") {
		t.Errorf("get_context over stdio: %s", text)
	}
}
