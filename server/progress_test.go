package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/embed/embedtest"
)

// With an embedding endpoint slower than the parse, the chunks still to embed after the build get a
// $/progress stage of their own, counted in chunks, that ends once every vector is in.
func TestEmbeddingProgressStage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		time.Sleep(400 * time.Millisecond)
		var data []map[string]any
		for i, text := range body.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": embedtest.Vector(text, 16, nil)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": body.Model, "data": data})
	}))
	defer srv.Close()
	root := workspaceCopy(t, "notes")
	for i := range 200 {
		src := fmt.Sprintf("def settle_%d(entry):\n    return entry * %d\n\n\ndef post_%d(entry):\n    return settle_%d(entry)\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("ledger_%d.py", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := "embedding:\n  provider: openai\n  url: " + srv.URL + "/v1\n  model: slow\n  dimensions: 16\n"
	if err := os.WriteFile(filepath.Join(root, ".ctxmap.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	// a cache on disk: an index kept in memory has no vectors
	c := start(t, root, Options{CacheDir: t.TempDir()}, map[string]any{"window": map[string]any{"workDoneProgress": true}}, nil)
	c.waitMessage("$/progress", `"begin"`, `"embedding"`)
	c.waitMessage("$/progress", `"report"`, ` chunks"`)
	c.waitMessage("$/progress", `"end"`, `vectors ready`)
}
