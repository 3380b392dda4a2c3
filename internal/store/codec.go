package store

import (
	"errors"

	"github.com/ctxmap/ctxmap/internal/codec"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
)

// The records of the state file are written field by field, in the order of their types' fields:
// numbers as varints, strings with their length, lists with theirs. Decoding a workspace's records
// this way takes a fraction of what gob's reflection takes, and the state is read at every start.
// TestRecordCodecKeepsEveryField fails when a field is added to one of these types and not here.

// recordWriter writes records and their table entries.
type recordWriter struct{ codec.Writer }

func (w *recordWriter) record(r *records.Record) {
	w.Strs(r.Path, r.Language, r.Hash)
	w.Num(r.Size)
	w.Num(r.ModTime)
	w.Int(r.Lines)
	w.Str(r.Skip)
	w.Flags(r.File != nil)
	if f := r.File; f != nil {
		w.Str(f.Language)
		codec.List(&w.Writer, f.Definitions, func(d parse.Definition) {
			w.Strs(d.Name, d.Kind, d.Signature, d.Doc, d.Parent)
			w.Ints(d.StartLine, d.EndLine, d.StartByte, d.EndByte)
		})
		codec.List(&w.Writer, f.References, func(x parse.Reference) { w.Str(x.Name); w.Ints(x.Line, x.Enclosing) })
		codec.List(&w.Writer, f.Comments, func(c parse.Comment) { w.Str(c.Text); w.Ints(c.StartLine, c.EndLine); w.Str(c.Marker) })
		codec.List(&w.Writer, f.Imports, func(x parse.Import) { w.Str(x.Path); w.Int(x.Line) })
		codec.List(&w.Writer, f.Literals, func(x parse.Literal) { w.Str(x.Text); w.Int(x.Line) })
	}
	e := r.Entity
	w.Str(e.Path)
	codec.List(&w.Writer, e.Terms, func(t records.Term) {
		w.Str(t.Words)
		w.Int(t.Count)
		w.Flags(t.Named, t.TypeName, t.Defines, t.Folder, t.FolderName, t.FileName)
	})
	w.Ints(e.Names, e.Plain)
	w.Flags(e.Test, e.Util, e.Infra)
	codec.List(&w.Writer, r.Chunks, func(c records.ChunkRef) {
		w.Strs(c.ID, c.Symbol, c.Kind)
		w.Ints(c.StartLine, c.EndLine)
		w.Str(c.Target)
		for _, n := range c.Terms {
			w.Num(int64(n))
		}
	})
}

var errRecord = errors.New("a record is cut short or damaged")

// recordReader reads records back; see codec.Reader for how a fault is kept.
type recordReader struct{ codec.Reader }

func (r *recordReader) record() (*records.Record, error) {
	rec := &records.Record{Path: r.Str(), Language: r.Str(), Hash: r.Str(), Size: r.Num(), ModTime: r.Num(), Lines: r.Int(), Skip: r.Str()}
	if r.Byte() == 1 {
		f := &parse.File{Language: r.Str()}
		f.Definitions = codec.ReadList(&r.Reader, func() (d parse.Definition) {
			d.Name, d.Kind, d.Signature, d.Doc, d.Parent = r.Str(), r.Str(), r.Str(), r.Str(), r.Str()
			d.StartLine, d.EndLine, d.StartByte, d.EndByte = r.Int(), r.Int(), r.Int(), r.Int()
			return d
		})
		f.References = codec.ReadList(&r.Reader, func() parse.Reference {
			return parse.Reference{Name: r.Str(), Line: r.Int(), Enclosing: r.Int()}
		})
		f.Comments = codec.ReadList(&r.Reader, func() parse.Comment {
			return parse.Comment{Text: r.Str(), StartLine: r.Int(), EndLine: r.Int(), Marker: r.Str()}
		})
		f.Imports = codec.ReadList(&r.Reader, func() parse.Import { return parse.Import{Path: r.Str(), Line: r.Int()} })
		f.Literals = codec.ReadList(&r.Reader, func() parse.Literal { return parse.Literal{Text: r.Str(), Line: r.Int()} })
		rec.File = f
	}
	e := &rec.Entity
	e.Path = r.Str()
	e.Terms = codec.ReadList(&r.Reader, func() (t records.Term) {
		t.Words, t.Count = r.Str(), r.Int()
		r.Flags(&t.Named, &t.TypeName, &t.Defines, &t.Folder, &t.FolderName, &t.FileName)
		return t
	})
	e.Names, e.Plain = r.Int(), r.Int()
	r.Flags(&e.Test, &e.Util, &e.Infra)
	rec.Chunks = codec.ReadList(&r.Reader, func() (c records.ChunkRef) {
		c.ID, c.Symbol, c.Kind, c.StartLine, c.EndLine, c.Target = r.Str(), r.Str(), r.Str(), r.Int(), r.Int(), r.Str()
		for j := range c.Terms {
			c.Terms[j] = int32(r.Int())
		}
		return c
	})
	if r.Bad {
		return nil, errRecord
	}
	return rec, nil
}
