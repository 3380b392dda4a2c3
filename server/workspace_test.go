package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// A multi-root workspace gets one index per repository its folders are in (two folders of one
// repository are one root), each request is answered by the root that holds its document, and
// workspace/didChangeWorkspaceFolders adds and removes roots.
func TestWorkspaceFoldersOneIndexPerRoot(t *testing.T) {
	t.Parallel()
	notes := workspaceCopy(t, "notes")
	billing := filepath.Join(t.TempDir(), "billing")
	writeFile(t, billing, "invoice/invoice.go", "package invoice\n\n// ChargeInvoice charges the customer for an invoice.\nfunc ChargeInvoice(id string) error { return nil }\n")
	filetest.Git(t, billing, "init", "-q")
	filetest.Git(t, billing, "add", ".")
	filetest.Git(t, billing, "commit", "-q", "-m", "Invoices are charged")

	var mu sync.Mutex
	var served []string // the roots a session was opened for, from the log
	c := serve(t, notes, Options{Logf: func(format string, args ...any) {
		t.Logf(format, args...)
		if format == "workspace %s" {
			mu.Lock()
			served = append(served, args[0].(string))
			mu.Unlock()
		}
	}})
	folder := func(dir string) map[string]any {
		return map[string]any{"uri": fileURI(dir), "name": filepath.Base(dir)}
	}
	var res struct {
		Capabilities struct {
			Workspace struct {
				WorkspaceFolders struct {
					Supported           bool `json:"supported"`
					ChangeNotifications bool `json:"changeNotifications"`
				} `json:"workspaceFolders"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	c.mustCall("initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{},
		"workspaceFolders": []any{folder(notes), folder(filepath.Join(notes, "gist")), folder(billing)}}, &res)
	c.notify("initialized", map[string]any{})
	if wf := res.Capabilities.Workspace.WorkspaceFolders; !wf.Supported || !wf.ChangeNotifications {
		t.Errorf("workspace folders capability: %+v", wf)
	}
	if st := c.waitReady(); st.Root != notes {
		t.Errorf("the first root %s, want the first folder's %s", st.Root, notes)
	}
	symbolIn := func(name string) string { // the file of name's first definition, "" when none
		t.Helper()
		if syms := c.symbols(name); len(syms) > 0 && syms[0].Name == name {
			return string(syms[0].Location.URI)
		}
		return ""
	}
	invoice := fileURI(filepath.Join(billing, "invoice", "invoice.go"))
	filetest.Eventually(t, testTimeout, "the second root is indexed", func() bool { return symbolIn("ChargeInvoice") == invoice })
	if got := symbolIn("Publish"); !strings.HasPrefix(got, fileURI(notes)+"/") {
		t.Errorf("Publish found in %q, want the notes repository", got)
	}
	mu.Lock()
	if len(served) != 2 || served[0] != notes || served[1] != billing {
		t.Errorf("roots served %v, want %s and %s (its gist folder is the same repository)", served, notes, billing)
	}
	mu.Unlock()

	// a document's requests go to its root: hover, symbols, a pack for a selection, an unsaved edit
	text := "package invoice\n\n// ChargeInvoice charges the customer for an invoice.\nfunc ChargeInvoice(id string) error { return nil }\n\n// RefundInvoice gives the money back.\nfunc RefundInvoice(id string) error { return nil }\n"
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": invoice, "languageId": "go", "version": 1, "text": text}})
	filetest.Eventually(t, testTimeout, "the unsaved edit reaches the second root", func() bool { return symbolIn("RefundInvoice") == invoice })
	var h *protocol.Hover
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": invoice}, "position": positionOf(t, text, "ChargeInvoice", 1, 2)}, &h)
	if h == nil || !strings.Contains(h.Contents.Value, "invoice/invoice.go") {
		t.Errorf("hover in the second root: %+v", h)
	}
	var pack struct {
		Items []struct{ Path string } `json:"items"`
	}
	sel := map[string]any{"start": positionOf(t, text, "// RefundInvoice", 0, 0), "end": positionOf(t, text, "func RefundInvoice", 0, 0)}
	if err := c.command(cmdContext, map[string]any{"uri": invoice, "range": sel}, &pack); err != nil || len(pack.Items) == 0 || pack.Items[0].Path != "invoice/invoice.go" {
		b, _ := json.Marshal(pack)
		t.Errorf("a pack for a selection in the second root: %v %s", err, b)
	}

	// folders removed and added: a root goes with its last folder, comes back with a new one
	change := func(added, removed []any) {
		c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"added": added, "removed": removed}})
	}
	change([]any{}, []any{folder(billing)})
	filetest.Eventually(t, testTimeout, "the second root is gone", func() bool { return symbolIn("ChargeInvoice") == "" })
	change([]any{}, []any{folder(notes)}) // its gist folder still holds it
	change([]any{folder(filepath.Join(billing, "invoice"))}, []any{})
	filetest.Eventually(t, testTimeout, "the second root is back", func() bool { return symbolIn("RefundInvoice") == invoice })
	if got := symbolIn("Publish"); !strings.HasPrefix(got, fileURI(notes)+"/") {
		t.Errorf("Publish found in %q after the notes folder left but its gist folder stayed", got)
	}
	mu.Lock()
	if len(served) != 3 || served[2] != billing {
		t.Errorf("roots served %v, want the second again", served)
	}
	mu.Unlock()
}
