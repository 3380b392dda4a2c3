package index

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ctxmap/ctxmap/internal/store"
)

// Verify reads every file of the cache of opts.Root whole and checks it, more than an open does (which
// reads the records and the vectors only when they are used, and trusts segments it checked before):
// the state file's every section, the lexical index's every segment and its bolt file, the vector
// file, the vectors' and an import's markers. Each damaged one is moved to the cache's damaged/ folder
// (a marker removed), so that the next open rebuilds what it held, and said in what it returns, one
// sentence each; nil when nothing is damaged. The cache must not be in use.
func Verify(ctx context.Context, opts Options) ([]string, error) {
	root, err := rootOnDisk(opts, "verify: an index kept in memory has no cache to verify")
	if err != nil {
		return nil, err
	}
	cache, err := cacheFolder(opts, root)
	if err != nil {
		return nil, err
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
	return store.VerifyCache(ctx, cache)
}
