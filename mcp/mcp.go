// Package mcp serves the engine to LLM agents over the Model Context Protocol: a context pack for a
// text, the chunks about an entity, and the definitions of a symbol.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sahilm/fuzzy"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxmap/ctxmap/index"
)

// ContextInput is what get_context takes.
type ContextInput struct {
	Text   string `json:"text" jsonschema:"the issue, bug report, stack trace or code comment to find the code for"`
	Budget int    `json:"budget,omitempty" jsonschema:"token budget of the pack (default 8000; at least 100)"`
	Format string `json:"format,omitempty" jsonschema:"markdown (default), xml or json"`
	Intent string `json:"intent,omitempty" jsonschema:"override the detected intent: bug_fix, implementation, refactor, test_writing, definition_lookup or usage_exploration"`
	Fill   bool   `json:"fill,omitempty" jsonschema:"fill the budget instead of stopping when the evidence does (default false: only the code likely to change)"`
}

// ExploreInput is what explore_entity takes.
type ExploreInput struct {
	Name  string `json:"name" jsonschema:"an entity of the project, as get_context or a previous explore_entity names it (RULE, QUALITY_PROFILE); case and spaces do not matter"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many chunks (default 20)"`
}

// SymbolInput is what find_symbol takes.
type SymbolInput struct {
	Name string `json:"name" jsonschema:"a symbol name: RuleIndex, search, RuleIndex.search; exact first, then case-insensitive, then fuzzy"`
	Kind string `json:"kind,omitempty" jsonschema:"only definitions of this kind: function, method, class, struct, interface, type, field, constant, variable..."`
}

// Definition is one place find_symbol found.
type Definition struct {
	Name      string `json:"name"`
	Qualified string `json:"qualified"`
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Signature string `json:"signature,omitempty"`
	Doc       string `json:"doc,omitempty"`
	Match     string `json:"match"` // exact, case-insensitive or fuzzy
}

// Symbols is find_symbol's answer.
type Symbols struct {
	Definitions []Definition `json:"definitions"`
}

const maxDefinitions = 25

// NewServer makes the MCP server of one index. The tools wait for ready to close (the first build);
// nil means the index is ready.
func NewServer(ix *index.Index, version string, ready <-chan struct{}) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "ctxmap", Version: version}, nil)
	wait := func(ctx context.Context) error {
		if ready == nil {
			return nil
		}
		select {
		case <-ready:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("the index is still being built: %w", ctx.Err())
		}
	}
	sdk.AddTool(s, &sdk.Tool{
		Name: "get_context",
		Description: "Returns a token-budgeted context pack for a piece of text about this codebase (an issue, a bug " +
			"report, a stack trace, a code comment): the domain entities it is about, the definitions, code, " +
			"tests and callers that matter, each with its path:line and why it was chosen. Start here for any task " +
			"on this repository; the pack never exceeds the budget.",
	}, func(ctx context.Context, _ *sdk.CallToolRequest, in ContextInput) (*sdk.CallToolResult, any, error) {
		if strings.TrimSpace(in.Text) == "" {
			return nil, nil, errors.New("text is empty: give the issue or comment to find code for")
		}
		if err := wait(ctx); err != nil {
			return nil, nil, err
		}
		res, err := ix.Context(ctx, index.Request{Text: in.Text, Budget: in.Budget, Format: in.Format, Intent: in.Intent, Fill: in.Fill})
		if err != nil {
			return nil, nil, err
		}
		if res.Pack == nil {
			return nil, nil, errors.New("no pack was made")
		}
		if !strings.EqualFold(strings.TrimSpace(in.Format), "json") {
			return text(res.Pack.Text), nil, nil
		}
		b, err := json.Marshal(res.Pack) // the whole pack: items with places, reasons and tokens
		if err != nil {
			return nil, nil, err
		}
		return text(string(b)), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{
		Name: "explore_entity",
		Description: "Returns the chunks of code about one domain entity of the project (its definitions, the code " +
			"that mentions it most, most recently changed first among equals), each with path:line, signature " +
			"and the other entities of its file: follow them to explore the domain.",
	}, func(ctx context.Context, _ *sdk.CallToolRequest, in ExploreInput) (*sdk.CallToolResult, *index.Exploration, error) {
		if strings.TrimSpace(in.Name) == "" {
			return nil, nil, errors.New("name is empty: give an entity such as the ones get_context lists")
		}
		if in.Limit < 0 {
			return nil, nil, errors.New("limit must be positive")
		}
		if err := wait(ctx); err != nil {
			return nil, nil, err
		}
		ex, err := ix.Explore(in.Name, in.Limit)
		if err != nil {
			return nil, nil, err
		}
		return nil, ex, nil
	})
	sdk.AddTool(s, &sdk.Tool{
		Name: "find_symbol",
		Description: "Finds the definitions of a symbol (function, method, class, type...) by name: signature, doc " +
			"comment and path:line of each. Exact names first, then case-insensitive, then fuzzy matches.",
	}, func(ctx context.Context, _ *sdk.CallToolRequest, in SymbolInput) (*sdk.CallToolResult, *Symbols, error) {
		if strings.TrimSpace(in.Name) == "" {
			return nil, nil, errors.New("name is empty: give a symbol name such as RuleIndex or search")
		}
		if err := wait(ctx); err != nil {
			return nil, nil, err
		}
		defs := findSymbol(ix.Snapshot(), strings.TrimSpace(in.Name), in.Kind)
		if len(defs) == 0 {
			return nil, nil, fmt.Errorf("no definition named %q%s in this workspace", in.Name, kindNote(in.Kind))
		}
		return nil, &Symbols{Definitions: defs}, nil
	})
	return s
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func kindNote(kind string) string {
	if kind == "" {
		return ""
	}
	return " of kind " + kind
}

// findSymbol looks a name up exactly, then ignoring case, then fuzzily; a dotted name keeps the
// definitions whose parent matches.
func findSymbol(s *index.Snapshot, name, kind string) []Definition {
	parent := ""
	if i := strings.LastIndexAny(name, ".:#"); i >= 0 {
		parent, name = strings.Trim(name[:i], ".:#"), name[i+1:]
		if j := strings.LastIndexAny(parent, ".:#"); j >= 0 {
			parent = parent[j+1:]
		}
	}
	collect := func(names []string, match string) []Definition {
		var out []Definition
		for _, n := range names { // in the order given: the fuzzy ones best first
			var defs []Definition
			for _, ref := range s.Symbols[n] {
				d, ok := s.Definition(ref)
				if !ok || kind != "" && !strings.EqualFold(d.Kind, kind) || parent != "" && !strings.EqualFold(d.Parent, parent) {
					continue
				}
				q := d.Name
				if d.Parent != "" {
					q = d.Parent + "." + d.Name
				}
				defs = append(defs, Definition{Name: d.Name, Qualified: q, Kind: d.Kind, Path: ref.Path, StartLine: d.StartLine,
					EndLine: d.EndLine, Signature: d.Signature, Doc: d.Doc, Match: match})
			}
			sort.SliceStable(defs, func(i, j int) bool {
				if defs[i].Path != defs[j].Path {
					return defs[i].Path < defs[j].Path
				}
				return defs[i].StartLine < defs[j].StartLine
			})
			out = append(out, defs...)
		}
		return out
	}
	if out := collect([]string{name}, "exact"); len(out) > 0 {
		return head(out)
	}
	if out := collect(s.Lower[strings.ToLower(name)], "case-insensitive"); len(out) > 0 {
		return head(out)
	}
	all := s.SymbolNames()
	var names []string
	for i, m := range fuzzy.Find(name, all) {
		if i == 10 {
			break
		}
		names = append(names, m.Str)
	}
	return head(collect(names, "fuzzy"))
}

func head(ds []Definition) []Definition {
	if len(ds) > maxDefinitions {
		return ds[:maxDefinitions]
	}
	return ds
}
