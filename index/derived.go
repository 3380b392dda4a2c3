package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"time"

	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/lexical"
)

// savedDerived is what a state file keeps of what its records derive (see newSnapshot).
type savedDerived struct {
	paths    []string // the parsed files, sorted: the graph's nodes
	symbols  map[string][]SymbolRef
	names    []string // the symbols' names, sorted
	edges    [][]GraphEdge
	stats    lexical.Stats
	entities *entity.Map
	literals func() ([]literalRef, error)
}

// head writes a record's entry of the table: its path, what a build compares without reading it,
// and its encoding's length and checksum.
func (w *recordWriter) head(path string, h fileHead, body []byte) {
	w.str(path)
	w.str(h.Language)
	w.str(h.Hash)
	w.str(h.Skip)
	w.num(h.Size)
	w.num(h.ModTime)
	w.int(h.Lines)
	w.flags(h.Parsed)
	w.int(h.Defs)
	w.int(h.Refs)
	w.int(h.ChunkCount)
	w.int(len(body))
	w.b = binary.BigEndian.AppendUint32(w.b, crc32.Checksum(body, crcTable))
}

// raw is the entry's encoding as a state file holds it, nil once the record was read (or when it
// never came from a file); a damaged one is nil, so that it is written from what was read instead.
func (e *fileEntry) raw() []byte {
	if e.body == nil || e.loaded.Load() != nil {
		return nil
	}
	b := make([]byte, e.body.len)
	if _, err := e.body.src.r.ReadAt(b, e.body.off); err != nil || crc32.Checksum(b, crcTable) != e.body.crc {
		return nil
	}
	return b
}

// savedHead is the head the table keeps; a record that could not be read back gets a time no file
// has, so that the next build reads the file again.
func (e *fileEntry) savedHead() fileHead {
	h := e.head
	if e.damaged.Load() {
		h.ModTime = -1
	}
	return h
}

// readTable reads the table of records, placing each in the body section, and gives their paths in
// order, as the table holds them.
func readTable(table, body stateSection, src *stateFile) (*fileSet, []string, error) {
	b, err := sectionBytes(table)
	if err != nil {
		return nil, nil, err
	}
	r := recordReader{b: b, words: src.words}
	fs := &fileSet{m: map[string]*fileEntry{}}
	var paths []string
	off := int64(0)
	prev := ""
	for i := 0; len(r.b) > 0; i++ {
		p := r.str()
		e := &fileEntry{head: fileHead{Language: r.str(), Hash: r.str(), Skip: r.str(), Size: r.num(), ModTime: r.num(), Lines: r.int()}}
		r.flags(&e.head.Parsed)
		e.head.Defs, e.head.Refs, e.head.ChunkCount = r.int(), r.int(), r.int()
		length := int64(r.int())
		crc := r.uint32()
		switch {
		case r.bad:
			return nil, nil, errRecord
		case p == "" || (i > 0 && p <= prev):
			return nil, nil, fmt.Errorf("the table's paths are out of order at %q", p)
		case length < 0 || off+length > body.r.Size():
			return nil, nil, errors.New("a record runs past its section")
		}
		e.body = &recordBody{src: src, off: body.at + off, len: length, crc: crc}
		fs.m[p] = e
		paths = append(paths, p)
		off += length
		prev = p
	}
	if off != body.r.Size() {
		return nil, nil, errors.New("the table does not match the records")
	}
	return fs, paths, nil
}

// sectionBytes reads a whole section and checks it.
func sectionBytes(s stateSection) ([]byte, error) {
	b := make([]byte, s.r.Size())
	if _, err := io.ReadFull(s.r, b); err != nil {
		return nil, err
	}
	if crc32.Checksum(b, crcTable) != s.crc {
		return nil, errors.New("checksum mismatch")
	}
	return b, nil
}

// encodeDerived writes s's symbols (by name), graph and BM25 statistics, and apart from them its
// entity map and its string literals; files are numbered by their place in paths.
func encodeDerived(s *Snapshot, paths []string) (derived, entities, literals []byte) {
	num := make(map[string]int, len(paths))
	for i, p := range paths {
		num[p] = i
	}
	var w recordWriter
	names := s.SymbolNames()
	w.size(len(names))
	for _, name := range names {
		refs := s.Symbols[name]
		w.str(name)
		w.size(len(refs))
		for _, r := range refs {
			w.int(num[r.Path])
			w.int(r.Def)
		}
	}
	w.size(len(s.Graph.Edges))
	for _, es := range s.Graph.Edges {
		w.size(len(es))
		for _, e := range es {
			w.int(e.To)
			w.b = binary.BigEndian.AppendUint64(w.b, math.Float64bits(e.Weight))
		}
	}
	st := s.lexicalStats()
	w.int(st.Chunks)
	for _, t := range st.Terms {
		w.num(t)
	}
	ents, err := s.Entities.MarshalBinary()
	if err != nil {
		ents = nil // the next start aggregates the entities again
	}
	var l recordWriter
	lits := s.literals()
	l.size(len(lits))
	for _, x := range lits {
		l.int(num[x.path])
		l.int(x.line)
		l.str(x.text)
	}
	return w.b, ents, l.b
}

// readDerived reads what encodeDerived wrote for the files fs holds, paths in order; the literals
// are read when first asked for.
func readDerived(sec, lits stateSection, fs *fileSet, paths []string) (*savedDerived, error) {
	b, err := sectionBytes(sec)
	if err != nil {
		return nil, err
	}
	var parsed []string
	for _, p := range paths {
		if fs.m[p].head.Parsed {
			parsed = append(parsed, p)
		}
	}
	nparsed := len(parsed)
	r := recordReader{b: b} // no sharing of words: every symbol name comes once
	// a file's number is an int, not a size: a size is bounded by the bytes left
	pathOf := func(r *recordReader) string {
		i := r.int()
		if i < 0 || i >= len(paths) {
			r.bad, r.b = true, nil
			return ""
		}
		return paths[i]
	}
	nsym := r.size()
	d := &savedDerived{paths: parsed, symbols: make(map[string][]SymbolRef, nsym), names: make([]string, 0, nsym)}
	for range nsym {
		name := r.str()
		if len(d.names) > 0 && name <= d.names[len(d.names)-1] {
			return nil, errors.New("the symbols are out of order")
		}
		d.names = append(d.names, name)
		refs := make([]SymbolRef, r.size())
		for i := range refs {
			refs[i] = SymbolRef{Path: pathOf(&r), Def: r.int()}
		}
		d.symbols[name] = refs
	}
	d.edges = make([][]GraphEdge, r.size())
	if len(d.edges) != nparsed {
		return nil, errors.New("the graph does not match the files")
	}
	for i := range d.edges {
		n := r.size()
		if n == 0 {
			continue // nil, as buildGraph leaves a file without edges
		}
		es := make([]GraphEdge, n)
		for j := range es {
			es[j].To = r.int()
			if es[j].To < 0 || es[j].To >= nparsed || len(r.b) < 8 {
				return nil, errors.New("a graph edge leads nowhere")
			}
			es[j].Weight = math.Float64frombits(binary.BigEndian.Uint64(r.b))
			r.b = r.b[8:]
		}
		d.edges[i] = es
	}
	d.stats.Chunks = r.int()
	for i := range d.stats.Terms {
		d.stats.Terms[i] = r.num()
	}
	if r.bad || len(r.b) > 0 {
		return nil, errors.New("the derived section is cut short or damaged")
	}
	d.literals = func() ([]literalRef, error) {
		b, err := sectionBytes(lits)
		if err != nil {
			return nil, err
		}
		r := recordReader{b: b, words: map[string]string{}}
		out := make([]literalRef, 0, r.size())
		for range cap(out) {
			x := literalRef{path: pathOf(&r), line: r.int(), text: r.str()}
			x.pieces = literalPieces(x.text)
			out = append(out, x)
		}
		if r.bad || len(r.b) > 0 {
			return nil, errors.New("the literals are cut short or damaged")
		}
		return out, nil
	}
	return d, nil
}

// readEntities reads the entity map's section; an empty one is no map (it could not be written).
func readEntities(sec stateSection) (*entity.Map, error) {
	b, err := sectionBytes(sec)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	return entity.UnmarshalMap(b)
}

// snapshot is the snapshot the state holds: its derived part as saved, or derived again from the
// records when the state has none.
func (st *cacheState) snapshot(root string) *Snapshot {
	d := st.derived
	if d == nil || d.entities == nil {
		return newSnapshot(root, st.Generation, st.Records, st.Skipped, st.History)
	}
	s := &Snapshot{Root: root, Generation: st.Generation, Updated: time.Now(), files: st.Records, Skipped: st.Skipped,
		History: st.History, Paths: d.paths, Symbols: d.symbols, Entities: d.entities, stats: &d.stats, savedLits: d.literals, names: d.names}
	s.Graph = &Graph{Nodes: s.Paths, Edges: d.edges, index: make(map[string]int, len(s.Paths))}
	for i, p := range s.Paths {
		s.Graph.index[p] = i
	}
	return s
}
