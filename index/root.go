package index

// The workspace root and the paths inside it.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxmap/ctxmap/internal/config"
	"github.com/ctxmap/ctxmap/internal/parse"
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

// rootOnDisk is the workspace root of opts for work on its cache folder's files, which an index kept in
// memory does not have: it is refused with the error refusal.
func rootOnDisk(opts Options, refusal string) (string, error) {
	if opts.InMemory {
		return "", errors.New(refusal)
	}
	return workspaceRoot(opts.Root)
}

// FindRoot is the workspace a folder is in, as every front end finds it: the nearest folder at or above
// dir (made absolute, its links followed) that holds .ctxmap.yaml or .git, so that a command run in a
// subfolder of a repository serves the whole repository; dir itself when no folder above it holds either.
// A dir that is not a folder is an error.
func FindRoot(dir string) (string, error) {
	abs, err := workspaceRoot(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a folder", dir)
	}
	for d := abs; ; d = filepath.Dir(d) {
		for _, marker := range []string{config.File, ".git"} {
			if _, err := os.Lstat(filepath.Join(d, marker)); err == nil {
				return d, nil
			}
		}
		if filepath.Dir(d) == d {
			return abs, nil
		}
	}
}

// Readable says whether root holds a file the index could read: a quick look that stops at the first
// file of a language ctxmap reads, skipping hidden folders. A folder without one is not worth a process
// that serves it.
func Readable(root string) bool {
	found := errors.New("found")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // an unreadable folder: look on
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !d.IsDir() && parse.LanguageOf(filepath.ToSlash(p)) != "":
			return found
		}
		return nil
	})
	return err == found
}
