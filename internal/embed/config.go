package embed

// The embedder a workspace configures (the embedding block of its .ctxmap.yaml): checked, then made.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
)

// Config names the model that embeds chunks and queries. The default, GloVe, is offline; "openai"
// sends the chunks to any OpenAI-compatible /embeddings endpoint.
type Config struct {
	Provider   string `yaml:"provider" json:"provider,omitempty"`     // glove (default) or openai
	URL        string `yaml:"url" json:"url,omitempty"`               // base URL; requests go to {url}/embeddings
	Model      string `yaml:"model" json:"model,omitempty"`           // the model's name at that endpoint
	APIKeyEnv  string `yaml:"apiKeyEnv" json:"apiKeyEnv,omitempty"`   // the environment variable holding the key, not the key
	Dimensions int    `yaml:"dimensions" json:"dimensions,omitempty"` // asked of the model when set
}

// envName is what an environment variable's name looks like; a key pasted in its place does not.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Validate checks values a person may have mistyped; each error names the key of the configuration
// file (embedding.url) and never repeats what may be a key.
func (e Config) Validate() error {
	switch e.Provider {
	case "", "glove":
		for _, f := range []struct {
			name string
			set  bool
		}{{"url", e.URL != ""}, {"model", e.Model != ""}, {"apiKeyEnv", e.APIKeyEnv != ""}, {"dimensions", e.Dimensions != 0}} {
			if f.set {
				return fmt.Errorf("embedding.%s is set but the provider is glove, which takes no settings; add provider: openai to use an endpoint", f.name)
			}
		}
		return nil
	case "openai":
	default:
		return fmt.Errorf("embedding.provider %q is not one of glove, openai", e.Provider)
	}
	if e.URL == "" {
		return errors.New("embedding.url is required for the openai provider: the base URL of the endpoint, e.g. http://localhost:11434/v1 for Ollama")
	}
	if u, err := url.Parse(e.URL); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("embedding.url %q is not an http:// or https:// URL", e.URL)
	} else if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("embedding.url %q has a query or fragment; give the base URL (requests go to {url}/embeddings)", e.URL)
	}
	if e.Model == "" {
		return errors.New("embedding.model is required for the openai provider: the model's name at the endpoint, e.g. nomic-embed-text")
	}
	if e.APIKeyEnv != "" && !envName.MatchString(e.APIKeyEnv) {
		// not quoted: it may be the key itself
		return errors.New("embedding.apiKeyEnv must be the name of an environment variable that holds the key (like OPENAI_API_KEY), not the key")
	}
	if e.Dimensions < 0 || e.Dimensions > MaxDimensions {
		return fmt.Errorf("embedding.dimensions %d is not between 1 and %d", e.Dimensions, MaxDimensions)
	}
	return nil
}

// New makes the configured embedder: the offline GloVe model unless a provider is named. A remote
// model without configured dimensions is asked for one embedding here, so a server that is down or a
// refused key shows when the index opens.
func New(ctx context.Context, c Config) (Embedder, error) {
	if c.Provider != "openai" {
		return Default(), nil
	}
	var key string
	if c.APIKeyEnv != "" {
		if key = os.Getenv(c.APIKeyEnv); key == "" {
			return nil, fmt.Errorf("embedding.apiKeyEnv names %s, which is not set (or empty) in the environment ctxmap runs in", c.APIKeyEnv)
		}
	}
	e, err := NewOpenAI(ctx, OpenAIConfig{URL: c.URL, Model: c.Model, APIKey: key, Dimensions: c.Dimensions})
	if err != nil {
		check := fmt.Sprintf("check that the server at %s runs and serves the model %q", c.URL, c.Model)
		if c.APIKeyEnv != "" {
			check += fmt.Sprintf(" and that $%s holds a valid key", c.APIKeyEnv)
		}
		return nil, fmt.Errorf("the embedding model %q cannot be used: %w; %s", c.Model, err, check)
	}
	return e, nil
}
