package index

import (
	"github.com/ctxmap/ctxmap/internal/config"
	"github.com/ctxmap/ctxmap/internal/mapping"
)

// Config is what a workspace can set in .ctxmap.yaml at its root (and editors in their initialization
// options); zero values mean the defaults (see internal/config).
type Config = config.Config

// Embedding names the model that embeds chunks and queries: GloVe, offline, or an OpenAI-compatible
// endpoint (see embed.Config).
type Embedding = config.Embedding

// LoadConfig is the configuration of the workspace at root: the user's own (config.UserConfigDir's
// config.yaml), then the workspace's .ctxmap.yaml over it; what reaches outside the workspace applies
// only when the user trusts the folder (Trust), and what was left out is in Ignored (see config.Load).
func LoadConfig(root string) (Config, error) { return config.Load(root) }

// Trusted says whether the user trusts the workspace at root: its .ctxmap.yaml may then reach outside it.
func Trusted(root string) bool { return config.Trusted(root) }

// Trust records that the user trusts the folder (or, with revoke, no longer does), by its real path,
// and returns that path.
func Trust(folder string, revoke bool) (string, error) { return config.Trust(folder, revoke) }

// LoadMappings reads the mapping files of the folders under root (the configuration's Mappings; none:
// the default folders), with the problems found reading them.
func LoadMappings(root string, folders []string) ([]mapping.Entry, []mapping.Problem) {
	return mapping.Load(root, folders)
}

// ValidateMappings checks the mapping files of the folders under root: each problem as file:line.
func ValidateMappings(root string, folders []string) []mapping.Problem {
	return mapping.Validate(root, folders)
}
