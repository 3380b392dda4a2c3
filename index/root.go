package index

// The workspace root and the paths inside it.

import (
	"errors"
	"path/filepath"

	"github.com/ctxmap/ctxmap/internal/config"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// RelPath turns an absolute path into a workspace-relative one; ok is false outside the workspace.
func (ix *Index) RelPath(abs string) (string, bool) {
	abs = walk.Resolve(abs)
	if !walk.Inside(ix.root, abs) {
		return "", false
	}
	rel, err := filepath.Rel(ix.root, abs)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// rootOnDisk is the workspace root of opts for work on its cache folder's files, which an index kept in
// memory does not have: it is refused with the error refusal.
func rootOnDisk(opts Options, refusal string) (string, error) {
	if opts.InMemory {
		return "", errors.New(refusal)
	}
	return walk.Root(opts.Root)
}

// FindRoot is the workspace a folder is in, as every front end finds it: the nearest folder at or above
// dir (made absolute, its links followed) that holds .ctxmap.yaml or .git, so that a command run in a
// subfolder of a repository serves the whole repository; dir itself when no folder above it holds either.
// A dir that is not a folder is an error.
func FindRoot(dir string) (string, error) { return walk.FindRoot(dir, config.File, ".git") }

// Readable says whether root holds a file the index could read: a quick look that stops at the first
// file of a language ctxmap reads, skipping hidden folders. A folder without one is not worth a process
// that serves it.
func Readable(root string) bool {
	return walk.Readable(root, func(p string) bool { return parse.LanguageOf(p) != "" })
}
