package walk

// The workspace's root, and the paths inside it.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Resolve follows the symlinks of a path; for a path that does not exist (deleted, not yet saved), those
// of its deepest existing folder, so a link to a folder outside cannot smuggle in a file that is not there
// yet either.
func Resolve(abs string) string {
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

// Inside says whether the path p is root or under it.
func Inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Root is the folder root made absolute, its links followed, as the index opens it.
func Root(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs, nil
}

// FindRoot is the workspace a folder is in: the nearest folder at or above dir (made absolute, its links
// followed) that holds one of markers; dir itself when none does. A dir that is not a folder is an error.
func FindRoot(dir string, markers ...string) (string, error) {
	abs, err := Root(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	} else if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a folder", dir)
	}
	for d := abs; ; d = filepath.Dir(d) {
		for _, marker := range markers {
			if _, err := os.Lstat(filepath.Join(d, marker)); err == nil {
				return d, nil
			}
		}
		if filepath.Dir(d) == d {
			return abs, nil
		}
	}
}

// Readable says whether root holds a file reads accepts: a quick look that stops at the first, skipping
// hidden folders.
func Readable(root string, reads func(path string) bool) bool {
	found := errors.New("found")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // an unreadable folder: look on
		case d.IsDir() && p != root && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !d.IsDir() && reads(filepath.ToSlash(p)):
			return found
		}
		return nil
	})
	return err == found
}
