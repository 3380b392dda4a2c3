package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/session"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

type testPack struct {
	Query  string `json:"query"`
	Budget int    `json:"budget"`
	Tokens int    `json:"tokens"`
	Intent struct {
		Name string `json:"name"`
	} `json:"intent"`
	Entities []struct {
		Name string `json:"name"`
	} `json:"entities"`
	Items []struct {
		Kind   string   `json:"kind"`
		Path   string   `json:"path"`
		Symbol string   `json:"symbol"`
		Why    []string `json:"why"`
	} `json:"items"`
	Text string `json:"text"`
}

func TestContextCommand(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)

	var p testPack
	if err := c.command(cmdContext, map[string]any{"text": "Publishing a secret gist gives a confusing error", "budget": 400, "format": "xml", "intent": "bug_fix"}, &p); err != nil {
		t.Fatal(err)
	}
	if p.Budget != 400 || p.Tokens > 400 || p.Tokens == 0 || p.Intent.Name != "bug_fix" || !strings.Contains(p.Text, "<") {
		t.Errorf("pack: budget %d, tokens %d, intent %q, text %.60q", p.Budget, p.Tokens, p.Intent.Name, p.Text)
	}
	if len(p.Items) == 0 || p.Items[0].Path != "gist/publish.go" || len(p.Items[0].Why) == 0 {
		t.Errorf("items %+v: want gist/publish.go first, with reasons", p.Items)
	}
	if len(p.Entities) == 0 || p.Entities[0].Name != "GIST" {
		t.Errorf("entities %+v, want GIST", p.Entities)
	}

	// the cursor in a comment: the comment block is the query
	text := c.read("rule/severity.go")
	if err := c.command(cmdContext, map[string]any{"uri": c.uri("rule/severity.go"), "position": positionOf(t, text, "severity above", 0, 2)}, &p); err != nil {
		t.Fatal(err)
	}
	if p.Query != "FIXME: a rule severity above 3 is treated as 3" {
		t.Errorf("query from the comment at the cursor: %q", p.Query)
	}
	// the cursor in a Markdown section: the innermost section is the query
	md := c.read("README.md")
	if err := c.command(cmdContext, map[string]any{"uri": c.uri("README.md"), "position": positionOf(t, md, "Publishing a gist", 0, 0)}, &p); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Query, "## Gists\n") || strings.Contains(p.Query, "## Rules") {
		t.Errorf("query from the section at the cursor: %q", p.Query)
	}
	// a selection in an untitled buffer works from the buffer alone
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "untitled:Untitled-1", "languageId": "markdown", "version": 1, "text": "the rule index misses rules\n"}})
	r := rangeOf(protocol.Position{}, protocol.Position{Line: 0, Character: 27})
	if err := c.command(cmdContext, map[string]any{"uri": "untitled:Untitled-1", "range": r}, &p); err != nil || p.Query != "the rule index misses rules" {
		t.Errorf("untitled selection: %q, %v", p.Query, err)
	}
}

func TestCommandArgumentsValidated(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	// a folder outside, reached by a symlink in the workspace and by ".." in a URI
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package secret\n\n// the key\nconst Key = 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	c := start(t, root, Options{}, nil, nil)
	c.waitReady()
	gistURI := c.uri("gist/gist.go")
	dotdot := "file://" + filepath.ToSlash(root) + "/gist/../../" + filepath.Base(outside) + "/secret.go"
	line := func(l uint32) protocol.Position { return protocol.Position{Line: l} }
	for _, tc := range []struct {
		command string
		arg     any
		want    string
	}{
		{cmdContext, nil, "give {uri, range}"},
		{cmdContext, map[string]any{}, "give {uri, range}"},
		{cmdContext, "gist", "must be an object"},
		{cmdContext, map[string]any{"text": "gist", "uri": gistURI}, "not both"},
		{cmdContext, map[string]any{"uri": gistURI}, "give a range"},
		{cmdContext, map[string]any{"uri": gistURI, "range": rangeOf(line(0), line(1)), "position": line(0)}, "a range or a position, not both"},
		{cmdContext, map[string]any{"text": "gist", "budget": "big"}, "budget must be a whole number"},
		{cmdContext, map[string]any{"text": "gist", "budget": 2000.5}, "budget must be a whole number"},
		{cmdContext, map[string]any{"text": "gist", "budget": 5}, "below the minimum of 100"},
		{cmdContext, map[string]any{"text": "gist", "format": "pdf"}, `format "pdf"`},
		{cmdContext, map[string]any{"text": "gist", "intent": "dance"}, "dance"},
		{cmdContext, map[string]any{"text": "   "}, "empty"},
		{cmdContext, map[string]any{"text": "gist\x00\x00\x7fELF"}, "the text is binary"},
		{cmdContext, map[string]any{"text": "gist", "colour": "red"}, `unknown argument "colour"`},
		{cmdContext, map[string]any{"uri": "file:///etc/passwd", "range": rangeOf(line(0), line(1))}, "outside the workspace"},
		{cmdContext, map[string]any{"uri": c.uri("out/secret.go"), "range": rangeOf(line(0), line(3))}, "outside the workspace"},
		{cmdContext, map[string]any{"uri": c.uri("out/secret.go"), "position": line(2)}, "outside the workspace"},
		{cmdContext, map[string]any{"uri": dotdot, "range": rangeOf(line(0), line(3))}, "outside the workspace"},
		{cmdContext, map[string]any{"uri": "untitled:Untitled-9", "range": rangeOf(line(0), line(1))}, "not a file: URI"},
		{cmdContext, map[string]any{"uri": gistURI, "range": rangeOf(line(900), line(901))}, "past the end of the document"},
		{cmdContext, map[string]any{"uri": gistURI, "range": rangeOf(line(3), line(3))}, "selection is empty"},
		{cmdContext, map[string]any{"uri": gistURI, "position": line(0)}, "no comment or Markdown section at line 1"},
		{cmdContext, map[string]any{"uri": c.uri("nothing.go"), "range": rangeOf(line(0), line(1))}, "nothing.go"},
		{cmdExplore, map[string]any{}, "give the entity's name"},
		{cmdExplore, map[string]any{"name": "GIST", "limit": -2}, "limit must be between"},
		{cmdExplore, map[string]any{"name": "gst"}, `unknown entity "gst"; did you mean GIST`},
		{cmdEntities, map[string]any{"top": -1}, "top must be between"},
		{cmdEntities, map[string]any{"top": "all"}, "top must be a whole number"},
		{"ctxmap.dance", nil, `unknown command "ctxmap.dance"`},
		{cmdCopyContext, nil, "runs in the editor"},
	} {
		err := c.command(tc.command, tc.arg, nil)
		if err == nil {
			t.Errorf("%s %v: no error, want %q", tc.command, tc.arg, tc.want)
			continue
		}
		if code := wireCode(t, err); code != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %d %q, want InvalidParams with %q", tc.command, tc.arg, code, err, tc.want)
		}
	}
	err := c.call("workspace/executeCommand", map[string]any{"command": cmdContext, "arguments": []any{map[string]any{"text": "a"}, map[string]any{"text": "b"}}}, nil)
	if wireCode(t, err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "one argument object") {
		t.Errorf("two arguments: %v", err)
	}
	err = c.call("workspace/executeCommand", []int{1, 2}, nil)
	if wireCode(t, err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "malformed parameters") {
		t.Errorf("parameters of the wrong shape: %v", err)
	}
	err = c.call("textDocument/hover", nil, nil)
	if wireCode(t, err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "parameters are missing") {
		t.Errorf("hover without parameters: %v", err)
	}
}

func TestExploreEntitiesStatusReindex(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	c := start(t, root, Options{}, nil, nil)
	c.waitReady()

	var ex struct {
		Entity struct {
			Name string `json:"name"`
		} `json:"entity"`
		Chunks []struct {
			Path   string `json:"path"`
			Symbol string `json:"symbol"`
		} `json:"chunks"`
	}
	if err := c.command(cmdExplore, map[string]any{"name": "gist", "limit": 3}, &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Entity.Name != "GIST" || len(ex.Chunks) != 3 {
		t.Fatalf("explore gist: %+v, want GIST with 3 chunks", ex)
	}
	for _, ch := range ex.Chunks {
		if !strings.HasPrefix(ch.Path, "gist/") {
			t.Errorf("chunk %+v is not about gists", ch)
		}
	}

	var ents []entitySummary
	if err := c.command(cmdEntities, map[string]any{"top": 2}, &ents); err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 || ents[0].Name != "GIST" || ents[1].Name != "RULE" || ents[0].FileCount == 0 || len(ents[0].Files) == 0 {
		t.Errorf("top entities %+v, want GIST then RULE with their files", ents)
	}
	if err := c.command(cmdEntities, nil, &ents); err != nil || len(ents) < 3 {
		t.Errorf("entities with the default top: %d, %v", len(ents), err)
	}

	before := c.waitReady()
	// a file written while nobody watches it would be found by the rescan; here the watcher may find
	// it first, so the test only asks that reindex answers with counts that include it
	writeFile(t, root, "rule/extra.go", "package rule\n\nfunc ExtraRule() {}\n")
	var after session.Status
	if err := c.command(cmdReindex, nil, &after); err != nil {
		t.Fatal(err)
	}
	if !after.Ready || after.Files != before.Files+1 || after.LastUpdate.Before(before.LastUpdate) {
		t.Errorf("reindex: %+v after %+v, want one more file", after, before)
	}
}

func TestReindexFindsWhatNothingReported(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	c := start(t, root, Options{NoFileWatch: true}, nil, nil)
	before := c.waitReady()
	writeFile(t, root, "rule/extra.go", "package rule\n\nfunc ExtraRule() {}\n")
	if hasSymbol(c.symbols("ExtraRule"), "ExtraRule") {
		t.Fatal("found without watching or events")
	}
	var after session.Status
	if err := c.command(cmdReindex, nil, &after); err != nil {
		t.Fatal(err)
	}
	if after.Files != before.Files+1 || !hasSymbol(c.symbols("ExtraRule"), "ExtraRule") {
		t.Errorf("after reindex: %+v, ExtraRule found %v", after, hasSymbol(c.symbols("ExtraRule"), "ExtraRule"))
	}
}

func TestEntityMapCommand(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)

	var got struct {
		HTML     string `json:"html"`
		SVG      string `json:"svg"`
		Entities int    `json:"entities"`
	}
	if err := c.command(cmdEntityMap, map[string]any{"entity": "gist", "top": 3}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Entities != 3 || !strings.HasPrefix(got.SVG, "<svg") || !strings.Contains(got.SVG, ">GIST<") ||
		!strings.Contains(got.HTML, "<!DOCTYPE html>") || !strings.Contains(got.HTML, `"focus":"GIST"`) {
		t.Errorf("entity map around gist: %d entities, svg %.80q, html %.80q", got.Entities, got.SVG, got.HTML)
	}
	err := c.command(cmdEntityMap, map[string]any{"entity": "spaceship"}, &got)
	if e, ok := err.(*jsonrpc2.Error); !ok || e.Code != jsonrpc2.InvalidParams || !strings.Contains(e.Message, "unknown entity") {
		t.Errorf("unknown entity: %v, want InvalidParams naming it", err)
	}
}
