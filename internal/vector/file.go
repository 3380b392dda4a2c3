package vector

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	chromem "github.com/philippgille/chromem-go"

	"github.com/ctxmap/ctxmap/internal/codec"
	"github.com/ctxmap/ctxmap/internal/embed"
)

// The store file, fileName, holds in this order, integers as uvarints and floats little-endian:
//
//	magic, version    the 4 bytes "CXVS" and one byte, 1
//	name              length and bytes: collectionName of the model the vectors come from
//	dim, count        components per vector, documents that follow
//	count documents   ID, Path, Sum (each length and bytes), then dim float32s as chromem holds them;
//	                  sorted by ID, each greater than the one before
//	checksum          CRC-32C of everything before, 4 bytes little-endian
//
// Open and SearchFile both read it front to back through one buffer, one document at a time. Plain
// bytes rather than gob: decoding gob was most of the cost of reading a file.
const (
	magic   = "CXVS"
	version = 1

	bufSize   = 1 << 20
	maxDim    = bufSize / 4 // a vector is read from the buffer in one piece
	maxString = 1 << 16     // longest ID or path; Put refuses longer ones, a reader takes a longer one for damage
)

// oldFiles are the store files of earlier builds: another format, removed at Open.
var oldFiles = []string{
	"vectors.gob", // chromem's export
	"vectors.rec", // a gob stream
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// writeFile writes docs, sorted here by ID, to f in the format fileReader reads.
func writeFile(f io.Writer, name string, dim int, docs []chromem.Result) error {
	sum := crc32.New(crcTable)
	w := bufio.NewWriterSize(io.MultiWriter(f, sum), bufSize)
	b := codec.Writer{B: append([]byte(magic), version)}
	b.Str(name)
	b.Size(dim)
	b.Size(len(docs))
	w.Write(b.B) // a bufio.Writer keeps its first error for Flush
	slices.SortFunc(docs, func(a, b chromem.Result) int { return cmp.Compare(a.ID, b.ID) })
	for _, d := range docs {
		b.B = b.B[:0]
		b.Str(d.ID)
		b.Str(d.Metadata[pathKey])
		b.Str(d.Metadata[sumKey])
		for _, x := range d.Embedding {
			b.B = binary.LittleEndian.AppendUint32(b.B, math.Float32bits(x))
		}
		w.Write(b.B)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := f.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
	return err
}

// fileReader reads a store file: openFile reads the header, next each document, end the checksum.
type fileReader struct {
	f     *os.File
	file  string
	r     *bufio.Reader // the file up to its checksum
	crc   hash.Hash32   // of what r has read
	dim   int
	count int
	name  string // the collection's: the model and its dimensions

	// The document last read, valid until the next call: buffers reused, so reading allocates nothing.
	id, path, sum []byte
	vec           []float32
	prev          []byte // the ID before
}

// openFile opens the store file under dir and reads its header. A missing file gives an error wrapping
// both ErrNoStore and os.ErrNotExist; a file of another model than e, one wrapping ErrNoStore.
func openFile(dir string, e embed.Embedder) (*fileReader, error) {
	file := filepath.Join(dir, fileName)
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %w", ErrNoStore, err)
	}
	if err != nil {
		return nil, err
	}
	r, err := readHeader(f, file, e)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// Verify reads the store file under dir whole and checks it: its header, every document, its
// checksum, whatever model it holds; model is that model's ID and dimensions ("ID/dim"). No file is
// ("", nil); a damaged one an error wrapping ErrCorrupt.
func Verify(dir string) (model string, err error) {
	file := filepath.Join(dir, fileName)
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	r, err := readHeader(f, file, nil)
	if err != nil {
		return "", err
	}
	for range r.count {
		if err := r.next(); err != nil {
			return "", err
		}
	}
	return strings.TrimPrefix(r.name, "chunks/"), r.end()
}

// readHeader reads the header of the store file f; e nil accepts the vectors of any model.
func readHeader(f *os.File, file string, e embed.Embedder) (*fileReader, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	r := &fileReader{f: f, file: file, crc: crc32.New(crcTable)}
	if size < int64(len(magic))+1+4 {
		return nil, r.corrupt("too short")
	}
	r.r = bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, size-4), r.crc), bufSize)
	var start [len(magic) + 1]byte
	if _, err := io.ReadFull(r.r, start[:]); err != nil {
		return nil, r.corrupt(err)
	}
	if string(start[:len(magic)]) != magic || start[len(magic)] != version {
		return nil, r.corrupt(fmt.Sprintf("not a vector store of version %d", version))
	}
	name, err := r.bytes(nil)
	if err != nil {
		return nil, err
	}
	dim, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	count, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if e != nil && string(name) != collectionName(e) {
		return nil, fmt.Errorf("%w: %s holds the vectors of %s", ErrNoStore, file, name)
	}
	if e != nil && dim != uint64(e.Dim()) {
		return nil, r.corrupt(fmt.Sprintf("vectors of %d components, want %d", dim, e.Dim()))
	}
	if dim == 0 || dim > maxDim {
		return nil, r.corrupt(fmt.Sprintf("vectors of %d components", dim))
	}
	// Each document takes at least its three lengths and its vector: a damaged count cannot make a
	// reader allocate more than the file's size would.
	if count > uint64(size)/(dim*4+3) {
		return nil, r.corrupt(fmt.Sprintf("%d vectors in %d bytes", count, size))
	}
	r.dim, r.count, r.name = int(dim), int(count), string(name)
	r.vec = make([]float32, r.dim)
	return r, nil
}

func (r *fileReader) close() { r.f.Close() }

func (r *fileReader) corrupt(what any) error {
	switch what {
	case io.EOF, io.ErrUnexpectedEOF:
		what = "truncated"
	}
	return fmt.Errorf("%w: %s: %v", ErrCorrupt, r.file, what)
}

func (r *fileReader) uvarint() (uint64, error) {
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return 0, r.corrupt(err)
	}
	return n, nil
}

// bytes reads a length and that many bytes into buf, reused.
func (r *fileReader) bytes(buf []byte) ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > maxString {
		return nil, r.corrupt(fmt.Sprintf("a string of %d bytes", n))
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	if _, err := io.ReadFull(r.r, buf); err != nil {
		return nil, r.corrupt(err)
	}
	return buf, nil
}

// next reads the next document into r.id, r.path, r.sum and r.vec.
func (r *fileReader) next() error {
	var err error
	r.prev, r.id = r.id, r.prev
	if r.id, err = r.bytes(r.id); err != nil {
		return err
	}
	// chromem would keep the last of equal IDs, a search on the file all of them: the order rules both out
	if len(r.id) == 0 || bytes.Compare(r.id, r.prev) <= 0 {
		return r.corrupt(fmt.Sprintf("ID %q out of order", r.id))
	}
	if r.path, err = r.bytes(r.path); err != nil {
		return err
	}
	if r.sum, err = r.bytes(r.sum); err != nil {
		return err
	}
	b, err := r.r.Peek(4 * r.dim)
	if err != nil {
		return r.corrupt(err)
	}
	for i := range r.vec {
		r.vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	_, err = r.r.Discard(len(b))
	return err
}

// end checks that the documents fill the file up to the checksum, and the checksum.
func (r *fileReader) end() error {
	if _, err := r.r.ReadByte(); err == nil {
		return r.corrupt("bytes after the last document")
	} else if err != io.EOF {
		return r.corrupt(err)
	}
	var tail [4]byte
	if _, err := io.ReadFull(r.f, tail[:]); err != nil {
		return r.corrupt(err)
	}
	if binary.LittleEndian.Uint32(tail[:]) != r.crc.Sum32() {
		return r.corrupt("checksum mismatch")
	}
	return nil
}
