package index

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/parse"
)

// The records of the state file are written field by field, in the order of their types' fields:
// numbers as varints, strings with their length, lists with theirs. Decoding a workspace's records
// this way takes a fraction of what gob's reflection takes, and the state is read at every start.
// TestRecordCodecKeepsEveryField fails when a field is added to one of these types and not here.

type recordWriter struct{ b []byte }

func (w *recordWriter) num(v int64)  { w.b = binary.AppendVarint(w.b, v) }
func (w *recordWriter) size(n int)   { w.b = binary.AppendUvarint(w.b, uint64(n)) }
func (w *recordWriter) str(s string) { w.size(len(s)); w.b = append(w.b, s...) }
func (w *recordWriter) int(v int)    { w.num(int64(v)) }
func (w *recordWriter) flags(v ...bool) {
	var b byte
	for i, f := range v {
		if f {
			b |= 1 << i
		}
	}
	w.b = append(w.b, b)
}

func (w *recordWriter) record(r *Record) {
	w.str(r.Path)
	w.str(r.Language)
	w.str(r.Hash)
	w.num(r.Size)
	w.num(r.ModTime)
	w.int(r.Lines)
	w.str(r.Skip)
	w.flags(r.File != nil)
	if f := r.File; f != nil {
		w.str(f.Language)
		w.size(len(f.Definitions))
		for _, d := range f.Definitions {
			w.str(d.Name)
			w.str(d.Kind)
			w.str(d.Signature)
			w.str(d.Doc)
			w.str(d.Parent)
			w.int(d.StartLine)
			w.int(d.EndLine)
			w.int(d.StartByte)
			w.int(d.EndByte)
		}
		w.size(len(f.References))
		for _, x := range f.References {
			w.str(x.Name)
			w.int(x.Line)
			w.int(x.Enclosing)
		}
		w.size(len(f.Comments))
		for _, c := range f.Comments {
			w.str(c.Text)
			w.int(c.StartLine)
			w.int(c.EndLine)
			w.str(c.Marker)
		}
		w.size(len(f.Imports))
		for _, x := range f.Imports {
			w.str(x.Path)
			w.int(x.Line)
		}
		w.size(len(f.Literals))
		for _, x := range f.Literals {
			w.str(x.Text)
			w.int(x.Line)
		}
	}
	e := r.Entity
	w.str(e.Path)
	w.size(len(e.Terms))
	for _, t := range e.Terms {
		w.str(t.Words)
		w.int(t.Count)
		w.flags(t.Named, t.TypeName, t.Defines, t.Folder, t.FolderName, t.FileName)
	}
	w.int(e.Names)
	w.int(e.Plain)
	w.flags(e.Test, e.Util, e.Infra)
	w.size(len(r.Chunks))
	for _, c := range r.Chunks {
		w.str(c.ID)
		w.str(c.Symbol)
		w.str(c.Kind)
		w.int(c.StartLine)
		w.int(c.EndLine)
		w.str(c.Target)
		for _, n := range c.Terms {
			w.num(int64(n))
		}
	}
}

var errRecord = errors.New("a record is cut short or damaged")

// recordReader reads records back; the first fault sets bad and every later read returns zero values.
type recordReader struct {
	b     []byte
	bad   bool
	words map[string]string // short strings seen before (kinds, languages, names), shared
}

func (r *recordReader) num() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) int() int {
	v := r.num()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.bad, r.b = true, nil
		return 0
	}
	return int(v)
}

// size is a length, bounded by the bytes left: a damaged length cannot make a huge allocation.
func (r *recordReader) size() int {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > uint64(len(r.b)-n) {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *recordReader) str() string {
	n := r.size()
	if n == 0 || r.bad {
		return ""
	}
	b := r.b[:n]
	r.b = r.b[n:]
	if n <= 32 && r.words != nil {
		if s, ok := r.words[string(b)]; ok {
			return s
		}
		s := string(b)
		r.words[s] = s
		return s
	}
	return string(b)
}

func (r *recordReader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *recordReader) uint32() uint32 {
	if len(r.b) < 4 {
		r.bad, r.b = true, nil
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *recordReader) flags(v ...*bool) {
	b := r.byte()
	for i, f := range v {
		*f = b&(1<<i) != 0
	}
}

func (r *recordReader) record() (*Record, error) {
	rec := &Record{Path: r.str(), Language: r.str(), Hash: r.str(), Size: r.num(), ModTime: r.num(), Lines: r.int(), Skip: r.str()}
	if r.byte() == 1 {
		f := &parse.File{Language: r.str()}
		if n := r.size(); n > 0 {
			f.Definitions = make([]parse.Definition, n)
			for i := range f.Definitions {
				d := &f.Definitions[i]
				d.Name, d.Kind, d.Signature, d.Doc, d.Parent = r.str(), r.str(), r.str(), r.str(), r.str()
				d.StartLine, d.EndLine, d.StartByte, d.EndByte = r.int(), r.int(), r.int(), r.int()
			}
		}
		if n := r.size(); n > 0 {
			f.References = make([]parse.Reference, n)
			for i := range f.References {
				x := &f.References[i]
				x.Name, x.Line, x.Enclosing = r.str(), r.int(), r.int()
			}
		}
		if n := r.size(); n > 0 {
			f.Comments = make([]parse.Comment, n)
			for i := range f.Comments {
				c := &f.Comments[i]
				c.Text, c.StartLine, c.EndLine, c.Marker = r.str(), r.int(), r.int(), r.str()
			}
		}
		if n := r.size(); n > 0 {
			f.Imports = make([]parse.Import, n)
			for i := range f.Imports {
				f.Imports[i] = parse.Import{Path: r.str(), Line: r.int()}
			}
		}
		if n := r.size(); n > 0 {
			f.Literals = make([]parse.Literal, n)
			for i := range f.Literals {
				f.Literals[i] = parse.Literal{Text: r.str(), Line: r.int()}
			}
		}
		rec.File = f
	}
	e := &rec.Entity
	e.Path = r.str()
	if n := r.size(); n > 0 {
		e.Terms = make([]entity.Term, n)
		for i := range e.Terms {
			t := &e.Terms[i]
			t.Words, t.Count = r.str(), r.int()
			r.flags(&t.Named, &t.TypeName, &t.Defines, &t.Folder, &t.FolderName, &t.FileName)
		}
	}
	e.Names, e.Plain = r.int(), r.int()
	r.flags(&e.Test, &e.Util, &e.Infra)
	if n := r.size(); n > 0 {
		rec.Chunks = make([]ChunkRef, n)
		for i := range rec.Chunks {
			c := &rec.Chunks[i]
			c.ID, c.Symbol, c.Kind, c.StartLine, c.EndLine, c.Target = r.str(), r.str(), r.str(), r.int(), r.int(), r.str()
			for j := range c.Terms {
				c.Terms[j] = int32(r.int())
			}
		}
	}
	if r.bad {
		return nil, errRecord
	}
	return rec, nil
}
