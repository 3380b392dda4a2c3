package index

// The cache folder of a workspace and the locks a process takes in it.

import "github.com/ctxmap/ctxmap/internal/store"

// DefaultCacheDir is $XDG_CACHE_HOME/ctxmap/<name>-<hash of the root>, outside the workspace.
func DefaultCacheDir(root string) (string, error) { return store.DefaultDir(root) }

// cacheFolder is the cache folder of the index of root that opts open: opts.CacheDir, or the default.
func cacheFolder(opts Options, root string) (string, error) {
	if opts.CacheDir != "" {
		return opts.CacheDir, nil
	}
	return DefaultCacheDir(root)
}

// CacheDirUnder is the cache folder of root under base: <name>-<hash of the root>.
func CacheDirUnder(base, root string) string { return store.DirUnder(base, root) }

// ErrLockHeld says another process holds the lock TakeCacheLock asked for.
var ErrLockHeld = store.ErrBusy

// TakeCacheLock takes the lock on the file name in the cache folder dir without waiting (the
// background process's, its starters'): ErrLockHeld when another process holds it. The kernel drops
// it when the process dies.
func TakeCacheLock(dir, name string) (release func(), err error) {
	l, err := store.TakeNamedLock(dir, name)
	if err != nil {
		return nil, err
	}
	return l.Release, nil
}
