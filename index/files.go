package index

import (
	"errors"
	"hash/crc32"
	"io"
	"iter"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// fileSet is a snapshot's records by path. The records of a snapshot read from the cache stay on disk
// until first asked for: a query reads a few hundred of a workspace's tens of thousands, and a process
// that answers one query must not decode them all. An updated snapshot shares its predecessor's
// entries, decoded or not.
type fileSet struct {
	m map[string]*fileEntry
}

// fileEntry is one file's record, or where to read it, with what a build compares without reading it.
type fileEntry struct {
	head    fileHead
	loaded  atomic.Pointer[Record]
	once    sync.Once
	body    *recordBody // nil once the record is in memory from the start
	damaged atomic.Bool // the body could not be read back: the next build reads the file again
}

// fileHead is what a build compares and the stats count, kept beside a record that is not read yet.
type fileHead struct {
	Language, Hash, Skip   string
	Size, ModTime          int64
	Lines                  int
	Parsed                 bool // Record.File != nil
	Defs, Refs, ChunkCount int
}

// recordBody places an encoded record in a state file.
type recordBody struct {
	src      *stateFile
	off, len int64
	crc      uint32
}

// stateFile is an open state file whose records are read on demand. The file stays open for as long
// as a snapshot refers to it: a later save renames a new file over the name, not over this one.
type stateFile struct {
	r       io.ReaderAt
	mu      sync.Mutex
	words   map[string]string // short strings shared between the records read
	damaged func(path string, err error)
}

func headOf(r *Record) fileHead {
	h := fileHead{Language: r.Language, Hash: r.Hash, Skip: r.Skip, Size: r.Size, ModTime: r.ModTime, Lines: r.Lines, ChunkCount: len(r.Chunks)}
	if r.File != nil {
		h.Parsed, h.Defs, h.Refs = true, len(r.File.Definitions), len(r.File.References)
	}
	return h
}

func entryOf(r *Record) *fileEntry {
	e := &fileEntry{head: headOf(r)}
	e.loaded.Store(r)
	return e
}

func filesOf(m map[string]*Record) *fileSet {
	f := &fileSet{m: make(map[string]*fileEntry, len(m))}
	for p, r := range m {
		f.m[p] = entryOf(r)
	}
	return f
}

// record is the entry's record, read from the state file the first time; nil if that fails.
func (e *fileEntry) record(path string) *Record {
	if r := e.loaded.Load(); r != nil {
		return r
	}
	e.once.Do(func() {
		r, err := e.body.read()
		if err == nil && r.Path != path {
			err = errors.New("the record names another file")
		}
		if err == nil {
			r.Size, r.ModTime = e.head.Size, e.head.ModTime // the table's, which an import may have set
		} else {
			// the file counts as empty until a build reads it again
			e.damaged.Store(true)
			e.body.src.damaged(path, err)
			r = &Record{Path: path, Language: e.head.Language, Skip: e.head.Skip}
			if e.head.Parsed {
				r.File = &parse.File{Language: e.head.Language}
			}
		}
		e.loaded.Store(r)
	})
	return e.loaded.Load()
}

func (b *recordBody) read() (*Record, error) {
	buf := make([]byte, b.len)
	if _, err := b.src.r.ReadAt(buf, b.off); err != nil {
		return nil, err
	}
	if crc32.Checksum(buf, crcTable) != b.crc {
		return nil, errors.New("checksum mismatch")
	}
	b.src.mu.Lock()
	defer b.src.mu.Unlock()
	rd := recordReader{b: buf, words: b.src.words}
	r, err := rd.record()
	if err == nil && len(rd.b) > 0 {
		err = errors.New("a record holds more than itself")
	}
	return r, err
}

// unchanged reports whether the entry still stands for a file of that size and time.
func (e *fileEntry) unchanged(size, mod int64) bool {
	return e.head.Size == size && e.head.ModTime == mod && !e.damaged.Load()
}

// get is the record of path, nil when there is none.
func (f *fileSet) get(p string) *Record {
	if e := f.m[p]; e != nil {
		return e.record(p)
	}
	return nil
}

func (f *fileSet) has(p string) bool { _, ok := f.m[p]; return ok }

func (f *fileSet) len() int { return len(f.m) }

// all yields every record, in no particular order, reading those not read yet.
func (f *fileSet) all() iter.Seq2[string, *Record] {
	return func(yield func(string, *Record) bool) {
		for p, e := range f.m {
			if !yield(p, e.record(p)) {
				return
			}
		}
	}
}

// sorted are the paths, in order.
func (f *fileSet) sorted() []string { return slices.Sorted(maps.Keys(f.m)) }

func (f *fileSet) clone() *fileSet { return &fileSet{m: maps.Clone(f.m)} }
