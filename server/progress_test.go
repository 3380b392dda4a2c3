package server

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/embed/embedtest"
)

// With an embedding endpoint slower than the parse, the chunks still to embed after the build get a
// $/progress stage of their own, counted in chunks, that ends once every vector is in.
func TestEmbeddingProgressStage(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, 16, nil)
	srv.SetDelay(func(int) time.Duration { return 400 * time.Millisecond })
	root := workspaceCopy(t, "notes")
	for i := range 200 {
		src := fmt.Sprintf("def settle_%d(entry):\n    return entry * %d\n\n\ndef post_%d(entry):\n    return settle_%d(entry)\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("ledger_%d.py", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the editor's own setting, which needs no trust
	endpoint := map[string]any{"provider": "openai", "url": srv.BaseURL(), "model": "slow", "dimensions": 16}
	// a cache on disk: an index kept in memory has no vectors
	c := start(t, root, Options{CacheDir: t.TempDir()}, map[string]any{"window": map[string]any{"workDoneProgress": true}},
		map[string]any{"embedding": endpoint})
	c.waitMessage("$/progress", `"begin"`, `"embedding"`)
	c.waitMessage("$/progress", `"report"`, ` chunks"`)
	c.waitMessage("$/progress", `"end"`, `vectors ready`)
}

// The language server on a checkout whose .ctxmap.yaml names an embedding endpoint and a key's
// variable: nothing reaches the endpoint after initialize, and the editor is told once what was
// ignored; the editor's own settings may name the same endpoint, and it is used.
func TestCheckoutEndpointUnusedUntilTheUserSaysSo(t *testing.T) {
	srv := embedtest.NewServer(t, 16, nil)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CTXMAP_TEST_SECRET", "s3cret")
	endpoint := map[string]any{"provider": "openai", "url": srv.BaseURL(), "model": "m", "apiKeyEnv": "CTXMAP_TEST_SECRET"}
	config := "embedding:\n  provider: openai\n  url: " + srv.BaseURL() + "\n  model: m\n  apiKeyEnv: CTXMAP_TEST_SECRET\n"

	root := workspaceCopy(t, "notes")
	if err := os.WriteFile(filepath.Join(root, ".ctxmap.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	c := start(t, root, Options{CacheDir: t.TempDir()}, nil, nil)
	c.waitReady()
	c.waitMessage("window/logMessage", "not trusted", "embedding")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the checkout's endpoint", n)
	}

	root = workspaceCopy(t, "notes")
	if err := os.WriteFile(filepath.Join(root, ".ctxmap.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	c = start(t, root, Options{CacheDir: t.TempDir()}, nil, map[string]any{"embedding": endpoint})
	c.waitReady()
	if rs := srv.Requests(); len(rs) == 0 || rs[0].Authorization != "Bearer s3cret" {
		t.Errorf("the editor's own endpoint: %d requests", len(rs))
	}
}
