package index

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/ctxmap/ctxmap/internal/mapping"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// Config is what a workspace can set in .ctxmap.yaml at its root (and editors in their initialization
// options); zero values mean the defaults.
type Config struct {
	Budget      int       `yaml:"budget" json:"budget,omitempty"`           // tokens per pack; default DefaultBudget
	Tokenizer   string    `yaml:"tokenizer" json:"tokenizer,omitempty"`     // o200k_base (default) or cl100k_base
	Format      string    `yaml:"format" json:"format,omitempty"`           // markdown (default), xml, json
	Exclude     []string  `yaml:"exclude" json:"exclude,omitempty"`         // gitignore-style patterns
	MaxFileSize int64     `yaml:"maxFileSize" json:"maxFileSize,omitempty"` // bytes; default 1 MiB
	Vendored    bool      `yaml:"vendored" json:"vendored,omitempty"`       // index vendored/dependency folders too
	History     int       `yaml:"history" json:"history,omitempty"`         // commits read from git log; default 5000, -1 none
	Vectors     *bool     `yaml:"vectors" json:"vectors,omitempty"`         // default true
	Lexicon     string    `yaml:"lexicon" json:"lexicon,omitempty"`         // project lexicon; default .ctxmap/lexicon.yaml
	Mappings    []string  `yaml:"mappings" json:"mappings,omitempty"`       // folders of mapping files; default mappings/
	Embedding   Embedding `yaml:"embedding" json:"embedding,omitzero"`      // the model that makes the vectors
	Ranker      string    `yaml:"ranker" json:"ranker,omitempty"`           // learned (default) or fusion
	Fill        bool      `yaml:"fill" json:"fill,omitempty"`               // fill the budget instead of stopping with the evidence
	// the command line starts a background process that serves later commands; default true
	Daemon *bool `yaml:"daemon" json:"daemon,omitempty"`
}

// Embedding names the model that embeds chunks and queries. The default, GloVe, is offline; "openai"
// sends the chunks to any OpenAI-compatible /embeddings endpoint.
type Embedding struct {
	Provider   string `yaml:"provider" json:"provider,omitempty"`     // glove (default) or openai
	URL        string `yaml:"url" json:"url,omitempty"`               // base URL; requests go to {url}/embeddings
	Model      string `yaml:"model" json:"model,omitempty"`           // the model's name at that endpoint
	APIKeyEnv  string `yaml:"apiKeyEnv" json:"apiKeyEnv,omitempty"`   // the environment variable holding the key, not the key
	Dimensions int    `yaml:"dimensions" json:"dimensions,omitempty"` // asked of the model when set
}

// ConfigFile is the workspace configuration's name at the root.
const ConfigFile = ".ctxmap.yaml"

// LoadConfig reads root/.ctxmap.yaml; a missing file is the defaults, a malformed one an error that
// names the line.
func LoadConfig(root string) (Config, error) {
	var c Config
	path := filepath.Join(root, ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Validate checks values a person may have mistyped.
func (c Config) Validate() error {
	if c.Budget != 0 && c.Budget < MinBudget {
		return fmt.Errorf("budget %d is below the minimum of %d tokens", c.Budget, MinBudget)
	}
	switch c.Tokenizer {
	case "", "o200k_base", "cl100k_base":
	default:
		return fmt.Errorf("tokenizer %q is not one of o200k_base, cl100k_base", c.Tokenizer)
	}
	switch c.Format {
	case "", "markdown", "xml", "json":
	default:
		return fmt.Errorf("format %q is not one of markdown, xml, json", c.Format)
	}
	if err := checkRanker(c.Ranker); err != nil {
		return err
	}
	if c.MaxFileSize < 0 {
		return fmt.Errorf("maxFileSize %d is negative", c.MaxFileSize)
	}
	return c.Embedding.validate()
}

// envName is what an environment variable's name looks like; a key pasted in its place does not.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (e Embedding) validate() error {
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
	if e.Dimensions < 0 {
		return fmt.Errorf("embedding.dimensions %d is negative", e.Dimensions)
	}
	return nil
}

// WalkOptions are the rules the index lists files by; a watcher follows the same.
func (c Config) WalkOptions() walk.Options {
	return walk.Options{MaxFileSize: c.MaxFileSize, Excludes: c.Exclude, Vendored: c.Vendored}
}

func (c Config) vectors() bool { return c.Vectors == nil || *c.Vectors }

func (c Config) historyLimit() int {
	if c.History == 0 {
		return 5000
	}
	return c.History
}

// LoadMappings reads the mapping files of the folders under root (the configuration's Mappings; none:
// the default folders), with the problems found reading them.
func LoadMappings(root string, folders []string) ([]mapping.Entry, []mapping.Problem) {
	return mapping.Load(root, folders)
}

// ValidateMappings checks the mapping files of the folders under root: each problem as file:line.
func ValidateMappings(root string, folders []string) []mapping.Problem {
	return mapping.Validate(root, folders)
}
