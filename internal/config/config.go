// Package config is a workspace's configuration: what .ctxmap.yaml at its root sets, over the user's
// own configuration, and what a checkout may set for itself and what only its user may (a folder the
// user trusts).
package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/rank"
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
	Tight       bool      `yaml:"tight" json:"tight,omitempty"`             // stop with the evidence: a short pack of at most five files
	// the command line starts a background process that serves later commands; default true
	Daemon *bool `yaml:"daemon" json:"daemon,omitempty"`

	// what the workspace's file set and was left out, with why: said once when the index opens
	Ignored []string `yaml:"-" json:"-"`
}

// Embedding names the model that embeds chunks and queries: GloVe, offline, or an OpenAI-compatible
// endpoint (see embed.Config).
type Embedding = embed.Config

// File is the workspace configuration's name at the root.
const File = ".ctxmap.yaml"

// Load is the configuration of the workspace at root: the user's own (UserConfigDir's
// config.yaml), then the workspace's .ctxmap.yaml over it. Of the workspace's file, what reaches
// outside it applies only when the user trusts the folder (Trust); what was left out is in Ignored. A
// missing file is the defaults, a malformed one an error that names the line.
func Load(root string) (Config, error) {
	user, err := loadUserConfig()
	if err != nil {
		return user, err
	}
	var ws Config
	path := filepath.Join(root, File)
	found, err := readConfigFile(path, &ws)
	if err != nil || !found {
		return user, err
	}
	if err := ws.Validate(); err != nil {
		return ws, fmt.Errorf("%s: %w", path, err)
	}
	var ignored []string
	if !Trusted(root) {
		ignored = untrusted(&ws, user)
	}
	c := over(user, ws)
	if len(ignored) > 0 {
		c.Ignored = []string{fmt.Sprintf("%s: ignored %s: the folder is not trusted; run `ctxmap trust -C %s` to apply them, or set them in %s",
			path, strings.Join(ignored, ", "), root, userConfigPath())}
	}
	return c, nil
}

// userConfigPath names the user's configuration file for a message.
func userConfigPath() string {
	dir, err := UserConfigDir()
	if err != nil {
		return "~/.config/ctxmap/" + UserFile
	}
	return filepath.Join(dir, UserFile)
}

// Validate checks values a person may have mistyped.
func (c Config) Validate() error {
	if c.Budget != 0 && c.Budget < MinBudget {
		return fmt.Errorf("budget %d is below the minimum of %d tokens", c.Budget, MinBudget)
	}
	switch c.Tokenizer {
	case "", "o200k_base", "cl100k_base":
	default:
		return fmt.Errorf("tokenizer %s is not one of o200k_base, cl100k_base", Quote(c.Tokenizer))
	}
	switch c.Format {
	case "", "markdown", "xml", "json":
	default:
		return fmt.Errorf("format %s is not one of markdown, xml, json", Quote(c.Format))
	}
	if err := CheckRanker(c.Ranker); err != nil {
		return err
	}
	if c.MaxFileSize < 0 {
		return fmt.Errorf("maxFileSize %d is negative", c.MaxFileSize)
	}
	return c.Embedding.Validate()
}

// WalkOptions are the rules the index lists files by; a watcher follows the same.
func (c Config) WalkOptions() walk.Options {
	return walk.Options{MaxFileSize: c.MaxFileSize, Excludes: c.Exclude, Vendored: c.Vendored}
}

// VectorsOn says whether chunks are embedded (Vectors unset: yes).
func (c Config) VectorsOn() bool { return c.Vectors == nil || *c.Vectors }

// HistoryLimit is how many commits git's log is read for.
func (c Config) HistoryLimit() int {
	if c.History == 0 {
		return 5000
	}
	return c.History
}

// FileSizeLimit is the size past which a file is skipped.
func (c Config) FileSizeLimit() int64 {
	if c.MaxFileSize > 0 {
		return c.MaxFileSize
	}
	return 1 << 20
}

// The rankers a request or the configuration may name.
const (
	RankerLearned = rank.Learned
	RankerFusion  = rank.Fusion
)

// MinBudget is the smallest pack that holds anything.
const MinBudget = pack.MinBudget

// CheckRanker says what is wrong with a ranker's name: one that is none of RankerLearned, RankerFusion.
func CheckRanker(name string) error {
	switch name {
	case "", RankerLearned, RankerFusion:
		return nil
	}
	return fmt.Errorf("ranker %s is not one of learned, fusion", Quote(name))
}

// maxQuoted is the most of a value an error quotes: a name of a megabyte is not said back whole.
const maxQuoted = 200

// Quote is s quoted for an error, at most its first maxQuoted bytes, with its length when cut.
func Quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	end := maxQuoted
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return strconv.Quote(s[:end]) + fmt.Sprintf("... (%d bytes)", len(s))
}
