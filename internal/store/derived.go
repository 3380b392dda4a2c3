package store

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/codec"
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Derived is what a state file keeps of what its records derive, so that a start need not read every
// record to derive it again: the symbols, the reference graph, BM25's statistics, the entity map and
// the code's string literals.
type Derived struct {
	Paths    []string                       // the parsed files, sorted: the graph's nodes
	Symbols  map[string][]records.SymbolRef // definitions by name
	Names    []string                       // the symbols' names, sorted
	Edges    [][]records.Edge               // the graph's edges of each node, by the node's place in Paths
	Stats    bm25.Stats                     // BM25's collection statistics
	Entities *entity.Map
	// Literals are read from the state file when first asked for (or, when saving, made then).
	Literals func() ([]records.Literal, error)
}

// head writes a record's entry of the table: its path, what a build compares without reading it,
// and its encoding's length and checksum.
func (w *recordWriter) head(path string, h Head, body []byte) {
	w.Str(path)
	w.Str(h.Language)
	w.Str(h.Hash)
	w.Str(h.Skip)
	w.Num(h.Size)
	w.Num(h.ModTime)
	w.Int(h.Lines)
	w.Flags(h.Parsed)
	w.Int(h.Defs)
	w.Int(h.Refs)
	w.Int(h.ChunkCount)
	w.Int(len(body))
	w.Uint32(crc32.Checksum(body, crcTable))
}

// raw is the entry's encoding as a state file holds it, nil once the record was read (or when it
// never came from a file); a damaged one is nil, so that it is written from what was read instead.
func (e *Entry) raw() []byte {
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
func (e *Entry) savedHead() Head {
	h := e.head
	if e.damaged.Load() {
		h.ModTime = -1
	}
	return h
}

// readTable reads the table of records, placing each in the body section, and gives their paths in
// order, as the table holds them.
func readTable(table, body stateSection, src *stateFile) (*Files, []string, error) {
	b, err := sectionBytes(table)
	if err != nil {
		return nil, nil, err
	}
	r := codec.Reader{B: b, Words: src.words}
	fs := &Files{m: map[string]*Entry{}}
	var paths []string
	off := int64(0)
	prev := ""
	for i := 0; len(r.B) > 0; i++ {
		p := r.Str()
		e := &Entry{head: Head{Language: r.Str(), Hash: r.Str(), Skip: r.Str(), Size: r.Num(), ModTime: r.Num(), Lines: r.Int()}}
		r.Flags(&e.head.Parsed)
		e.head.Defs, e.head.Refs, e.head.ChunkCount = r.Int(), r.Int(), r.Int()
		length := int64(r.Int())
		crc := r.Uint32()
		switch {
		case r.Bad:
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

// encodeDerived writes d's symbols (by name), graph and BM25 statistics, and apart from them its
// entity map and its string literals; files are numbered by their place in paths.
func encodeDerived(d *Derived, paths []string) (derived, entities, literals []byte) {
	num := make(map[string]int, len(paths))
	for i, p := range paths {
		num[p] = i
	}
	var w codec.Writer
	w.Size(len(d.Names))
	for _, name := range d.Names {
		refs := d.Symbols[name]
		w.Str(name)
		w.Size(len(refs))
		for _, r := range refs {
			w.Int(num[r.Path])
			w.Int(r.Def)
		}
	}
	w.Size(len(d.Edges))
	for _, es := range d.Edges {
		w.Size(len(es))
		for _, e := range es {
			w.Int(e.To)
			w.Float(e.Weight)
		}
	}
	w.Int(d.Stats.Chunks)
	for _, t := range d.Stats.Terms {
		w.Num(t)
	}
	ents, err := d.Entities.MarshalBinary()
	if err != nil {
		ents = nil // the next start aggregates the entities again
	}
	var l codec.Writer
	var lits []records.Literal
	if d.Literals != nil {
		lits, _ = d.Literals()
	}
	l.Size(len(lits))
	for _, x := range lits {
		l.Int(num[x.Path])
		l.Int(x.Line)
		l.Str(x.Text)
	}
	return w.B, ents, l.B
}

// readDerived reads what encodeDerived wrote for the files fs holds, paths in order; the literals
// are read when first asked for.
func readDerived(sec, lits stateSection, fs *Files, paths []string) (*Derived, error) {
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
	r := codec.Reader{B: b} // no sharing of words: every symbol name comes once
	// a file's number is an int, not a size: a size is bounded by the bytes left
	pathOf := func(r *codec.Reader) string {
		i := r.Int()
		if i < 0 || i >= len(paths) {
			r.Fail()
			return ""
		}
		return paths[i]
	}
	nsym := r.Size()
	d := &Derived{Paths: parsed, Symbols: make(map[string][]records.SymbolRef, nsym), Names: make([]string, 0, nsym)}
	for range nsym {
		name := r.Str()
		if len(d.Names) > 0 && name <= d.Names[len(d.Names)-1] {
			return nil, errors.New("the symbols are out of order")
		}
		d.Names = append(d.Names, name)
		refs := make([]records.SymbolRef, r.Size())
		for i := range refs {
			refs[i] = records.SymbolRef{Path: pathOf(&r), Def: r.Int()}
		}
		d.Symbols[name] = refs
	}
	d.Edges = make([][]records.Edge, r.Size())
	if len(d.Edges) != nparsed {
		return nil, errors.New("the graph does not match the files")
	}
	for i := range d.Edges {
		n := r.Size()
		if n == 0 {
			continue // nil, as a file without edges has
		}
		es := make([]records.Edge, n)
		for j := range es {
			es[j] = records.Edge{To: r.Int(), Weight: r.Float()}
			if r.Bad || es[j].To < 0 || es[j].To >= nparsed {
				return nil, errors.New("a graph edge leads nowhere")
			}
		}
		d.Edges[i] = es
	}
	d.Stats.Chunks = r.Int()
	for i := range d.Stats.Terms {
		d.Stats.Terms[i] = r.Num()
	}
	if r.Bad || len(r.B) > 0 {
		return nil, errors.New("the derived section is cut short or damaged")
	}
	d.Literals = func() ([]records.Literal, error) {
		b, err := sectionBytes(lits)
		if err != nil {
			return nil, err
		}
		r := codec.Reader{B: b, Words: map[string]string{}}
		out := make([]records.Literal, 0, r.Size())
		for range cap(out) {
			out = append(out, records.Literal{Path: pathOf(&r), Line: r.Int(), Text: r.Str()})
		}
		if r.Bad || len(r.B) > 0 {
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
