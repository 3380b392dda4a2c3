// Package store keeps an index's state on disk, in a cache folder outside the workspace: the state
// file (the records of the files, their table, and what they derive: symbols, graph, BM25 statistics,
// entity map, literals), the folder's owner lock, and export and import of the whole cache. It knows
// how things are written and read back, not how they are derived: that is the index's.
package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/vector"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// version changes whenever what a Record holds, or how it is derived, changes, or an older build
// could have left the stores short (7: a save without changes lost its chunks; 9: text in sections, long
// functions in windows; 10: chunks count their terms; 11: the state is in sections, each with a
// checksum; 12: records written by codec.go; 13: records read on demand, what they derive saved; 14:
// the file is index.state, written by internal/codec; 15: C and C++ definitions named past their
// macros, .h files read as C++ when they are; 16: a C++ template's definition starts at its template
// head): an old cache is then rebuilt rather than trusted.
const version = 16

const magic = "ctxmap-cache"

// stateName is the state file's name in the cache folder; oldStateName is the one of versions up to 13,
// removed when found.
const (
	stateName    = "index.state"
	oldStateName = "files.gob"
)

// State is what is persisted between runs, beside the lexical and vector stores.
type State struct {
	Root       string
	Generation uint64
	Records    *Files
	Skipped    map[string]string // path -> why the walk or the content checks left it out
	History    *history.Log
	// Derived is what the records derive, saved so that the next start need not read them all; nil
	// for a partial state (a build stopped midway), whose next start derives it.
	Derived *Derived
	Listing *walk.Listing // the last walk's, nil for a partial state
	src     *stateFile    // the file the records are read from
}

// OnDamaged sets what is told of a record that cannot be read back when first asked for.
func (st *State) OnDamaged(f func(path string, err error)) {
	if st.src != nil {
		st.src.damaged = f
	}
}

// The state file is sections, each with its own CRC-32C: the header (a gob stream), the records one
// after the other, the table of records (path, what a build compares, where the record is and its
// own checksum), then, for a complete state, what the records derive and the code's string literals.
// A table at the end gives each section's length and checksum, then the number of sections. A load
// reads the header, the table and the derived part; a record is read when first asked for, checked
// against its own checksum (see files.go).
type stateHeader struct {
	Magic      string
	Version    int
	Root       string
	Generation uint64
	Files      int
	Derived    bool
	Skipped    map[string]string
	History    *history.Log
	Listing    *walk.Listing
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// DefaultDir is $XDG_CACHE_HOME/ctxmap/<name>-<hash of the root>, outside the workspace.
func DefaultDir(root string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the user cache folder: %w", err)
	}
	return DirUnder(filepath.Join(base, "ctxmap"), root), nil
}

// DirUnder is the cache folder of root under base: <name>-<hash of the root>.
func DirUnder(base, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, filepath.Base(root)+"-"+hex.EncodeToString(sum[:6]))
}

// DamagedError is a state file that cannot be read back, as opposed to one from another version: the
// caller moves it aside (MoveAside) for a post-mortem.
type DamagedError struct{ error }

// Unwrap gives what was wrong with the file.
func (e DamagedError) Unwrap() error { return e.error }

// StatePath is the state file of the cache folder dir.
func StatePath(dir string) string { return filepath.Join(dir, stateName) }

// Load reads the persisted state of the cache folder dir for the workspace root; a missing file is
// (nil, nil), anything unreadable or from another version is an error that the caller reports before
// rebuilding, a DamagedError when the file is damaged. Records are read when first asked for.
func Load(dir, root string) (st *State, err error) {
	f, err := os.Open(StatePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		old := filepath.Join(dir, oldStateName)
		if _, err := os.Stat(old); err == nil {
			os.Remove(old)
			return nil, fmt.Errorf("cache %s is from a ctxmap older than version %d: removed", old, version)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// the file stays open while the records are read from it, and is closed with the last of them
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	corrupt := func(what any) error {
		return DamagedError{fmt.Errorf("cache %s is corrupt: %v", StatePath(dir), what)}
	}
	sections, err := stateTable(f)
	if err != nil {
		if v, ok := olderVersion(f); ok {
			return nil, fmt.Errorf("cache %s has version %d, this build reads %d", StatePath(dir), v, version)
		}
		return nil, corrupt(err)
	}
	// the header, the table with what it derives and the entity map are read side by side
	src := &stateFile{r: f, words: map[string]string{}, damaged: func(string, error) {}} // Open says it
	var (
		h                stateHeader
		recs             *Files
		derived          *Derived
		entities         *entity.Map
		herr, terr, eerr error
	)
	var wg sync.WaitGroup
	wg.Go(func() {
		var paths []string
		if recs, paths, terr = readTable(sections[2], sections[1], src); terr == nil && len(sections) == 6 {
			derived, terr = readDerived(sections[3], sections[5], recs, paths)
		}
	})
	if len(sections) == 6 {
		wg.Go(func() { entities, eerr = readEntities(sections[4]) })
	}
	herr = readSection(sections[0], func(dec *gob.Decoder) error { return dec.Decode(&h) })
	wg.Wait()
	if herr != nil {
		return nil, corrupt(herr)
	}
	switch {
	case h.Magic != magic:
		return nil, DamagedError{fmt.Errorf("cache %s is not a ctxmap cache", StatePath(dir))}
	case h.Version != version:
		return nil, fmt.Errorf("cache %s has version %d, this build reads %d", StatePath(dir), h.Version, version)
	case len(sections) != map[bool]int{false: 3, true: 6}[h.Derived] || terr == nil && recs.Len() != h.Files:
		return nil, corrupt("the header does not match the sections")
	}
	if err := errors.Join(terr, eerr); err != nil {
		return nil, corrupt(err)
	}
	keep = true
	// A cache made for another root (a second work tree of the same repository, given the same cache
	// folder) is still sound: records are keyed by relative path and content hash, and every file is
	// checked again by the build.
	st = &State{Root: root, Generation: h.Generation, Records: recs, Skipped: h.Skipped, History: h.History, Listing: h.Listing, src: src}
	if derived != nil && entities != nil {
		derived.Entities = entities
		st.Derived = derived
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
	if err := gob.NewDecoder(bufio.NewReader(f)).Decode(&h); err != nil || h.Magic != magic || h.Version >= 11 {
		return 0, false
	}
	return h.Version, true
}

// stateSection is one gob stream of the state file and its checksum.
type stateSection struct {
	r   *io.SectionReader
	at  int64 // where it starts in the file
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
		out = append(out, stateSection{r: io.NewSectionReader(f, at, length), at: at, crc: crc})
		at += length
	}
	if at != size-4-12*n {
		return nil, errors.New("the sections do not fill the file")
	}
	return out, nil
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

// Save writes the state into the cache folder dir atomically: a reader sees the old file or the new
// one, never half of one.
func Save(dir string, st *State) error {
	tmp, err := os.CreateTemp(dir, "state-*.tmp")
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
		err = os.Rename(tmp.Name(), StatePath(dir))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save cache: %w", err)
	}
	return nil
}

// writeState writes the header, the records in path order, their table, what they derive and the
// table of sections. A record not read since the last load is copied as it was, not decoded.
func writeState(f io.Writer, st *State) error {
	paths := st.Records.Sorted()
	h := stateHeader{Magic: magic, Version: version, Root: st.Root, Generation: st.Generation, Files: len(paths), Derived: st.Derived != nil, Skipped: st.Skipped, History: st.History, Listing: st.Listing}
	var sections []byte
	add := func(n int64, crc uint32) {
		sections = binary.BigEndian.AppendUint64(sections, uint64(n))
		sections = binary.BigEndian.AppendUint32(sections, crc)
	}
	write := func(b []byte) error {
		_, err := f.Write(b)
		add(int64(len(b)), crc32.Checksum(b, crcTable))
		return err
	}
	var hb bytes.Buffer
	if err := gob.NewEncoder(&hb).Encode(&h); err != nil {
		return err
	}
	if err := write(hb.Bytes()); err != nil {
		return err
	}
	// the records, a buffer at a time, noting each one's length and checksum for the table
	var table recordWriter
	var body recordWriter
	bodySum := crc32.New(crcTable)
	var bodyLen int64
	flush := func() error {
		bodySum.Write(body.B)
		bodyLen += int64(len(body.B))
		_, err := f.Write(body.B)
		body.B = body.B[:0]
		return err
	}
	for _, p := range paths {
		e := st.Records.m[p]
		from := len(body.B)
		if raw := e.raw(); raw != nil {
			body.B = append(body.B, raw...)
		} else {
			body.record(e.Record(p))
		}
		table.head(p, e.savedHead(), body.B[from:])
		if len(body.B) >= 1<<20 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	add(bodyLen, bodySum.Sum32())
	if err := write(table.B); err != nil {
		return err
	}
	if st.Derived != nil {
		d, ents, lits := encodeDerived(st.Derived, paths)
		for _, b := range [][]byte{d, ents, lits} {
			if err := write(b); err != nil {
				return err
			}
		}
	}
	n := len(sections) / 12
	sections = binary.BigEndian.AppendUint32(sections, uint32(n))
	_, err := f.Write(sections)
	return err
}

// damagedDir is where files of the cache that could not be read are kept for a post-mortem; the
// latest of each name only.
func damagedDir(cache string) string { return filepath.Join(cache, "damaged") }

// MoveAside moves a damaged file or folder of the cache out of the way of the rebuild, and says
// where to; a file that cannot be moved is removed.
func MoveAside(cache, path string) string {
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

// VerifyState reads the whole state file of the cache folder dir, every section against its checksum,
// the records' included (a load reads those only when asked for), and the file an import left beside
// it; it changes nothing. It returns the state's generation, and a DamagedError naming the file at
// fault. No state file is (0, nil).
func VerifyState(dir string) (generation uint64, err error) {
	f, err := os.Open(StatePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	corrupt := func(what any) error {
		return DamagedError{fmt.Errorf("cache %s is corrupt: %v", StatePath(dir), what)}
	}
	sections, err := stateTable(f)
	if err != nil {
		return 0, corrupt(err)
	}
	for i, s := range sections {
		sum := crc32.New(crcTable)
		if _, err := io.Copy(sum, bufio.NewReaderSize(s.r, 1<<16)); err != nil {
			return 0, corrupt(err)
		}
		if sum.Sum32() != s.crc {
			return 0, corrupt(fmt.Sprintf("section %d of %d: checksum mismatch", i+1, len(sections)))
		}
		s.r.Seek(0, io.SeekStart)
	}
	var h stateHeader
	if err := readSection(sections[0], func(dec *gob.Decoder) error { return dec.Decode(&h) }); err != nil {
		return 0, corrupt(err)
	}
	if h.Magic != magic {
		return 0, DamagedError{fmt.Errorf("cache %s is not a ctxmap cache", StatePath(dir))}
	}
	if h.Version != version {
		return 0, fmt.Errorf("cache %s has version %d, this build reads %d", StatePath(dir), h.Version, version)
	}
	if b, err := os.ReadFile(filepath.Join(dir, freshName)); err == nil {
		n := len(b) - 4
		var fr freshStat
		if n < 0 || crc32.Checksum(b[:n], crcTable) != binary.BigEndian.Uint32(b[n:]) || gob.NewDecoder(bytes.NewReader(b[:n])).Decode(&fr) != nil {
			return h.Generation, DamagedError{fmt.Errorf("cache %s is corrupt", filepath.Join(dir, freshName))}
		}
	}
	return h.Generation, nil
}

// FreshPath is the file an import leaves beside the state (see freshName).
func FreshPath(dir string) string { return filepath.Join(dir, freshName) }

// VerifyCache reads every file of the cache folder whole and checks it (the state file's every
// section, the lexical index, the vector file, the vectors' and an import's markers); each damaged one
// is moved to damaged/ (a marker removed) and said, one sentence each. The caller holds the cache's lock.
func VerifyCache(ctx context.Context, cache string) ([]string, error) {
	var said []string
	damaged := func(what string, err error, path string) {
		said = append(said, fmt.Sprintf("cache file %s is damaged: %v; %s, rebuilt at the next start", what, err, MoveAside(cache, path)))
	}
	gen, err := VerifyState(cache)
	var bad DamagedError
	if errors.As(err, &bad) {
		path := StatePath(cache)
		if strings.Contains(err.Error(), FreshPath(cache)) {
			path = FreshPath(cache)
		}
		said = append(said, fmt.Sprintf("%v; %s, rebuilt at the next start", err, MoveAside(cache, path)))
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
	if err := bm25.Verify(lexDir); err != nil {
		var d *bm25.DamagedError
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
