package index

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if err := os.WriteFile(filepath.Join(root, configFile), []byte(yaml), 0o644); err != nil {
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
	if err := os.WriteFile(filepath.Join(root, configFile), []byte("embedding:\n  provider: openai\n  modle: x\n"), 0o644); err != nil {
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
		{with(func(e *Embedding) { e.Dimensions = -1 }), "embedding.dimensions -1 is negative"},
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
