package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
)

func TestWorkspaceSymbolFuzzy(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	syms := c.symbols("gststr")
	if len(syms) == 0 || syms[0].Name != "GistStore" {
		t.Fatalf("fuzzy \"gststr\": %+v, want GistStore first", syms)
	}
	s := syms[0]
	if s.Kind != protocol.SymbolKindStruct || string(s.Location.URI) != c.uri("gist/store.go") ||
		fmt.Sprint(s.Location.Range.Start.Line+1) != lineOf(c.read("gist/store.go"), "type GistStore") {
		t.Errorf("GistStore symbol %+v", s)
	}
	for _, s := range c.symbols("Summary") {
		if s.Name == "Summary" && s.ContainerName != "Gist" {
			t.Errorf("Summary's container %q, want Gist", s.ContainerName)
		}
	}
	if syms := c.symbols(""); syms != nil {
		t.Errorf("empty query: %d symbols, want none", len(syms))
	}
	if syms := c.symbols("zzqqxx"); len(syms) != 0 {
		t.Errorf("no-match query: %+v", syms)
	}
	// Markdown headings are sections, not symbols
	if hasSymbol(c.symbols("Expected"), "Expected") {
		t.Error("a Markdown heading listed as a workspace symbol")
	}
}

func TestWorkspaceSymbolIsCapped(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	var b strings.Builder
	b.WriteString("package gist\n\n")
	for i := 0; i < 3*index.MaxSymbols; i++ {
		fmt.Fprintf(&b, "func Generated%03d() {}\n", i)
	}
	writeFile(t, root, "gist/many.go", b.String())
	c := start(t, root, Options{}, nil, nil)
	c.waitReady()
	if n := len(c.symbols("Generated")); n != index.MaxSymbols {
		t.Errorf("%d symbols, want the cap of %d", n, index.MaxSymbols)
	}
}

func TestFileCreatedAndDeletedOnDisk(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	c := start(t, root, Options{}, nil, nil)
	c.waitReady()
	writeFile(t, root, "gist/archive.go", "package gist\n\n// ArchiveOldGists moves old gists away.\nfunc ArchiveOldGists() {}\n")
	filetest.Eventually(t, testTimeout, "the new file's function is found", func() bool { return hasSymbol(c.symbols("ArchiveOldGists"), "ArchiveOldGists") })
	if err := os.Remove(filepath.Join(root, "gist", "archive.go")); err != nil {
		t.Fatal(err)
	}
	filetest.Eventually(t, testTimeout, "the deleted file's function is gone", func() bool { return !hasSymbol(c.symbols("ArchiveOldGists"), "ArchiveOldGists") })
	// a whole folder, created then removed
	writeFile(t, root, "labels/label.go", "package labels\n\n// LabelGist tags a gist.\nfunc LabelGist() {}\n")
	filetest.Eventually(t, testTimeout, "a new folder's function is found", func() bool { return hasSymbol(c.symbols("LabelGist"), "LabelGist") })
	if err := os.RemoveAll(filepath.Join(root, "labels")); err != nil {
		t.Fatal(err)
	}
	filetest.Eventually(t, testTimeout, "the removed folder's function is gone", func() bool { return !hasSymbol(c.symbols("LabelGist"), "LabelGist") })
}

// Without the disk watcher, the client's file events alone keep the index current; the same event
// twice changes nothing.
func TestClientFileEvents(t *testing.T) {
	t.Parallel()
	root := workspaceCopy(t, "notes")
	c := start(t, root, Options{NoFileWatch: true}, nil, nil)
	c.waitReady()
	writeFile(t, root, "gist/archive.go", "package gist\n\nfunc ArchiveOldGists() {}\n")
	event := func(kind int) {
		c.notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{
			map[string]any{"uri": c.uri("gist/archive.go"), "type": kind},
			map[string]any{"uri": "file:///elsewhere/x.go", "type": kind}, // outside: ignored
		}})
	}
	event(1)
	event(2)
	st := c.waitReady()
	if !hasSymbol(c.symbols("ArchiveOldGists"), "ArchiveOldGists") {
		t.Fatal("the file reported by the client is not indexed")
	}
	if n := len(c.symbols("ArchiveOldGists")); n != 1 {
		t.Errorf("%d ArchiveOldGists symbols after two events, want 1", n)
	}
	if st.Files != 9 {
		t.Errorf("%d files, want 9", st.Files)
	}
	os.Remove(filepath.Join(root, "gist", "archive.go"))
	event(3)
	c.waitReady()
	if hasSymbol(c.symbols("ArchiveOldGists"), "ArchiveOldGists") {
		t.Error("the deleted file reported by the client is still indexed")
	}
}

func TestDocumentSymbolsNested(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	var syms []protocol.DocumentSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": c.uri("gist/gist.go")}}, &syms)
	byName := map[string]protocol.DocumentSymbol{}
	for _, s := range syms {
		byName[s.Name] = s
	}
	gist, ok := byName["Gist"]
	if !ok || len(syms) != 3 {
		t.Fatalf("top-level symbols %+v: want Gist, GistFile, Summary", syms)
	}
	var fields []string
	for _, f := range gist.Children {
		fields = append(fields, f.Name)
	}
	if strings.Join(fields, ",") != "ID,Description,Public,Files" {
		t.Errorf("Gist's children %v, want its fields", fields)
	}
	text := c.read("gist/gist.go")
	if want := positionOf(t, text, "Gist struct", 0, 0); gist.SelectionRange.Start != want || gist.SelectionRange.End.Character != want.Character+4 {
		t.Errorf("Gist selection %+v, want the name at %+v", gist.SelectionRange, want)
	}
	if s := byName["Summary"]; s.Kind != protocol.SymbolKindMethod || s.Detail != "func (g *Gist) Summary() string" {
		t.Errorf("Summary %+v", s)
	}

	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": c.uri("docs/ISSUE-12.md")}}, &syms)
	if len(syms) != 1 || syms[0].Name != "Gist summary cuts words" || len(syms[0].Children) != 1 || syms[0].Children[0].Name != "Expected" {
		t.Errorf("Markdown outline %+v, want the heading with its subsection", syms)
	}
	var none []protocol.DocumentSymbol
	c.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": "untitled:Untitled-1"}}, &none)
	if none != nil {
		t.Errorf("symbols of an untitled buffer: %+v", none)
	}
}
