package index

// Exchanging an index: an export written for a commit, an import of one.

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// Export brings the index of opts.Root up to date, vectors included, and writes it to dst. The work
// tree must be a git checkout without changes to tracked files: the export is keyed by its commit.
// It returns the export's ID.
func Export(ctx context.Context, opts Options, dst string) (string, error) {
	root, err := rootOnDisk(opts, "export: an index kept in memory has nothing to export")
	if err != nil {
		return "", err
	}
	commit, err := cleanCommit(ctx, root)
	if err != nil {
		return "", err
	}
	ix, err := Open(ctx, opts)
	if err != nil {
		return "", err
	}
	if ix.cache == "" {
		ix.Close()
		return "", fmt.Errorf("export: the cache is not available: %s", strings.Join(ix.Warnings(), "; "))
	}
	if _, err := ix.Build(ctx, nil); err != nil {
		ix.Close()
		return "", err
	}
	ix.WaitVectors()
	// the stores are closed so that their files are complete, the cache kept locked while they are read
	lock := ix.lock
	ix.lock = nil
	defer lock.Release()
	if err := ix.Close(); err != nil {
		return "", err
	}
	return store.WriteExport(ctx, ix.cache, dst, commit)
}

// Import replaces the index of opts.Root by the export in src (see store.Import); an export that
// cannot be imported is an error wrapping store.ErrExport, and the index there before stays as it was.
func Import(ctx context.Context, opts Options, src string) (string, error) {
	root, err := rootOnDisk(opts, "import: an index kept in memory cannot be imported into")
	if err != nil {
		return "", err
	}
	commit := history.Head(ctx, root)
	if commit == "" {
		return "", fmt.Errorf("import: %s is not a git checkout: an export is keyed by its commit", root)
	}
	cache, err := cacheFolder(opts, root)
	if err != nil {
		return "", err
	}
	if walk.Inside(root, cache) {
		return "", fmt.Errorf("cache folder %s is inside the workspace %s", cache, root)
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return store.Import(ctx, cache, root, src, commit, logf)
}

// cleanCommit is the commit HEAD of root, refused when tracked files differ from it.
func cleanCommit(ctx context.Context, root string) (string, error) {
	commit := history.Head(ctx, root)
	if commit == "" {
		return "", fmt.Errorf("export: %s is not a git checkout: an export is keyed by its commit", root)
	}
	out, err := history.Output(ctx, root, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if strings.TrimSpace(out) != "" {
		return "", fmt.Errorf("export: %s has changes not in commit %s; export a clean checkout", root, commit[:min(12, len(commit))])
	}
	return commit, nil
}
