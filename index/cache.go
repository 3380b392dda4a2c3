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
	"sync"

	"github.com/ctxmap/ctxmap/index/history"
)

// cacheVersion changes whenever what a Record holds, or how it is derived, changes, or an older build
// could have left the stores short (7: a save without changes lost its chunks; 9: text in sections, long
// functions in windows; 10: chunks count their terms; 11: the state is in sections, each with a
// checksum; 12: records written by codec.go): an old cache is then rebuilt rather than trusted.
const cacheVersion = 12

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

// The state file is sections, each with its own CRC-32C: the header first, a gob stream, then the
// records in path order cut into stateSections sections (see codec.go), which a load decodes on every
// core at once.
// A table at the end gives each section's length and checksum, then the number of sections. No
// section is ever one message: neither a save nor a load holds the whole state as one.
type stateHeader struct {
	Magic      string
	Version    int
	Root       string
	Generation uint64
	Counts     []int // records in each section after the header
	Skipped    map[string]string
	History    *history.Log
}

const stateSections = 8

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// DefaultCacheDir is $XDG_CACHE_HOME/ctxmap/<name>-<hash of the root>, outside the workspace.
func DefaultCacheDir(root string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache folder: %w", err)
	}
	return CacheDirUnder(filepath.Join(base, "ctxmap"), root), nil
}

// CacheDirUnder is the cache folder of root under base: <name>-<hash of the root>.
func CacheDirUnder(base, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, filepath.Base(root)+"-"+hex.EncodeToString(sum[:6]))
}

// damagedState is a state file that cannot be read back, as opposed to one from another version.
type damagedState struct{ error }

func (e damagedState) Unwrap() error { return e.error }

func statePath(dir string) string { return filepath.Join(dir, "files.gob") }

// loadState reads the persisted state; a missing file is (nil, nil), anything unreadable, from another
// version or another root is an error that the caller reports before rebuilding.
func loadState(dir, root string) (st *cacheState, err error) {
	f, err := os.Open(statePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	corrupt := func(what any) error {
		return damagedState{fmt.Errorf("cache %s is corrupt: %v", statePath(dir), what)}
	}
	sections, err := stateTable(f)
	if err != nil {
		if v, ok := olderVersion(f); ok {
			return nil, fmt.Errorf("cache %s has version %d, this build reads %d", statePath(dir), v, cacheVersion)
		}
		return nil, corrupt(err)
	}
	var h stateHeader
	if err := readSection(sections[0], func(dec *gob.Decoder) error { return dec.Decode(&h) }); err != nil {
		return nil, corrupt(err)
	}
	switch {
	case h.Magic != cacheMagic:
		return nil, damagedState{fmt.Errorf("cache %s is not a ctxmap cache", statePath(dir))}
	case h.Version != cacheVersion:
		return nil, fmt.Errorf("cache %s has version %d, this build reads %d", statePath(dir), h.Version, cacheVersion)
	case len(h.Counts) != len(sections)-1:
		return nil, corrupt("the header does not match the sections")
	}
	parts := make([][]*Record, len(h.Counts))
	errs := make([]error, len(h.Counts))
	var wg sync.WaitGroup
	for i, n := range h.Counts {
		wg.Go(func() {
			if n < 0 || n > 1<<24 {
				errs[i] = fmt.Errorf("%d records", n)
				return
			}
			errs[i] = readRecords(sections[i+1], n, &parts[i])
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, corrupt(err)
	}
	// A cache made for another root (a second work tree of the same repository, given the same cache
	// folder) is still sound: records are keyed by relative path and content hash, and every file is
	// checked again by the build.
	st = &cacheState{Magic: h.Magic, Version: h.Version, Root: root, Generation: h.Generation, Records: map[string]*Record{}, Skipped: h.Skipped, History: h.History}
	for _, part := range parts {
		for _, r := range part {
			if r.Path == "" || st.Records[r.Path] != nil {
				return nil, corrupt(fmt.Sprintf("bad record for %q", r.Path))
			}
			st.Records[r.Path] = r
		}
	}
	applyFresh(dir, f, st) // after an import
	return st, nil
}

// olderVersion reads the version of a state file written before version 11, one gob message.
func olderVersion(f *os.File) (v int, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, false
	}
	var h struct {
		Magic   string
		Version int
	}
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&h); err != nil || h.Magic != cacheMagic || h.Version >= 11 {
		return 0, false
	}
	return h.Version, true
}

// stateSection is one gob stream of the state file and its checksum.
type stateSection struct {
	r   *io.SectionReader
	crc uint32
}

// stateTable reads the table at the end of the state file.
func stateTable(f *os.File) ([]stateSection, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	var tail [4]byte
	if size < 4 {
		return nil, errors.New("too short")
	}
	if _, err := f.ReadAt(tail[:], size-4); err != nil {
		return nil, err
	}
	n := int64(binary.BigEndian.Uint32(tail[:]))
	if n < 1 || n > 1024 || 4+12*n > size {
		return nil, errors.New("no table of sections")
	}
	table := make([]byte, 12*n)
	if _, err := f.ReadAt(table, size-4-12*n); err != nil {
		return nil, err
	}
	var out []stateSection
	var at int64
	for i := range n {
		length, crc := int64(binary.BigEndian.Uint64(table[12*i:])), binary.BigEndian.Uint32(table[12*i+8:])
		if length < 0 || at+length > size-4-12*n {
			return nil, errors.New("a section runs past the table")
		}
		out = append(out, stateSection{r: io.NewSectionReader(f, at, length), crc: crc})
		at += length
	}
	if at != size-4-12*n {
		return nil, errors.New("the sections do not fill the file")
	}
	return out, nil
}

// readRecords reads a section of n records.
func readRecords(s stateSection, n int, out *[]*Record) error {
	b := make([]byte, s.r.Size())
	if _, err := io.ReadFull(s.r, b); err != nil {
		return err
	}
	if crc32.Checksum(b, crcTable) != s.crc {
		return errors.New("checksum mismatch")
	}
	r := recordReader{b: b, words: map[string]string{}}
	for range n {
		rec, err := r.record()
		if err != nil {
			return err
		}
		*out = append(*out, rec)
	}
	if len(r.b) > 0 {
		return errors.New("a section holds more than its records")
	}
	return nil
}

// readSection runs read on a decoder of the section, then checks that it read the whole section and
// that the section matches its checksum.
func readSection(s stateSection, read func(*gob.Decoder) error) (err error) {
	defer func() {
		if r := recover(); r != nil { // gob trusts lengths it reads: a damaged file must not end the process
			err = fmt.Errorf("%v", r)
		}
	}()
	sum := crc32.New(crcTable)
	br := bufio.NewReaderSize(io.TeeReader(s.r, sum), 1<<16)
	if err := read(gob.NewDecoder(br)); err != nil {
		return err
	}
	if n, err := io.Copy(io.Discard, br); err != nil || n > 0 {
		return errors.New("a section holds more than its records")
	}
	if sum.Sum32() != s.crc {
		return errors.New("checksum mismatch")
	}
	return nil
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

// writeState writes the header, the records in path order and the table of sections.
func writeState(f io.Writer, st *cacheState) error {
	paths := slices.Sorted(maps.Keys(st.Records))
	h := stateHeader{Magic: cacheMagic, Version: cacheVersion, Root: st.Root, Generation: st.Generation, Skipped: st.Skipped, History: st.History}
	var cuts [][]string
	for i := range stateSections {
		part := paths[i*len(paths)/stateSections : (i+1)*len(paths)/stateSections]
		cuts = append(cuts, part)
		h.Counts = append(h.Counts, len(part))
	}
	var table []byte
	section := func(write func(*gob.Encoder) error) error {
		sum := crc32.New(crcTable)
		w := &countWriter{w: io.MultiWriter(f, sum)}
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := write(gob.NewEncoder(bw)); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		table = binary.BigEndian.AppendUint64(table, uint64(w.n))
		table = binary.BigEndian.AppendUint32(table, sum.Sum32())
		return nil
	}
	if err := section(func(enc *gob.Encoder) error { return enc.Encode(&h) }); err != nil {
		return err
	}
	for _, part := range cuts {
		var w recordWriter
		for _, p := range part {
			w.record(st.Records[p])
		}
		if _, err := f.Write(w.b); err != nil {
			return err
		}
		table = binary.BigEndian.AppendUint64(table, uint64(len(w.b)))
		table = binary.BigEndian.AppendUint32(table, crc32.Checksum(w.b, crcTable))
	}
	table = binary.BigEndian.AppendUint32(table, uint32(len(cuts)+1))
	_, err := f.Write(table)
	return err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
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
