package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// benchRepo is a checkout of the public cli/cli repository, present on the development machines only.
const benchRepo = "/work/bench/cli"

// TestRealRepository checks the bar by hand on a real repository, through the real binary over stdio,
// and reports the latencies a person would feel. Timings are logged, never asserted.
func TestRealRepository(t *testing.T) {
	if _, err := os.Stat(filepath.Join(benchRepo, "go.mod")); err != nil {
		t.Skipf("%s is absent", benchRepo)
	}
	if testing.Short() {
		t.Skip("indexes a real repository")
	}
	root := filepath.Join(t.TempDir(), "cli")
	if err := copyTree(benchRepo, root); err != nil {
		t.Fatal(err)
	}
	p := startProcess(t, root)
	began := time.Now()
	var init struct {
		Capabilities struct {
			ExecuteCommandProvider struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
		} `json:"capabilities"`
	}
	p.mustCall("initialize", map[string]any{"processId": os.Getpid(), "rootUri": fileURI(root),
		"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}}}, &init)
	if got := strings.Join(init.Capabilities.ExecuteCommandProvider.Commands, ","); got != strings.Join(commandNames, ",") {
		t.Errorf("commands %q", got)
	}
	p.notify("initialized", map[string]any{})
	st := p.waitReady()
	t.Logf("ready in %v: %d files, %d definitions, %d entities", time.Since(began).Round(time.Millisecond), st.Files, st.Definitions, st.Entities)
	p.waitMessage("$/progress", `"kind":"end"`)

	// hover on "gist" in a comment
	rel := "pkg/cmd/gist/edit/edit.go"
	text := p.read(rel)
	start := time.Now()
	h := p.hover(rel, positionOf(t, text, "from the gist", 0, len("from the ")+1))
	t.Logf("hover in %v", time.Since(start).Round(time.Microsecond))
	if h == nil || !strings.Contains(h.Contents.Value, "**GIST**") {
		t.Fatalf("hover on gist: %+v", h)
	}
	links := entityLink.FindAllStringSubmatch(h.Contents.Value, -1)
	if len(links) == 0 || !strings.Contains(links[0][1], "gist") {
		t.Errorf("hover %q: want links into the gist code", h.Contents.Value)
	}
	t.Logf("hover:\n%s", h.Contents.Value)

	// a context pack within a small budget
	var pack testPack
	start = time.Now()
	issue := "gh gist edit fails to remove a file from a gist with several files: the update endpoint rejects the request"
	if err := p.command(cmdContext, map[string]any{"text": issue, "budget": 2000}, &pack); err != nil {
		t.Fatal(err)
	}
	t.Logf("context in %v: %d tokens, %d items", time.Since(start).Round(time.Millisecond), pack.Tokens, len(pack.Items))
	fromGist := 0
	for _, it := range pack.Items {
		t.Logf("  %s %s %s", it.Kind, it.Path, it.Symbol)
		if strings.HasPrefix(it.Path, "pkg/cmd/gist/") {
			fromGist++
		}
	}
	if pack.Tokens == 0 || pack.Tokens > 2000 || fromGist == 0 {
		t.Errorf("pack of %d tokens with %d of %d items from pkg/cmd/gist: want some, within 2,000 tokens", pack.Tokens, fromGist, len(pack.Items))
	}

	// a Go file written to disk, found by workspace/symbol; then deleted
	const rounds = 20
	var found, gone []time.Duration
	for i := 0; i < rounds; i++ {
		name := fmt.Sprintf("BenchProbe%d", i)
		file := filepath.Join(root, "pkg", "cmd", "gist", fmt.Sprintf("probe%d.go", i))
		written := time.Now()
		if err := os.WriteFile(file, []byte("package gist\n\nfunc "+name+"() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		filetest.Eventually(t, testTimeout, name+" is found", func() bool { return hasExact(p.symbols(name), name) })
		found = append(found, time.Since(written))
		removed := time.Now()
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		filetest.Eventually(t, testTimeout, name+" is gone", func() bool { return !hasExact(p.symbols(name), name) })
		gone = append(gone, time.Since(removed))
	}
	t.Logf("file written -> found by workspace/symbol: p50 %v, p95 %v (%d rounds)", percentile(found, 50), percentile(found, 95), rounds)
	t.Logf("file deleted -> gone from workspace/symbol: p50 %v, p95 %v", percentile(gone, 50), percentile(gone, 95))

	p.mustCall("shutdown", nil, nil)
	p.notify("exit", nil)
	if code := p.exitCode(t); code != 0 {
		t.Errorf("exit code %d, want 0; stderr:\n%s", code, p.stderr.String())
	}
}

func hasExact(syms []protocol.SymbolInformation, name string) bool { return hasSymbol(syms, name) }

func percentile(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[max(0, min(i, len(s))-1)].Round(time.Millisecond)
}
