package store

import (
	"errors"
	"hash/crc32"
	"io"
	"iter"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ctxmap/ctxmap/internal/codec"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Files are a snapshot's records by path. The records of a snapshot read from the cache stay on disk
// until first asked for: a query reads a few hundred of a workspace's tens of thousands, and a process
// that answers one query must not decode them all. An updated snapshot shares its predecessor's
// entries, decoded or not.
type Files struct {
	m map[string]*Entry
}

// Entry is one file's record, or where to read it, with what a build compares without reading it.
type Entry struct {
	head    Head
	loaded  atomic.Pointer[records.Record]
	once    sync.Once
	body    *recordBody // nil once the record is in memory from the start
	damaged atomic.Bool // the body could not be read back: the next build reads the file again
}

// Head is what a build compares and the stats count, kept beside a record that is not read yet.
type Head struct {
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

func headOf(r *records.Record) Head {
	h := Head{Language: r.Language, Hash: r.Hash, Skip: r.Skip, Size: r.Size, ModTime: r.ModTime, Lines: r.Lines, ChunkCount: len(r.Chunks)}
	if r.File != nil {
		h.Parsed, h.Defs, h.Refs = true, len(r.File.Definitions), len(r.File.References)
	}
	return h
}

// EntryOf is the entry of a record in memory.
func EntryOf(r *records.Record) *Entry {
	e := &Entry{head: headOf(r)}
	e.loaded.Store(r)
	return e
}

// NewFiles are the files of m, which they own from then on.
func NewFiles(m map[string]*Entry) *Files {
	if m == nil {
		m = map[string]*Entry{}
	}
	return &Files{m: m}
}

// Head is what the entry's file was when its record was made.
func (e *Entry) Head() Head { return e.head }

// Loaded reports whether the record was read into memory (or never left it).
func (e *Entry) Loaded() bool { return e.loaded.Load() != nil }

// Span is where the record lies in its state file: offset and length; zero for a record in memory.
func (e *Entry) Span() (off, n int64) {
	if e.body == nil {
		return 0, 0
	}
	return e.body.off, e.body.len
}

// Record is the entry's record, read from the state file the first time. A record that cannot be
// read back is said to the state's OnDamaged and stands as the file without content until a build
// reads the file again.
func (e *Entry) Record(path string) *records.Record {
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
			r = &records.Record{Path: path, Language: e.head.Language, Skip: e.head.Skip}
			if e.head.Parsed {
				r.File = &parse.File{Language: e.head.Language}
			}
		}
		e.loaded.Store(r)
	})
	return e.loaded.Load()
}

func (b *recordBody) read() (*records.Record, error) {
	buf := make([]byte, b.len)
	if _, err := b.src.r.ReadAt(buf, b.off); err != nil {
		return nil, err
	}
	if crc32.Checksum(buf, crcTable) != b.crc {
		return nil, errors.New("checksum mismatch")
	}
	b.src.mu.Lock()
	defer b.src.mu.Unlock()
	rd := recordReader{codec.Reader{B: buf, Words: b.src.words}}
	r, err := rd.record()
	if err == nil && len(rd.B) > 0 {
		err = errors.New("a record holds more than itself")
	}
	return r, err
}

// Unchanged reports whether the entry still stands for a file of that size and time.
func (e *Entry) Unchanged(size, mod int64) bool {
	return e.head.Size == size && e.head.ModTime == mod && !e.damaged.Load()
}

// Get is the record of path, nil when there is none.
func (f *Files) Get(p string) *records.Record {
	if e := f.m[p]; e != nil {
		return e.Record(p)
	}
	return nil
}

// Has reports whether there is a record of p, without reading it.
func (f *Files) Has(p string) bool { _, ok := f.m[p]; return ok }

// Len is the number of files.
func (f *Files) Len() int { return len(f.m) }

// Entries are the entries by path, shared: a caller that changes them works on a copy (maps.Clone).
func (f *Files) Entries() map[string]*Entry { return f.m }

// All yields every record, in no particular order, reading those not read yet.
func (f *Files) All() iter.Seq2[string, *records.Record] {
	return func(yield func(string, *records.Record) bool) {
		for p, e := range f.m {
			if !yield(p, e.Record(p)) {
				return
			}
		}
	}
}

// Sorted are the paths, in order.
func (f *Files) Sorted() []string { return slices.Sorted(maps.Keys(f.m)) }
