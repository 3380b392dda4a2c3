package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

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
