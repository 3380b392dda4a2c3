package index

// The workspace root and the paths inside it.

import (
	"fmt"
	"path/filepath"
	"strings"
)

// RelPath turns an absolute path into a workspace-relative one; ok is false outside the workspace.
func (ix *Index) RelPath(abs string) (string, bool) {
	abs = resolve(abs)
	if !inside(ix.root, abs) {
		return "", false
	}
	rel, err := filepath.Rel(ix.root, abs)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolve follows the symlinks of a path; for a path that does not exist (deleted, not yet saved), those
// of its deepest existing folder, so a link to a folder outside cannot smuggle in a file that is not there
// yet either.
func resolve(abs string) string {
	abs = filepath.Clean(abs)
	tail := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, tail)
		}
		if filepath.Dir(dir) == dir {
			return abs
		}
		tail = filepath.Join(filepath.Base(dir), tail)
	}
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// workspaceRoot is root as Open resolves it.
func workspaceRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}
