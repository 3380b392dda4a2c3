package index

import (
	"bufio"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxmap/ctxmap/index/history"
)

// cacheVersion changes whenever what a Record holds, or how it is derived, changes, or an older build
// could have left the stores short (7: a save without changes lost its chunks; 9: text in sections, long
// functions in windows; 10: chunks count their terms): an old cache is then rebuilt rather than trusted.
const cacheVersion = 10

const cacheMagic = "ctxmap-cache"

// cacheState is what is persisted between runs, beside the lexical and vector stores.
type cacheState struct {
	Magic      string
	Version    int
	Root       string
	Generation uint64
	Records    map[string]*Record
	Skipped    map[string]string
	History    *history.Log
}

// DefaultCacheDir is $XDG_CACHE_HOME/ctxmap/<name>-<hash of the root>, outside the workspace.
func DefaultCacheDir(root string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache folder: %w", err)
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, "ctxmap", filepath.Base(root)+"-"+hex.EncodeToString(sum[:6])), nil
}

// damagedState is a state file that cannot be read back, as opposed to one from another version.
type damagedState struct{ error }

func (e damagedState) Unwrap() error { return e.error }

func statePath(dir string) string { return filepath.Join(dir, "files.gob") }

// loadState reads the persisted state; a missing file is (nil, nil), anything unreadable, from another
// version or another root is an error that the caller reports before rebuilding.
func loadState(dir, root string) (st *cacheState, err error) {
	defer func() {
		if r := recover(); r != nil { // gob trusts lengths it reads: a damaged file must not end the process
			st, err = nil, damagedState{fmt.Errorf("cache %s is corrupt: %v", statePath(dir), r)}
		}
	}()
	f, err := os.Open(statePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st = &cacheState{}
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<16)).Decode(st); err != nil {
		return nil, damagedState{fmt.Errorf("cache %s is corrupt: %w", statePath(dir), err)}
	}
	switch {
	case st.Magic != cacheMagic:
		return nil, damagedState{fmt.Errorf("cache %s is not a ctxmap cache", statePath(dir))}
	case st.Version != cacheVersion:
		return nil, fmt.Errorf("cache %s has version %d, this build reads %d", statePath(dir), st.Version, cacheVersion)
	}
	// A cache made for another root (a second work tree of the same repository, given the same cache
	// folder) is still sound: records are keyed by relative path and content hash, and every file is
	// checked again by the build.
	st.Root = root
	for p, r := range st.Records {
		if r == nil || r.Path != p {
			return nil, damagedState{fmt.Errorf("cache %s is corrupt: bad record for %s", statePath(dir), p)}
		}
	}
	return st, nil
}

// saveState writes the state atomically: a reader sees the old file or the new one, never half of one.
func saveState(dir string, st *cacheState) error {
	st.Magic, st.Version = cacheMagic, cacheVersion
	tmp, err := os.CreateTemp(dir, "files-*.tmp")
	if err != nil {
		return fmt.Errorf("save cache: %w", err)
	}
	w := bufio.NewWriterSize(tmp, 1<<16)
	err = gob.NewEncoder(w).Encode(st)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Close()
	} else {
		tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), statePath(dir))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save cache: %w", err)
	}
	return nil
}

// damagedDir is where files of the cache that could not be read are kept for a post-mortem; the
// latest of each name only.
func damagedDir(cache string) string { return filepath.Join(cache, "damaged") }

// moveAside moves a damaged file or folder of the cache out of the way of the rebuild, and says
// where to; a file that cannot be moved is removed.
func moveAside(cache, path string) string {
	dst := filepath.Join(damagedDir(cache), filepath.Base(path))
	if err := os.MkdirAll(damagedDir(cache), 0o700); err == nil {
		os.RemoveAll(dst)
		if err := os.Rename(path, dst); err == nil {
			return "moved to " + dst
		}
	}
	os.RemoveAll(path)
	return "removed"
}
