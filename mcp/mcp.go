// Package mcp serves the engine to LLM agents over the Model Context Protocol: a context pack for a
// text, the chunks about an entity, and the definitions of a symbol.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

// ContextInput is what get_context takes: a request as every front end takes it, decoded strictly (a
// field it does not know is refused). Its schema lists the fields a task needs; the options for
// measuring ctxmap itself (experiments) are taken as well but left out of it (see contextSchema).
type ContextInput struct {
	index.Request
}

// UnmarshalJSON decodes the request refusing unknown fields: the schema allows fields it does not
// list, the experiments.
func (in *ContextInput) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(&in.Request)
}

// experiments are the request's fields for measuring ctxmap, not for a task: taken by get_context, not
// listed in its schema, where they would take half of what an agent reads.
var experiments = []string{"tokenizer", "ranker", "fill", "without"}

// instructions is what a client hands its model at initialize.
const instructions = "ctxmap knows this repository's code: its definitions, the references between them, its " +
	"domain entities and its history. For a task (an issue, a bug report, a stack trace, a comment), call " +
	"get_context with its text first: the pack holds the code that matters, each piece with path:line and why, " +
	"within a token budget. Follow an entity the pack names with explore_entity, and look a name up with " +
	"find_symbol. While the repository is first indexed, get_context answers at once from the files the text " +
	"matches (the pack says it is partial) and the other tools wait; send a progressToken to hear how far it is."

// ExploreInput is what explore_entity takes: the session's explore operation's argument.
type ExploreInput = session.ExploreArgs

// SymbolInput is what find_symbol takes: the session's symbols operation's argument.
type SymbolInput = session.SymbolArgs

// Symbols is find_symbol's answer.
type Symbols struct {
	Definitions []index.Symbol `json:"definitions"`
}

// NewServer makes the MCP server of a workspace's session. Each tool is an operation of the session
// (session.OpContext, OpExplore, OpSymbols): its argument checked, and answered while the first build
// runs as the operation's readiness says (get_context with a partial pack, as the command line; the
// others once the build is in, with progress meanwhile when asked).
func NewServer(sess *session.Session, version string) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "ctxmap", Version: version}, &sdk.ServerOptions{Instructions: instructions})
	s.AddReceivingMiddleware(shortErrors)
	sdk.AddTool(s, &sdk.Tool{
		Name: "get_context",
		Description: "Returns a token-budgeted context pack for a piece of text about this codebase (an issue, a bug " +
			"report, a stack trace, a code comment): the domain entities it is about, the definitions, code, " +
			"tests and callers that matter, each with its path:line and why it was chosen. Start here for any task " +
			"on this repository; the pack never exceeds the budget. For measuring ctxmap itself, the command line's " +
			"experiment options (" + strings.Join(experiments, ", ") + ") are taken too; a task needs none of them.",
		Annotations: readOnly("Context pack for a text"),
		InputSchema: contextSchema(),
	}, recovered("get_context", whenReady(sess, session.OpContext.Ready, func(in ContextInput) error { return session.OpContext.Check(in.Request) }, func(ctx context.Context, _ *sdk.CallToolRequest, in ContextInput) (*sdk.CallToolResult, any, error) {
		p, err := session.OpContext.Answer(ctx, sess, in.Request)
		if err != nil {
			return nil, nil, err
		}
		// the pack once, as the budget counts it: the rendered text, or the JSON (items with places,
		// reasons, probabilities and code; not the text again) when the request resolved to format json
		if p.Request.Format != "json" {
			return text(p.Text), nil, nil
		}
		b, err := index.PackJSON(p)
		if err != nil {
			return nil, nil, err
		}
		return text(string(b)), nil, nil
	})))
	sdk.AddTool(s, &sdk.Tool{
		Name: "explore_entity",
		Description: "Returns the chunks of code about one domain entity of the project (its definitions, the code " +
			"that mentions it most, most recently changed first among equals), each with path:line, signature " +
			"and the other entities of its file: follow them to explore the domain.",
		Annotations: readOnly("Explore a domain entity"),
		InputSchema: exploreSchema(),
	}, recovered("explore_entity", whenReady(sess, session.OpExplore.Ready, session.OpExplore.Check, func(ctx context.Context, _ *sdk.CallToolRequest, in ExploreInput) (*sdk.CallToolResult, *index.Exploration, error) {
		ex, err := session.OpExplore.Answer(ctx, sess, in)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (in %s)", err, sess.Root())
		}
		return structured(ex)
	})))
	sdk.AddTool(s, &sdk.Tool{
		Name: "find_symbol",
		Description: "Finds the definitions of a symbol (function, method, class, type...) by name: signature, doc " +
			"comment and path:line of each. Exact names first, then case-insensitive, then fuzzy matches.",
		Annotations: readOnly("Find a symbol's definitions"),
		InputSchema: schemaOf[SymbolInput](map[string][]string{"kind": index.SymbolKinds}),
	}, recovered("find_symbol", whenReady(sess, session.OpSymbols.Ready, session.OpSymbols.Check, func(ctx context.Context, _ *sdk.CallToolRequest, in SymbolInput) (*sdk.CallToolResult, *Symbols, error) {
		defs, err := session.OpSymbols.Answer(ctx, sess, in)
		if err != nil {
			return nil, nil, err
		}
		if len(defs) == 0 {
			return nil, nil, fmt.Errorf("no definition named %s%s in %s", index.Quote(in.Name), kindNote(in.Kind), sess.Root())
		}
		return structured(&Symbols{Definitions: defs})
	})))
	return s
}

// whenReady runs a tool on input its operation's check accepts, when the operation's readiness
// allows: at once for a partial pack, else once the session has its first build, with progress
// meanwhile when the call asks for it. It refuses other input at once, without waiting.
func whenReady[In, Out any](sess *session.Session, ready session.Readiness, check func(In) error, tool sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		var none Out
		if err := check(in); err != nil {
			return nil, none, err
		}
		if ready == session.WholeIndex || !sess.PartialPacks() {
			if err := waitReady(ctx, sess, req); err != nil {
				return nil, none, err
			}
		}
		return tool(ctx, req, in)
	}
}

// progressEvery is how often a call waiting for the first build looks at how far it is.
const progressEvery = 500 * time.Millisecond

// waitReady waits for the session's first build. A call that asked for progress (its progressToken)
// hears how far the build is when the wait starts and whenever it moved since.
func waitReady(ctx context.Context, sess *session.Session, req *sdk.CallToolRequest) error {
	token := req.Params.GetProgressToken()
	if _, done := sess.FirstBuild(); done || token == nil || req.Session == nil {
		return sess.WaitReady(ctx)
	}
	waited := make(chan error, 1)
	go func() { waited <- sess.WaitReady(ctx) }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	told := -1.0
	for {
		if share, done := sess.FirstBuild(); !done && share*100 > told {
			told = share * 100
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: told, Total: 100,
				Message: fmt.Sprintf("indexing %s: %.0f%% of the files read", sess.Root(), told)})
			if err != nil && ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "ctxmap mcp: progress: %v\n", err)
			}
		}
		select {
		case err := <-waited:
			return err
		case <-tick.C:
		}
	}
}

// structured is a tool's answer as structured content and as its text, the JSON written as it is:
// the SDK's text escapes <, > and & (\u003c), which a model then reads in every signature.
func structured[Out any](out Out) (*sdk.CallToolResult, Out, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		var none Out
		return nil, none, err
	}
	return text(strings.TrimSuffix(b.String(), "\n")), out, nil
}

// readOnly is what every tool declares: it reads the workspace's index and changes nothing, and the
// same call gives the same answer while the code does not change; it reaches nothing outside.
func readOnly(title string) *sdk.ToolAnnotations {
	closed := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

// recovered turns a panic in a tool into the tool's error and a log line with the stack: the SDK
// recovers none, and one bad call must not end the server an agent relies on.
func recovered[In, Out any](name string, tool sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out Out, err error) {
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(os.Stderr, "ctxmap mcp: panic in %s: %v\n%s", name, r, debug.Stack())
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("internal error in %s: %v (the server logged it and keeps running)", name, r)
			}
		}()
		return tool(ctx, req, in)
	}
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func kindNote(kind string) string {
	if kind == "" {
		return ""
	}
	return " of kind " + index.Quote(kind)
}

// contextSchema is get_context's input schema: the request's fields but the experiments, the budget
// within its bounds; the experiments are allowed beside them (ContextInput refuses other fields).
func contextSchema() *jsonschema.Schema {
	s := schemaOf[ContextInput](index.RequestChoices)
	for _, name := range experiments {
		delete(s.Properties, name)
	}
	s.AdditionalProperties = nil
	budget := s.Properties["budget"]
	budget.Minimum, budget.Maximum = jsonschema.Ptr(float64(index.MinBudget)), jsonschema.Ptr(float64(index.MaxBudget))
	return s
}

// exploreSchema is explore_entity's input schema, the limit within its bounds.
func exploreSchema() *jsonschema.Schema {
	s := schemaOf[ExploreInput](nil)
	limit := s.Properties["limit"]
	limit.Minimum, limit.Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(float64(index.MaxListed))
	return s
}

// schemaOf is the input schema of In, each property named in choices limited to those values (the
// items of an array property).
func schemaOf[In any](choices map[string][]string) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("the input schema of %T: %v", *new(In), err)) // a type of this package: a bug
	}
	for name, values := range choices {
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if p.Items != nil {
			p = p.Items
		}
		p.Enum = nil
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
	}
	return s
}

// maxErrorText is the most of a refused call's text sent back: what it says and the start of what it
// was given, not a megabyte it was given whole.
const maxErrorText = 600

// shortErrors cuts the text of a tool's error to maxErrorText bytes: the SDK's own check of a tool's
// arguments against its schema repeats a refused value whole.
func shortErrors(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*sdk.CallToolResult); ok && r.IsError {
			for _, c := range r.Content {
				if t, ok := c.(*sdk.TextContent); ok && len(t.Text) > maxErrorText {
					cut := maxErrorText
					for cut > 0 && !utf8.RuneStart(t.Text[cut]) {
						cut--
					}
					t.Text = fmt.Sprintf("%s... (%d bytes)", t.Text[:cut], len(t.Text))
				}
			}
		}
		return res, err
	}
}
