package config

// What a checkout may ask for itself, and what only its user may: a workspace's .ctxmap.yaml sets
// ranking and packing, while anything that reaches outside the workspace (a network endpoint, an
// environment variable's name, a path outside it, a limit above the defaults) comes from the user's own
// configuration, the editor's settings, a flag, or a folder the user trusts (`ctxmap trust`).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ctxmap/ctxmap/internal/walk"
)

// Limits a checkout may not raise unless its folder is trusted.
const (
	DefaultMaxFileSize = walk.DefaultMaxFileSize
	defaultHistory     = 5000
)

// maxConfigFile caps the size of a configuration file read.
const maxConfigFile = 1 << 20

// UserConfigDir is the folder of the user's own ctxmap configuration: $XDG_CONFIG_HOME/ctxmap, else
// ~/.config/ctxmap.
func UserConfigDir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "ctxmap"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("the user's configuration folder: %w", err)
	}
	return filepath.Join(home, ".config", "ctxmap"), nil
}

// UserFile and trustFile are the names of the user's configuration and of the list of trusted
// folders, in UserConfigDir.
const (
	UserFile  = "config.yaml"
	trustFile = "trusted-folders"
)

// readConfigFile decodes the YAML configuration at path into c over what c holds; a missing file
// changes nothing.
func readConfigFile(path string, c *Config) (found bool, err error) {
	data, err := walk.ReadRegular(path, maxConfigFile)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return true, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// loadUserConfig reads the user's own configuration; none is the defaults.
func loadUserConfig() (Config, error) {
	var c Config
	dir, err := UserConfigDir()
	if err != nil {
		return c, nil // no home: no user configuration
	}
	path := filepath.Join(dir, UserFile)
	if _, err := readConfigFile(path, &c); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// realFolder is a folder's absolute path with every symlink resolved: what trust is keyed by.
func realFolder(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// trustedFolders are the real paths the user trusts, a line each.
func trustedFolders() ([]string, error) {
	dir, err := UserConfigDir()
	if err != nil {
		return nil, nil
	}
	data, err := walk.ReadRegular(filepath.Join(dir, trustFile), maxConfigFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the trusted folders: %w", err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// Trusted says whether the user trusts the workspace at root: its real path is in the list.
func Trusted(root string) bool {
	real, err := realFolder(root)
	if err != nil {
		return false
	}
	list, _ := trustedFolders()
	return slices.Contains(list, real)
}

// Trust records that the user trusts the folder (or, with revoke, no longer does), by its real path,
// and returns that path.
func Trust(folder string, revoke bool) (string, error) {
	real, err := realFolder(folder)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w", folder, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("trust %s: not a folder", folder)
	}
	if strings.Contains(real, "\n") {
		return "", fmt.Errorf("trust %q: a folder whose path holds a line break cannot be trusted", real)
	}
	dir, err := UserConfigDir()
	if err != nil {
		return "", err
	}
	list, err := trustedFolders()
	if err != nil {
		return "", err
	}
	list = slices.DeleteFunc(list, func(p string) bool { return p == real })
	if !revoke {
		list = append(list, real)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	var b strings.Builder
	for _, p := range list {
		b.WriteString(p + "\n")
	}
	tmp, err := os.CreateTemp(dir, trustFile+".*")
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	_, werr := tmp.WriteString(b.String())
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(dir, trustFile))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("trust: %w", werr)
	}
	return real, nil
}

// untrusted takes out of a checkout's configuration what it may not set without trust, measured
// against the user's own configuration, and says what was left out and why.
func untrusted(ws *Config, user Config) []string {
	var ignored []string
	if ws.Embedding != (Embedding{}) && ws.Embedding.Provider != "glove" {
		ignored = append(ignored, "embedding (a network endpoint and a credential's name are the user's to give)")
		ws.Embedding = Embedding{}
	}
	if limit := max(user.MaxFileSize, DefaultMaxFileSize); ws.MaxFileSize > limit {
		ignored = append(ignored, fmt.Sprintf("maxFileSize %d (above %d)", ws.MaxFileSize, limit))
		ws.MaxFileSize = 0
	}
	if limit := max(user.HistoryLimit(), defaultHistory); ws.History > limit {
		ignored = append(ignored, fmt.Sprintf("history %d (above %d)", ws.History, limit))
		ws.History = 0
	}
	if ws.Lexicon != "" && !insideRoot(ws.Lexicon) {
		ignored = append(ignored, "lexicon (a path outside the workspace)")
		ws.Lexicon = ""
	}
	kept := ws.Mappings[:0:0]
	for _, m := range ws.Mappings {
		if insideRoot(m) {
			kept = append(kept, m)
		} else {
			ignored = append(ignored, "mappings folder (a path outside the workspace)")
		}
	}
	if len(kept) != len(ws.Mappings) {
		ws.Mappings = kept
	}
	return ignored
}

// insideRoot says whether a path from the configuration names something inside the workspace: relative
// and never above it. Symlinks are checked where the file is read.
func insideRoot(p string) bool {
	return p != "" && !filepath.IsAbs(p) && filepath.IsLocal(filepath.Clean(p))
}

// over lays what the workspace set over the user's configuration.
func over(user, ws Config) Config {
	c := user
	setIf(&c.Budget, ws.Budget)
	setIf(&c.Tokenizer, ws.Tokenizer)
	setIf(&c.Format, ws.Format)
	if ws.Exclude != nil {
		// the user's last: the last pattern that matches decides, so a checkout's "!secrets/" cannot
		// take back what the user excluded
		c.Exclude = append(slices.Clone(ws.Exclude), user.Exclude...)
	}
	setIf(&c.MaxFileSize, ws.MaxFileSize)
	c.Vendored = c.Vendored || ws.Vendored
	setIf(&c.History, ws.History)
	if ws.Vectors != nil {
		c.Vectors = ws.Vectors
	}
	setIf(&c.Lexicon, ws.Lexicon)
	if ws.Mappings != nil {
		c.Mappings = ws.Mappings
	}
	if ws.Embedding != (Embedding{}) {
		c.Embedding = ws.Embedding
	}
	setIf(&c.Ranker, ws.Ranker)
	c.Fill = c.Fill || ws.Fill
	if ws.Daemon != nil {
		c.Daemon = ws.Daemon
	}
	return c
}

func setIf[T comparable](to *T, v T) {
	var zero T
	if v != zero {
		*to = v
	}
}
