package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/mcptest"
	"github.com/ctxmap/ctxmap/session"
)

// What an MCP client sees of the server, checked through the SDK's client over real pipes: a
// cancelled call, progress while the first build runs, the schema's bounds, the text of an answer,
// the instructions, an unknown entity.

// piped is a server over real pipes and the SDK's client talking to it.
type piped struct {
	cs       *sdk.ClientSession
	sess     *session.Session
	wire     *filetest.Log // the messages the client read, one "read: " line each
	log      *filetest.Log // the server's log
	progress chan *sdk.ProgressNotificationParams
}

// pipeServer serves the workspace at root on os pipes with the server's own transport. The session's
// first build does not start until the test calls p.sess.Start: what a call meets on a repository
// being indexed.
func pipeServer(t *testing.T, root string) *piped {
	t.Helper()
	p := &piped{wire: &filetest.Log{}, log: &filetest.Log{}, progress: make(chan *sdk.ProgressNotificationParams, 100)}
	logf := func(format string, args ...any) { fmt.Fprintf(p.log, format+"\n", args...) }
	ctx, cancel := context.WithCancel(context.Background())
	sess, err := session.Open(ctx, session.Options{Root: root, InMemory: true, Logf: logf})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	p.sess = sess
	toServer, fromClient, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	toClient, fromServer, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		served <- NewServer(sess, "test").Run(ctx, &Transport{In: toServer, Out: fromServer, Logf: logf})
		fromServer.Close()
	}()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) { p.progress <- req.Params },
	})
	p.cs, err = client.Connect(ctx, &sdk.LoggingTransport{Transport: &sdk.IOTransport{Reader: toClient, Writer: fromClient}, Writer: p.wire}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.cs.Close()
		cancel()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop")
		}
		sess.Close()
	})
	return p
}

// withProgress is a call's parameters asking for progress under token.
func withProgress(name string, args map[string]any, token string) *sdk.CallToolParams {
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken(token)
	return params
}

// answersTo are the responses the client read to the call of tool whose progress token is token.
func answersTo(t *testing.T, log, tool, token string) (id string, answers []string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 16<<20)
	var msgs []map[string]json.RawMessage
	for sc.Scan() {
		var m map[string]json.RawMessage
		if line, ok := strings.CutPrefix(sc.Text(), "read: "); ok && json.Unmarshal([]byte(line), &m) == nil {
			msgs = append(msgs, m)
		}
		if line, ok := strings.CutPrefix(sc.Text(), "write: "); ok && json.Unmarshal([]byte(line), &m) == nil {
			var call struct {
				Name string `json:"name"`
				Meta struct {
					ProgressToken string `json:"progressToken"`
				} `json:"_meta"`
			}
			if json.Unmarshal(m["params"], &call) == nil && call.Name == tool && call.Meta.ProgressToken == token {
				id = string(m["id"])
			}
		}
	}
	if id == "" {
		t.Fatalf("no call of %s with token %s in:\n%s", tool, token, log)
	}
	for _, m := range msgs {
		if string(m["id"]) == id && m["method"] == nil {
			answers = append(answers, string(m["result"])+string(m["error"]))
		}
	}
	return id, answers
}

// A call the client cancels gets no answer; the server goes on answering the next ones.
func TestCancelledCallGetsNoAnswer(t *testing.T) {
	t.Parallel()
	p := pipeServer(t, writeWorkspace(t))
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan error, 1)
	go func() {
		_, err := p.cs.CallTool(ctx, withProgress("explore_entity", map[string]any{"name": "gist"}, "cancelled"))
		called <- err
	}()
	<-p.progress // the call waits for the first build
	cancel()
	if err := <-called; err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	filetest.Eventually(t, 10*time.Second, "the server drops the cancelled call's answer", func() bool {
		return strings.Contains(p.log.String(), "the client cancelled it")
	})
	p.sess.Start()
	if res, text := call(t, p.cs, "find_symbol", map[string]any{"name": "Publish"}); res.IsError || !strings.Contains(text, "release/release.go") {
		t.Fatalf("the call after the cancelled one: %s", text)
	}
	if id, answers := answersTo(t, p.wire.String(), "explore_entity", "cancelled"); len(answers) > 0 {
		t.Errorf("the cancelled call %s was answered: %s", id, answers)
	}
}

// A call made while the first build runs hears how far it is when it asked for progress, then gets
// its answer; one that did not ask hears nothing.
func TestProgressWhileTheFirstBuildRuns(t *testing.T) {
	t.Parallel()
	p := pipeServer(t, writeWorkspace(t))
	type answer struct {
		res *sdk.CallToolResult
		err error
	}
	answered := make(chan answer, 2)
	go func() {
		res, err := p.cs.CallTool(context.Background(), withProgress("find_symbol", map[string]any{"name": "Publish"}, "build"))
		answered <- answer{res, err}
	}()
	got := <-p.progress
	if got.ProgressToken != "build" || got.Total != 100 || got.Progress < 0 || got.Progress > 100 || !strings.Contains(got.Message, "indexing") {
		t.Errorf("progress %+v", got)
	}
	go func() {
		res, err := p.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "find_symbol", Arguments: map[string]any{"name": "CreateGist"}})
		answered <- answer{res, err}
	}()
	p.sess.Start()
	for range 2 {
		a := <-answered
		if a.err != nil || a.res.IsError {
			t.Fatalf("a call waiting for the first build: %v %s", a.err, mcptest.Text(a.res))
		}
	}
	for len(p.progress) > 0 {
		if got := <-p.progress; got.ProgressToken != "build" {
			t.Errorf("progress for a call that did not ask for it: %+v", got)
		}
	}
}

// The budget's bounds are in the schema, and a budget past them is refused.
func TestBudgetBounds(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t)
	var schema struct {
		Properties map[string]struct{ Minimum, Maximum *float64 }
	}
	b, _ := json.Marshal(listedTool(t, cs, "get_context").InputSchema)
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	budget := schema.Properties["budget"]
	if budget.Minimum == nil || *budget.Minimum != index.MinBudget || budget.Maximum == nil || *budget.Maximum != index.MaxBudget {
		t.Errorf("budget's schema: %s", b)
	}
	for _, budget := range []float64{1e9, math.MaxInt32, index.MaxBudget + 1} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_context", Arguments: map[string]any{"text": "release", "budget": budget}})
		if err == nil && !res.IsError {
			t.Errorf("budget %g accepted: %.200s", budget, mcptest.Text(res))
		}
	}
}

// The JSON answers read as they are written: a signature's <- and a doc's && are not \u003c and \u0026.
func TestAnswersKeepTheirCharacters(t *testing.T) {
	t.Parallel()
	root := writeWorkspace(t)
	filetest.Write(t, root, map[string]string{"gist/drain.go": "package gist\n\n// DrainGists takes every gist of c while ok && open.\nfunc DrainGists(c <-chan *Gist) []*Gist { return nil }\n"})
	cs := connectTo(t, root)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"find_symbol", map[string]any{"name": "DrainGists"}},
		{"explore_entity", map[string]any{"name": "gist", "limit": 50}},
	} {
		res, text := call(t, cs, tc.tool, tc.args)
		if res.IsError || !strings.Contains(text, "<-chan") || strings.Contains(text, `\u003c`) || strings.Contains(text, `\u0026`) {
			t.Errorf("%s: %s", tc.tool, text)
		}
		if !json.Valid([]byte(text)) {
			t.Errorf("%s: not JSON: %s", tc.tool, text)
		}
	}
}

// initialize tells the client how to use the tools.
func TestInstructions(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t)
	got := cs.InitializeResult().Instructions
	for _, tool := range []string{"get_context", "explore_entity", "find_symbol", "progressToken"} {
		if !strings.Contains(got, tool) {
			t.Errorf("the instructions do not name %s: %q", tool, got)
		}
	}
}

// get_context's schema lists what a task needs; the experiments are taken but not listed, and a field
// that is neither is refused.
func TestExperimentsOutOfTheSchema(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t)
	tool := listedTool(t, cs, "get_context")
	b, _ := json.Marshal(tool.InputSchema)
	for _, name := range experiments {
		if strings.Contains(string(b), `"`+name+`"`) {
			t.Errorf("get_context's schema lists %s: %s", name, b)
		}
		if !strings.Contains(tool.Description, name) {
			t.Errorf("get_context's description does not name %s: %s", name, tool.Description)
		}
	}
	res2, text := call(t, cs, "get_context", map[string]any{"text": "release without a tag", "ranker": "fusion", "tokenizer": "cl100k_base",
		"fill": true, "without": []string{"history"}, "format": "json", "budget": 500})
	var pack struct {
		Tokenizer string
		Request   struct{ Ranker string }
	}
	if res2.IsError || json.Unmarshal([]byte(text), &pack) != nil || pack.Request.Ranker != "fusion" || pack.Tokenizer != "cl100k_base" {
		t.Errorf("the experiments were not taken: %.300s", text)
	}
	res3, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_context", Arguments: map[string]any{"text": "release", "txet": "release"}})
	if err == nil && !res3.IsError {
		t.Errorf("an unknown field was taken: %.200s", mcptest.Text(res3))
	}
	if err == nil && !strings.Contains(mcptest.Text(res3), "txet") {
		t.Errorf("the refusal does not name the field: %s", mcptest.Text(res3))
	}
}

// An entity that is none gets the names of the nearest ones, also when its letters are not theirs in
// order.
func TestUnknownEntityGetsNearestNames(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t)
	for _, name := range []string{"GISTZ", "relase", "NO_SUCH_THING"} {
		res, text := call(t, cs, "explore_entity", map[string]any{"name": name})
		if !res.IsError || !strings.Contains(text, "unknown entity") || !strings.Contains(text, "did you mean") {
			t.Errorf("%s: %s", name, text)
		}
	}
	if _, text := call(t, cs, "explore_entity", map[string]any{"name": "relase"}); !strings.Contains(text, "RELEASE") {
		t.Errorf("relase: %s", text)
	}
}

// On a repository never indexed, get_context answers at once with a pack that says it is partial,
// as the command line's first answer does; find_symbol waits for the build.
func TestFirstContextIsPartialWhileTheBuildRuns(t *testing.T) {
	t.Parallel()
	root := writeWorkspace(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sess, err := session.Open(ctx, session.Options{Root: root, CacheDir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	// the session's build is not started: only a partial pack can answer
	cs := mcptest.Connect(ctx, t, func(ctx context.Context, tr sdk.Transport) error { return NewServer(sess, "test").Run(ctx, tr) })
	soon, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	res, err := cs.CallTool(soon, &sdk.CallToolParams{Name: "get_context", Arguments: map[string]any{"text": "Publishing a release without a tag fails", "budget": 600}})
	if err != nil {
		t.Fatalf("the first get_context did not answer before the build: %v", err)
	}
	if text := mcptest.Text(res); res.IsError || !strings.Contains(text, "partial: from ") || !strings.Contains(text, "release/release.go") {
		t.Fatalf("the first pack: %s", text)
	}
	waited := make(chan string, 1)
	go func() {
		_, text := call(t, cs, "find_symbol", map[string]any{"name": "Publish"})
		waited <- text
	}()
	select {
	case text := <-waited:
		t.Fatalf("find_symbol answered before the build: %s", text)
	case <-time.After(200 * time.Millisecond):
	}
	sess.Start()
	if text := <-waited; !strings.Contains(text, "release/release.go") {
		t.Errorf("find_symbol once the build is in: %s", text)
	}
	if _, text := call(t, cs, "get_context", map[string]any{"text": "Publishing a release without a tag fails", "budget": 600}); strings.Contains(text, "partial: from ") {
		t.Errorf("a pack after the build is partial: %s", text)
	}
}

// listedTool is the tool of that name as the server lists it; the test fails when it is not listed.
func listedTool(t *testing.T, cs *sdk.ClientSession, name string) *sdk.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("%s is not listed", name)
	return nil
}
