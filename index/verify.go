package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxmap/ctxmap/internal/lexical"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/internal/vector"
)

// Verify reads every file of the cache of opts.Root whole and checks it, more than an open does (which
// reads the records and the vectors only when they are used, and trusts segments it checked before):
// the state file's every section, the lexical index's every segment and its bolt file, the vector
// file, the vectors' and an import's markers. Each damaged one is moved to the cache's damaged/ folder
// (a marker removed), so that the next open rebuilds what it held, and said in what it returns, one
// sentence each; nil when nothing is damaged. The cache must not be in use.
func Verify(ctx context.Context, opts Options) ([]string, error) {
	if opts.InMemory {
		return nil, errors.New("verify: an index kept in memory has no cache to verify")
	}
	root, err := workspaceRoot(opts.Root)
	if err != nil {
		return nil, err
	}
	cache := opts.CacheDir
	if cache == "" {
		if cache, err = DefaultCacheDir(root); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(cache); errors.Is(err, os.ErrNotExist) {
		return nil, nil // nothing cached yet
	}
	lock, err := store.TakeLock(cache)
	if errors.Is(err, store.ErrBusy) {
		return nil, fmt.Errorf("verify: the cache %s is in use by another ctxmap process (an editor?); close it and verify again", cache)
	} else if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer lock.Release()
	var said []string
	damaged := func(what string, err error, path string) {
		said = append(said, fmt.Sprintf("cache file %s is damaged: %v; %s, rebuilt at the next start", what, err, store.MoveAside(cache, path)))
	}
	gen, err := store.VerifyState(cache)
	var bad store.DamagedError
	if errors.As(err, &bad) {
		path := store.StatePath(cache)
		if strings.Contains(err.Error(), store.FreshPath(cache)) {
			path = store.FreshPath(cache)
		}
		said = append(said, fmt.Sprintf("%v; %s, rebuilt at the next start", err, store.MoveAside(cache, path)))
	} else if err != nil {
		// another version's state is not damage: the next start rebuilds it, and the markers that name
		// its generation say nothing
		said = append(said, fmt.Sprintf("%v; rebuilt at the next start", err))
	}
	stateRead := err == nil
	if err := ctx.Err(); err != nil {
		return said, err
	}
	lexDir := filepath.Join(cache, "lexical.bleve")
	if err := lexical.Verify(lexDir); err != nil {
		var d *lexical.DamagedError
		if !errors.As(err, &d) {
			return said, fmt.Errorf("verify: %w", err)
		}
		damaged(d.File, d.Err, lexDir)
	}
	if err := ctx.Err(); err != nil {
		return said, err
	}
	vecDir := filepath.Join(cache, "vectors")
	genFile := filepath.Join(cache, "vectors.gen")
	model, err := vector.Verify(vecDir)
	if errors.Is(err, vector.ErrCorrupt) {
		damaged(filepath.Join(vecDir, "vectors.bin"), err, vecDir)
		os.Remove(genFile) // the vectors are no longer complete
	} else if err != nil {
		return said, fmt.Errorf("verify: %w", err)
	}
	// the marker is "generation model/dimensions", written once the vectors of that generation, of the
	// model the vector file names, are all in
	want := fmt.Sprintf("%d %s", gen, model)
	if b, err := os.ReadFile(genFile); err == nil && stateRead && (model != "" && string(b) != want || !strings.HasPrefix(string(b), want)) {
		os.Remove(genFile)
		said = append(said, fmt.Sprintf("cache file %s is damaged: %q, where the state and the vectors say %q; removed, the vectors are checked at the next start",
			genFile, b, want))
	}
	return said, nil
}
