package server

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/protocol"
)

func (c *client) lenses(rel string) []protocol.CodeLens {
	c.t.Helper()
	var out []protocol.CodeLens
	c.mustCall("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": c.uri(rel)}}, &out)
	return out
}

// lensArg decodes a lens's ctxmap.copyContext argument.
func lensArg(t *testing.T, l protocol.CodeLens) rangeArg {
	t.Helper()
	if l.Command == nil || l.Command.Command != cmdCopyContext || l.Command.Title != copyContextTitle || len(l.Command.Arguments) != 1 {
		t.Fatalf("lens command %+v: want %s with one argument", l.Command, cmdCopyContext)
	}
	b, _ := json.Marshal(l.Command.Arguments[0])
	var a rangeArg
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestCodeLensOnTodoAndFixme(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	text := c.read("gist/gist.go")
	ls := c.lenses("gist/gist.go")
	if len(ls) != 1 {
		t.Fatalf("%d lenses in gist/gist.go, want 1 (its TODO)", len(ls))
	}
	todo := positionOf(t, text, "// TODO", 0, 0)
	a := lensArg(t, ls[0])
	if ls[0].Range.Start.Line != todo.Line || a.Range != ls[0].Range || a.URI != c.uri("gist/gist.go") {
		t.Errorf("lens %+v with argument %+v: want the TODO comment at line %d", ls[0].Range, a, todo.Line)
	}
	// the client passes the argument on to ctxmap.context: it must give a pack about the comment
	var pack struct {
		Query string `json:"query"`
		Items []struct {
			Path string `json:"path"`
		} `json:"items"`
	}
	if err := c.command(cmdContext, map[string]any{"uri": a.URI, "range": a.Range}, &pack); err != nil {
		t.Fatal(err)
	}
	if pack.Query != "\t// TODO: gist descriptions longer than 80 characters are cut in the middle of a word" || len(pack.Items) == 0 || pack.Items[0].Path != "gist/gist.go" {
		t.Errorf("pack from the lens: query %q, items %+v", pack.Query, pack.Items)
	}
	if ls := c.lenses("rule/severity.go"); len(ls) != 1 || ls[0].Range.Start.Line != 2 {
		t.Errorf("FIXME lenses %+v, want one on line 2", ls)
	}
	if ls := c.lenses("gist/store.go"); len(ls) != 0 {
		t.Errorf("lenses %+v in a file without markers", ls)
	}
}

func TestCodeLensOnIssueHeadings(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	writeFile(t, root, "issues/login.md", "# Login fails\n\nThe gist page asks to log in twice.\n")
	c := start(t, root, Options{}, nil, nil)
	c.waitReady()
	text := c.read("docs/ISSUE-12.md")
	ls := c.lenses("docs/ISSUE-12.md")
	if len(ls) != 2 {
		t.Fatalf("%d lenses in docs/ISSUE-12.md, want one per heading (2)", len(ls))
	}
	if ls[0].Range.Start.Line != 0 || ls[1].Range.Start.Line != positionOf(t, text, "## Expected", 0, 0).Line {
		t.Errorf("lenses at %+v and %+v: want the two headings", ls[0].Range, ls[1].Range)
	}
	var pack struct {
		Query string `json:"query"`
	}
	if err := c.command(cmdContext, lensArg(t, ls[1]), &pack); err != nil || pack.Query != "## Expected\n\nThe summary ends at a word boundary." {
		t.Errorf("pack from the section lens: %q, %v", pack.Query, err)
	}
	if ls := c.lenses("issues/login.md"); len(ls) != 1 {
		t.Errorf("%d lenses under issues/, want 1", len(ls))
	}
	if ls := c.lenses("README.md"); len(ls) != 0 {
		t.Errorf("lenses %+v in README.md, which is not an issue", ls)
	}
}

func TestIssueLike(t *testing.T) {
	t.Parallel()
	for rel, want := range map[string]bool{
		"ISSUE.md": true, "docs/issue-12.md": true, "BUGS.md": true, "TODO.txt": true, "a/login.issue.md": true,
		"issues/login.md": true, "x/Issues/y/z.md": true, "README.md": false, "debug.md": false, "docs/tissue.md": false,
	} {
		if got := issueLike(rel); got != want {
			t.Errorf("issueLike(%q) = %v, want %v", rel, got, want)
		}
	}
}
