package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/config"
	"github.com/ctxmap/ctxmap/internal/filetest"
)

func TestEmbeddingConfig(t *testing.T) {
	root := t.TempDir()
	yaml := `
embedding:
  provider: openai
  url: http://localhost:11434/v1
  model: nomic-embed-text
  apiKeyEnv: OPENAI_API_KEY
  dimensions: 768
`
	if err := os.WriteFile(filepath.Join(root, config.File), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if _, err := Trust(root, false); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	want := Embedding{Provider: "openai", URL: "http://localhost:11434/v1", Model: "nomic-embed-text", APIKeyEnv: "OPENAI_API_KEY", Dimensions: 768}
	if cfg.Embedding != want {
		t.Errorf("from YAML: %+v, want %+v", cfg.Embedding, want)
	}
	// editors send the same block as JSON
	var fromJSON Config
	if err := json.Unmarshal([]byte(`{"embedding":{"provider":"openai","url":"http://localhost:11434/v1","model":"nomic-embed-text","apiKeyEnv":"OPENAI_API_KEY","dimensions":768}}`), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if fromJSON.Embedding != want {
		t.Errorf("from JSON: %+v, want %+v", fromJSON.Embedding, want)
	}
	if b, _ := json.Marshal(Config{}); strings.Contains(string(b), "embedding") {
		t.Errorf("the default configuration marshals an embedding block: %s", b)
	}
	if err := os.WriteFile(filepath.Join(root, config.File), []byte("embedding:\n  provider: openai\n  modle: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(root); err == nil || !strings.Contains(err.Error(), "modle") || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("a mistyped key: %v, want the key and its line", err)
	}
}

func TestEmbeddingConfigValidation(t *testing.T) {
	ok := Embedding{Provider: "openai", URL: "https://api.example.com/v1", Model: "text-embedding-3-small"}
	for _, e := range []Embedding{{}, {Provider: "glove"}, ok, {Provider: "openai", URL: "http://127.0.0.1:8080", Model: "m", APIKeyEnv: "MY_KEY_2", Dimensions: 256}} {
		if err := (Config{Embedding: e}).Validate(); err != nil {
			t.Errorf("%+v: %v", e, err)
		}
	}
	with := func(f func(*Embedding)) Embedding {
		e := ok
		f(&e)
		return e
	}
	for _, tc := range []struct {
		e    Embedding
		want string
	}{
		{Embedding{Provider: "cohere"}, `embedding.provider "cohere" is not one of glove, openai`},
		{Embedding{URL: "http://localhost:11434/v1"}, "embedding.url is set but the provider is glove"},
		{Embedding{Provider: "glove", Model: "m"}, "add provider: openai"},
		{with(func(e *Embedding) { e.URL = "" }), "embedding.url is required for the openai provider"},
		{with(func(e *Embedding) { e.URL = "localhost:11434" }), `embedding.url "localhost:11434" is not an http:// or https:// URL`},
		{with(func(e *Embedding) { e.URL = "ftp://host/v1" }), "is not an http:// or https:// URL"},
		{with(func(e *Embedding) { e.URL = "http:///v1" }), "is not an http:// or https:// URL"},
		{with(func(e *Embedding) { e.URL = "https://host/v1?api-version=2" }), "has a query or fragment"},
		{with(func(e *Embedding) { e.Model = "" }), "embedding.model is required for the openai provider"},
		{with(func(e *Embedding) { e.Dimensions = -1 }), "embedding.dimensions -1 is not between 1 and 65536"},
		{with(func(e *Embedding) { e.Dimensions = 300_000 }), "embedding.dimensions 300000 is not between 1 and 65536"},
		{with(func(e *Embedding) { e.APIKeyEnv = "sk-proj-abc123" }), "must be the name of an environment variable"},
	} {
		err := (Config{Embedding: tc.e}).Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.e, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "sk-proj") {
			t.Errorf("the error repeats what may be a key: %v", err)
		}
	}
}

// What a checkout may set without trust: ranking and packing apply; an endpoint, paths outside the
// workspace and limits above the defaults (or the user's own) are left out and named once.
func TestUntrustedCheckoutConfig(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	file := `budget: 3000
exclude: [gen/]
maxFileSize: 67000000
history: 100000
lexicon: /etc/passwd
mappings: [maps, ../../elsewhere]
embedding: {provider: openai, url: "http://127.0.0.1:18777/v1", model: m, apiKeyEnv: MY_SECRET}
`
	if err := os.WriteFile(filepath.Join(root, config.File), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Budget != 3000 || len(cfg.Exclude) != 1 || len(cfg.Mappings) != 1 || cfg.Mappings[0] != "maps" {
		t.Errorf("the checkout's ranking and packing settings were not kept: %+v", cfg)
	}
	if cfg.Embedding != (Embedding{}) || cfg.MaxFileSize != 0 || cfg.History != 0 || cfg.Lexicon != "" {
		t.Errorf("untrusted settings applied: %+v", cfg)
	}
	if len(cfg.Ignored) != 1 {
		t.Fatalf("want one note, got %q", cfg.Ignored)
	}
	for _, key := range []string{"embedding", "maxFileSize", "history", "lexicon", "mappings", "ctxmap trust"} {
		if !strings.Contains(cfg.Ignored[0], key) {
			t.Errorf("the note does not name %s: %s", key, cfg.Ignored[0])
		}
	}
	if strings.Contains(cfg.Ignored[0], "MY_SECRET") || strings.Contains(cfg.Ignored[0], "18777") {
		t.Errorf("the note repeats the checkout's values: %s", cfg.Ignored[0])
	}

	// the user's own limit is the checkout's ceiling
	os.MkdirAll(filepath.Join(home, "ctxmap"), 0o700)
	os.WriteFile(filepath.Join(home, "ctxmap", "config.yaml"), []byte("maxFileSize: 100000000\nbudget: 9000\n"), 0o600)
	if cfg, err = LoadConfig(root); err != nil || cfg.MaxFileSize != 67000000 || cfg.Budget != 3000 {
		t.Errorf("under a user's limit of 100 MB: %+v, %v", cfg, err)
	}

	if _, err := Trust(root, false); err != nil {
		t.Fatal(err)
	}
	if cfg, err = LoadConfig(root); err != nil || cfg.Embedding.URL == "" || cfg.Lexicon != "/etc/passwd" || len(cfg.Ignored) != 0 {
		t.Errorf("trusted: %+v, %v", cfg, err)
	}
	if _, err := Trust(root, true); err != nil {
		t.Fatal(err)
	}
	if cfg, err = LoadConfig(root); err != nil || cfg.Embedding.URL != "" {
		t.Errorf("revoked: %+v, %v", cfg, err)
	}
}

// A warning said over and over is logged once, then with its count at powers of ten, and gathered
// once with its count.
func TestRepeatedWarningSaidOnce(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, sample)
	var logged []string
	ix, err := Open(t.Context(), Options{Root: root, InMemory: true, Logf: func(format string, args ...any) {
		logged = append(logged, fmt.Sprintf(format, args...))
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Warnings()
	logged = nil
	for range 20000 {
		ix.warn("vectors: %s", "the store cannot be opened")
	}
	ix.warn("another")
	want := []string{"vectors: the store cannot be opened", "vectors: the store cannot be opened (said 10 times)",
		"vectors: the store cannot be opened (said 100 times)", "vectors: the store cannot be opened (said 1000 times)",
		"vectors: the store cannot be opened (said 10000 times)", "another"}
	if !slices.Equal(logged, want) {
		t.Errorf("logged %q, want %q", logged, want)
	}
	if got := ix.Warnings(); !slices.Equal(got, []string{"vectors: the store cannot be opened (20000 times)", "another"}) {
		t.Errorf("Warnings() = %q", got)
	}
}

// A checkout comes with its own .git/config and .gitattributes: the programs they name are started by
// none of index, export and import, whatever git is asked for on the way.
func TestCheckoutsGitRunsNothing(t *testing.T) {
	ctx := context.Background()
	// hostile sets every program a checkout can name for the commands these run, and leaves a file of
	// the index's size with another time, which git reads through its filter
	hostile := func(t *testing.T, root string) (marker string) {
		program, marker := filetest.Trap(t, "program")
		if err := os.WriteFile(filepath.Join(root, ".git", "info", "attributes"), []byte("* filter=evil diff=evil\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		hooks := filepath.Join(root, ".git", "hooks")
		for _, hook := range []string{"post-index-change", "reference-transaction", "post-checkout"} {
			if err := os.Symlink(program, filepath.Join(hooks, hook)); err != nil {
				t.Fatal(err)
			}
		}
		for _, kv := range [][2]string{{"core.fsmonitor", program}, {"filter.evil.clean", program},
			{"filter.evil.process", program}, {"diff.evil.textconv", program}, {"diff.external", program}} {
			filetest.Git(t, root, "config", kv[0], kv[1])
		}
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(root, "rule", "rule.go"), later, later); err != nil {
			t.Fatal(err)
		}
		return marker
	}

	t.Run("export", func(t *testing.T) {
		root := sampleRepo(t)
		marker := hostile(t, root)
		// the work tree is clean: with its filter off, git finds the file as committed
		_, err := Export(ctx, Options{Root: root, CacheDir: t.TempDir(), Config: &withoutVectors}, filepath.Join(t.TempDir(), "index.tar"))
		if err != nil {
			t.Error(err)
		}
		filetest.Sprung(t, marker)
	})
	t.Run("import", func(t *testing.T) {
		origin, exported := committed(t, t.TempDir())
		clone := filepath.Join(t.TempDir(), "clone")
		filetest.Git(t, origin, "clone", "-q", origin, clone)
		marker := hostile(t, clone)
		if _, err := Import(ctx, Options{Root: clone, CacheDir: t.TempDir(), Config: &withoutVectors}, exported); err != nil {
			t.Error(err)
		}
		filetest.Sprung(t, marker)
	})
	t.Run("a partial clone's missing tree", func(t *testing.T) {
		root := sampleRepo(t)
		writeFiles(t, root, map[string]string{"rule/retire.go": "package rule\n\n// Retire marks a rule as retired.\nfunc Retire() {}\n"})
		filetest.Git(t, root, "add", ".")
		filetest.Git(t, root, "commit", "-q", "-m", "Retire rules")
		tree := filetest.Git(t, root, "rev-parse", "HEAD~1:rule")
		if err := os.Remove(filepath.Join(root, ".git", "objects", tree[:2], tree[2:])); err != nil {
			t.Fatal(err)
		}
		program, marker := filetest.Trap(t, "upload-pack")
		for _, kv := range [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.partialClone", "origin"},
			{"remote.origin.promisor", "true"}, {"remote.origin.url", t.TempDir()}, {"remote.origin.uploadpack", program},
			{"protocol.file.allow", "always"}} {
			filetest.Git(t, root, "config", kv[0], kv[1])
		}
		ix := mustOpen(t, Options{Root: root, InMemory: true})
		defer ix.Close()
		mustBuild(t, ix)
		filetest.Sprung(t, marker)
	})
}

// A file that changed with the likeliest one in the history is added to the pack as its companion;
// one the index keeps without its parse (here a minified build, as axios commits dist/ with lib/) is
// left out, not shown (it made every axios question panic).
func TestCompanionWithoutParseIsLeftOut(t *testing.T) {
	root := t.TempDir()
	minified := "var a=" + strings.Repeat("function(r){return r.headers&&r.redirect},", 60) + "0;\n"
	for i := range 3 {
		writeFiles(t, root, map[string]string{
			"lib/redirect.js": fmt.Sprintf("// follow keeps the request headers when a redirect is followed (%d).\n"+
				"function follow(request, headers) {\n  request.headers = headers;\n  return request;\n}\nmodule.exports = follow;\n", i),
			"dist/app.js": fmt.Sprintf("%s// build %d\n", minified, i),
		})
		if i == 0 {
			filetest.Git(t, root, "init", "-q")
		}
		filetest.Git(t, root, "add", ".")
		filetest.Git(t, root, "commit", "-q", "-m", fmt.Sprintf("Release %d: redirect headers", i))
	}
	var logged []string
	ix := mustOpen(t, Options{Root: root, InMemory: true, Logf: func(format string, args ...any) {
		logged = append(logged, fmt.Sprintf(format, args...))
	}})
	defer ix.Close()
	mustBuild(t, ix)
	if rec := ix.Snapshot().Record("dist/app.js"); rec == nil || rec.Skip != "minified" {
		t.Fatalf("dist/app.js is not kept as a minified file: %+v", rec)
	}
	res, err := ask(context.Background(), ix, Request{Text: "headers are lost on redirect"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Pack.Items {
		if it.Path == "dist/app.js" {
			t.Errorf("the minified companion is in the pack: %+v", it)
		}
	}
	if len(res.Pack.Items) == 0 || res.Pack.Items[0].Path != "lib/redirect.js" {
		t.Errorf("the pack does not open with lib/redirect.js: %+v", res.Pack.Items)
	}
	t.Logf("log: %q", logged)
}

// What the user's own configuration excludes stays out whatever the checkout's .ctxmap.yaml
// re-includes; the checkout's own exclusions still hold.
func TestUsersExclusionsWin(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	writeFiles(t, home, map[string]string{"ctxmap/" + config.UserFile: "exclude: [\"secrets/\"]\n"})
	writeFiles(t, root, map[string]string{
		config.File:          "exclude: [\"!secrets/\", \"!secrets/**\", \"gen/\"]\n",
		"secrets/stripe.txt": "STRIPE_KEY=sk_live_1234\n",
		"gen/types.go":       "package gen\n",
		"pay/pay.go":         "package pay\n\n// Charge reads STRIPE_KEY.\nfunc Charge() {}\n",
	})
	cfg, err := LoadConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	ix := mustOpen(t, Options{Root: root, InMemory: true, Config: &cfg})
	defer ix.Close()
	mustBuild(t, ix)
	if got := ix.Snapshot().Paths; !slices.Equal(got, []string{config.File, "pay/pay.go"}) {
		t.Errorf("indexed %q, want the configuration and pay/pay.go", got)
	}
}
