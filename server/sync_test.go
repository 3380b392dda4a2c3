package server

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

func (c *client) change(rel string, version int, changes ...map[string]any) {
	c.t.Helper()
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": c.uri(rel), "version": version},
		"contentChanges": changes,
	})
}

func rangeOf(start, end protocol.Position) map[string]any {
	return map[string]any{"start": start, "end": end}
}

func TestUnsavedEditsSeenBeforeSaving(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	disk := c.read("gist/store.go")
	c.open("gist/store.go", disk)

	// an incremental edit: insert a function after the type, never written to disk
	added := "\n// ArchiveStaleGists moves gists untouched for a year to the archive.\nfunc ArchiveStaleGists(s *GistStore) int { return 0 }\n"
	at := positionOf(t, disk, "// Save stores", 0, 0)
	c.change("gist/store.go", 2, map[string]any{"range": rangeOf(at, at), "text": added})
	edited := disk[:strings.Index(disk, "// Save stores")] + added + disk[strings.Index(disk, "// Save stores"):]

	h := c.hover("gist/store.go", positionOf(t, edited, "ArchiveStaleGists", 1, 2))
	if h == nil || !strings.Contains(h.Contents.Value, "**`ArchiveStaleGists`** function") ||
		!strings.Contains(h.Contents.Value, "moves gists untouched for a year") {
		t.Fatalf("hover on the unsaved function: %+v", h)
	}
	if !hasSymbol(c.symbols("ArchiveStaleGists"), "ArchiveStaleGists") {
		t.Error("workspace/symbol does not see the unsaved function")
	}
	var pack struct {
		Items []struct {
			Path   string `json:"path"`
			Symbol string `json:"symbol"`
		} `json:"items"`
	}
	if err := c.command(cmdContext, map[string]any{"text": "`ArchiveStaleGists` archives nothing"}, &pack); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range pack.Items {
		found = found || it.Path == "gist/store.go" && it.Symbol == "ArchiveStaleGists"
	}
	if !found {
		t.Errorf("context pack %+v lacks the unsaved ArchiveStaleGists", pack.Items)
	}
	if c.read("gist/store.go") != disk {
		t.Fatal("the edit reached the disk")
	}

	// closing the buffer without saving: the file on disk again
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": c.uri("gist/store.go")}})
	if hasSymbol(c.symbols("ArchiveStaleGists"), "ArchiveStaleGists") {
		t.Error("the unsaved function survived closing the buffer")
	}
	if !hasSymbol(c.symbols("GistStore"), "GistStore") {
		t.Error("the file's own symbols are gone after closing")
	}
}

func TestIncrementalEditsInUTF16(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	text := "package gist\n\n// 🎉 x\nfunc Placeholder() {}\n"
	c.open("gist/emoji.go", text)
	// replace "Placeholder" by "Celebrate", then the "x" after the emoji by "rule": columns in UTF-16
	name := positionOf(t, text, "Placeholder", 0, 0)
	x := positionOf(t, text, "x\n", 0, 0)
	if x.Character != 6 {
		t.Fatalf("test setup: x at UTF-16 column %d, want 6", x.Character)
	}
	end := name
	end.Character += uint32(len("Placeholder"))
	c.change("gist/emoji.go", 2,
		map[string]any{"range": rangeOf(name, end), "text": "Celebrate"},
		map[string]any{"range": rangeOf(x, protocol.Position{Line: x.Line, Character: x.Character + 1}), "text": "rule"})
	want := "package gist\n\n// 🎉 rule\nfunc Celebrate() {}\n"
	if got := c.bufferText("gist/emoji.go", 4); got != strings.TrimSuffix(want, "\n") {
		t.Fatalf("buffer after the edits:\n%q\nwant\n%q", got, want)
	}
	if h := c.hover("gist/emoji.go", positionOf(t, want, "rule", 0, 1)); h == nil || !strings.Contains(h.Contents.Value, "**RULE**") {
		t.Errorf("hover on the inserted word: %+v", h)
	}

	// a change without a range replaces the whole text
	c.change("gist/emoji.go", 3, map[string]any{"text": "package gist\n\nfunc Whole() {}\n"})
	if got := c.bufferText("gist/emoji.go", 3); got != "package gist\n\nfunc Whole() {}" {
		t.Errorf("after a full change: %q", got)
	}

	// an impossible range is reported; the server goes on
	c.change("gist/emoji.go", 4, map[string]any{"range": rangeOf(protocol.Position{Line: 2, Character: 3}, protocol.Position{Line: 0, Character: 0}), "text": ""})
	c.waitMessage("window/logMessage", "starts after it ends")
	c.waitReady()
}

// bufferText is the server's copy of an open buffer as ctxmap.context sees it: the pack's query is
// the selected text, here lines 0 to n, without the blank lines and spaces around it.
func (c *client) bufferText(rel string, lines int) string {
	c.t.Helper()
	var pack struct {
		Query string `json:"query"`
	}
	r := rangeOf(protocol.Position{}, protocol.Position{Line: uint32(lines)})
	if err := c.command(cmdContext, map[string]any{"uri": c.uri(rel), "range": r}, &pack); err != nil {
		c.t.Fatal(err)
	}
	return pack.Query
}

// A buffer with a 100 MB line (a minified bundle, a log pasted into a file) is refused by the index as
// too large, not parsed, and the session goes on; once it is small again, it is indexed.
func TestHugeLineInABuffer(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	huge := "package gist\n\nvar Blob = \"" + strings.Repeat("x", 16<<20) + "\"\n" // 16 times what a file may hold
	c.open("gist/store.go", huge)
	text := c.read("gist/gist.go")
	c.open("gist/gist.go", text)
	if h := c.hover("gist/gist.go", positionOf(t, text, "Gist", 0, 1)); h == nil {
		t.Fatal("no hover after the huge buffer")
	}
	c.waitReady()
	if hasSymbol(c.symbols("Blob"), "Blob") {
		t.Error("a 16 MB buffer was indexed")
	}

	c.change("gist/store.go", 2, map[string]any{"text": "package gist\n\n// Blob is small now.\nvar Blob = \"x\"\n"})
	filetest.Eventually(t, testTimeout, "the small buffer indexed", func() bool { return hasSymbol(c.symbols("Blob"), "Blob") })
}
