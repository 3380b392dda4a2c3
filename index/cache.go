package index

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/ctxmap/ctxmap/index/history"
)

// cacheVersion changes whenever what a Record holds, or how it is derived, changes, or an older build
// could have left the stores short (7: a save without changes lost its chunks; 9: text in sections, long
// functions in windows; 10: chunks count their terms; 11: the state is a stream of records with a
// checksum): an old cache is then rebuilt rather than trusted.
const cacheVersion = 11

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

// stateHeader opens the state file; Count records follow it, one gob message each, so that neither a
// save nor a load ever holds the whole state as one message. The file ends with the CRC-32C of
// everything before it.
type stateHeader struct {
	Magic      string
	Version    int
	Root       string
	Generation uint64
	Count      int
	Skipped    map[string]string
	History    *history.Log
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

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
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	corrupt := func(format string, args ...any) error {
		return damagedState{fmt.Errorf("cache %s is corrupt: %s", statePath(dir), fmt.Sprintf(format, args...))}
	}
	if fi.Size() < 4 {
		return nil, corrupt("too short")
	}
	sum := crc32.New(crcTable)
	body := bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, fi.Size()-4), sum), 1<<16)
	dec := gob.NewDecoder(body)
	var h stateHeader
	if err := dec.Decode(&h); err != nil {
		return nil, corrupt("%v", err)
	}
	switch {
	case h.Magic != cacheMagic:
		return nil, damagedState{fmt.Errorf("cache %s is not a ctxmap cache", statePath(dir))}
	case h.Version != cacheVersion:
		return nil, fmt.Errorf("cache %s has version %d, this build reads %d", statePath(dir), h.Version, cacheVersion)
	case h.Count < 0:
		return nil, corrupt("%d records", h.Count)
	}
	// A cache made for another root (a second work tree of the same repository, given the same cache
	// folder) is still sound: records are keyed by relative path and content hash, and every file is
	// checked again by the build.
	st = &cacheState{Magic: h.Magic, Version: h.Version, Root: root, Generation: h.Generation,
		Records: make(map[string]*Record, min(h.Count, 1<<20)), Skipped: h.Skipped, History: h.History}
	for range h.Count {
		r := &Record{}
		if err := dec.Decode(r); err != nil {
			return nil, corrupt("%v", err)
		}
		if r.Path == "" || st.Records[r.Path] != nil {
			return nil, corrupt("bad record for %q", r.Path)
		}
		st.Records[r.Path] = r
	}
	if _, err := io.Copy(io.Discard, body); err != nil {
		return nil, corrupt("%v", err)
	}
	var tail [4]byte
	if _, err := io.ReadFull(f, tail[:]); err != nil || binary.BigEndian.Uint32(tail[:]) != sum.Sum32() {
		return nil, corrupt("checksum mismatch")
	}
	return st, nil
}

// saveState writes the state atomically: a reader sees the old file or the new one, never half of one.
func saveState(dir string, st *cacheState) error {
	tmp, err := os.CreateTemp(dir, "files-*.tmp")
	if err != nil {
		return fmt.Errorf("save cache: %w", err)
	}
	err = writeState(tmp, st)
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

// writeState writes the header, the records in path order and the checksum.
func writeState(f io.Writer, st *cacheState) error {
	sum := crc32.New(crcTable)
	w := bufio.NewWriterSize(io.MultiWriter(f, sum), 1<<16)
	enc := gob.NewEncoder(w)
	h := stateHeader{Magic: cacheMagic, Version: cacheVersion, Root: st.Root, Generation: st.Generation,
		Count: len(st.Records), Skipped: st.Skipped, History: st.History}
	if err := enc.Encode(&h); err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(st.Records)) {
		if err := enc.Encode(st.Records[p]); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], sum.Sum32())
	_, err := f.Write(tail[:])
	return err
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
