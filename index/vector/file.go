package vector

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"unsafe"
)

// The store file: magic, the model's collection name, the dimension, the count, the paths, then for
// each document (sorted by ID) its path's number, its ID and its text sum, padding to four bytes, the
// vectors one after the other as little-endian float32, and last the CRC-32C of everything before.
// The vectors are used where they lie in the file's bytes: a store opens without decoding them.
const fileMagic = "ctxmap-vectors-1"

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// segment is a store file read back.
type segment struct {
	name  string
	dim   int
	paths []string
	pathN []uint32 // the number of each document's path
	ids   []string
	sums  []string
	vecs  []float32
}

func (g *segment) len() int            { return len(g.ids) }
func (g *segment) path(i int) string   { return g.paths[g.pathN[i]] }
func (g *segment) vec(i int) []float32 { return g.vecs[i*g.dim : (i+1)*g.dim : (i+1)*g.dim] }
func littleEndian() bool               { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }

// fileDoc is one document as written.
type fileDoc struct {
	id, path, sum string
	vec           []float32
}

// readSegment reads a store file; anything unreadable is ErrCorrupt.
func readSegment(file string) (*segment, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	corrupt := func(what string) error { return fmt.Errorf("%w: %s: %s", ErrCorrupt, file, what) }
	if len(b) < len(fileMagic)+4 || string(b[:len(fileMagic)]) != fileMagic {
		return nil, corrupt("not a vector store file")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, corrupt("checksum mismatch")
	}
	r := reader{b: body, at: len(fileMagic)}
	g := &segment{name: r.str()}
	g.dim = int(r.num())
	n, np := int(r.num()), int(r.num())
	if r.bad || g.dim <= 0 || n < 0 || np < 0 || n > len(body) || np > len(body) {
		return nil, corrupt("bad header")
	}
	g.paths = make([]string, np)
	for i := range g.paths {
		g.paths[i] = r.str()
	}
	g.pathN, g.ids, g.sums = make([]uint32, n), make([]string, n), make([]string, n)
	for i := range n {
		g.pathN[i], g.ids[i], g.sums[i] = r.num(), r.str(), r.str()
		if !r.bad && int(g.pathN[i]) >= np {
			return nil, corrupt("bad path number")
		}
	}
	r.at = (r.at + 3) &^ 3
	if r.bad || len(body)-r.at != n*g.dim*4 {
		return nil, corrupt("cut short")
	}
	raw := body[r.at:]
	if n == 0 {
		return g, nil
	}
	if littleEndian() && uintptr(unsafe.Pointer(&raw[0]))%4 == 0 {
		g.vecs = unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), n*g.dim)
	} else {
		g.vecs = make([]float32, n*g.dim)
		for i := range g.vecs {
			g.vecs[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	return g, nil
}

// reader takes numbers and strings off a file's bytes; a read past the end sets bad. The strings
// share the file's bytes.
type reader struct {
	b   []byte
	at  int
	bad bool
}

func (r *reader) num() uint32 {
	if r.bad || r.at+4 > len(r.b) {
		r.bad = true
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.at:])
	r.at += 4
	return v
}

func (r *reader) str() string {
	n := int(r.num())
	if r.bad || n > len(r.b)-r.at {
		r.bad = true
		return ""
	}
	s := r.b[r.at : r.at+n]
	r.at += n
	if n == 0 {
		return ""
	}
	return unsafe.String(&s[0], n)
}

// writeSegment writes docs as a store file: a temporary file renamed over the old one, so a crash
// leaves either the old or the new store.
func writeSegment(file, name string, dim int, docs []fileDoc) error {
	slices.SortFunc(docs, func(a, b fileDoc) int { return cmp.Compare(a.id, b.id) })
	tmp, err := os.CreateTemp(filepath.Dir(file), fileName+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	sum := crc32.New(crcTable)
	w := &fileWriter{w: bufio.NewWriterSize(io.MultiWriter(tmp, sum), 1<<20)}
	w.bytes([]byte(fileMagic))
	w.str(name)
	w.num(dim)
	w.num(len(docs))
	pathN := map[string]int{}
	var paths []string
	for _, d := range docs {
		if _, ok := pathN[d.path]; !ok {
			pathN[d.path] = len(paths)
			paths = append(paths, d.path)
		}
	}
	w.num(len(paths))
	for _, p := range paths {
		w.str(p)
	}
	for _, d := range docs {
		w.num(pathN[d.path])
		w.str(d.id)
		w.str(d.sum)
	}
	w.bytes(make([]byte, (4-w.n%4)%4))
	for _, d := range docs {
		if len(d.vec) != dim {
			return fmt.Errorf("vector %s has %d components, want %d", d.id, len(d.vec), dim)
		}
		for _, x := range d.vec {
			w.bytes(binary.LittleEndian.AppendUint32(w.scratch[:0], math.Float32bits(x)))
		}
	}
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err == nil {
		_, w.err = tmp.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
	}
	err = w.err
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

// fileWriter writes a store file's parts, counting bytes and keeping the first error.
type fileWriter struct {
	w       *bufio.Writer
	n       int
	err     error
	scratch [4]byte
}

func (w *fileWriter) bytes(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
		w.n += len(b)
	}
}

func (w *fileWriter) num(v int) { w.bytes(binary.LittleEndian.AppendUint32(w.scratch[:0], uint32(v))) }

func (w *fileWriter) str(s string) {
	w.num(len(s))
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
		w.n += len(s)
	}
}

// dot is the cosine similarity of two unit vectors, summed in one fixed order so that a score never
// depends on where a vector is kept.
func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// unit is v scaled to length one (a copy), or v when it is already.
func unit(v []float32) []float32 {
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	norm := math.Sqrt(sq)
	if math.Abs(norm-1) < 1e-6 {
		return v
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / norm)
	}
	return out
}

// topK keeps the k best hits offered: higher score first, ties by ID.
type topK struct {
	k    int
	hits []Hit // a min-heap: the worst kept hit first
}

func worse(a, b Hit) bool { return a.Score < b.Score || a.Score == b.Score && a.ID > b.ID }

func (t *topK) full() bool   { return len(t.hits) >= t.k }
func (t *topK) min() float32 { return t.hits[0].Score }
func (t *topK) sorted() []Hit {
	out := slices.Clone(t.hits)
	slices.SortFunc(out, func(a, b Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return out
}

func (t *topK) offer(h Hit) {
	if len(t.hits) < t.k {
		t.hits = append(t.hits, h)
		for i := len(t.hits) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(t.hits[i], t.hits[p]) {
				break
			}
			t.hits[i], t.hits[p] = t.hits[p], t.hits[i]
			i = p
		}
		return
	}
	if !worse(t.hits[0], h) {
		return
	}
	t.hits[0] = h
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t.hits) && worse(t.hits[l], t.hits[m]) {
			m = l
		}
		if r < len(t.hits) && worse(t.hits[r], t.hits[m]) {
			m = r
		}
		if m == i {
			return
		}
		t.hits[i], t.hits[m] = t.hits[m], t.hits[i]
		i = m
	}
}
