package store

import (
	"errors"

	"github.com/ctxmap/ctxmap/internal/codec"
	"github.com/ctxmap/ctxmap/internal/model"
	"github.com/ctxmap/ctxmap/internal/parse"
)

// The records of the state file are written field by field, in the order of their types' fields:
// numbers as varints, strings with their length, lists with theirs. Decoding a workspace's records
// this way takes a fraction of what gob's reflection takes, and the state is read at every start.
// TestRecordCodecKeepsEveryField fails when a field is added to one of these types and not here.

// recordWriter writes records and their table entries.
type recordWriter struct{ codec.Writer }

func (w *recordWriter) record(r *model.Record) {
	w.Str(r.Path)
	w.Str(r.Language)
	w.Str(r.Hash)
	w.Num(r.Size)
	w.Num(r.ModTime)
	w.Int(r.Lines)
	w.Str(r.Skip)
	w.Flags(r.File != nil)
	if f := r.File; f != nil {
		w.Str(f.Language)
		w.Size(len(f.Definitions))
		for _, d := range f.Definitions {
			w.Str(d.Name)
			w.Str(d.Kind)
			w.Str(d.Signature)
			w.Str(d.Doc)
			w.Str(d.Parent)
			w.Int(d.StartLine)
			w.Int(d.EndLine)
			w.Int(d.StartByte)
			w.Int(d.EndByte)
		}
		w.Size(len(f.References))
		for _, x := range f.References {
			w.Str(x.Name)
			w.Int(x.Line)
			w.Int(x.Enclosing)
		}
		w.Size(len(f.Comments))
		for _, c := range f.Comments {
			w.Str(c.Text)
			w.Int(c.StartLine)
			w.Int(c.EndLine)
			w.Str(c.Marker)
		}
		w.Size(len(f.Imports))
		for _, x := range f.Imports {
			w.Str(x.Path)
			w.Int(x.Line)
		}
		w.Size(len(f.Literals))
		for _, x := range f.Literals {
			w.Str(x.Text)
			w.Int(x.Line)
		}
	}
	e := r.Entity
	w.Str(e.Path)
	w.Size(len(e.Terms))
	for _, t := range e.Terms {
		w.Str(t.Words)
		w.Int(t.Count)
		w.Flags(t.Named, t.TypeName, t.Defines, t.Folder, t.FolderName, t.FileName)
	}
	w.Int(e.Names)
	w.Int(e.Plain)
	w.Flags(e.Test, e.Util, e.Infra)
	w.Size(len(r.Chunks))
	for _, c := range r.Chunks {
		w.Str(c.ID)
		w.Str(c.Symbol)
		w.Str(c.Kind)
		w.Int(c.StartLine)
		w.Int(c.EndLine)
		w.Str(c.Target)
		for _, n := range c.Terms {
			w.Num(int64(n))
		}
	}
}

var errRecord = errors.New("a record is cut short or damaged")

// recordReader reads records back; see codec.Reader for how a fault is kept.
type recordReader struct{ codec.Reader }

func (r *recordReader) record() (*model.Record, error) {
	rec := &model.Record{Path: r.Str(), Language: r.Str(), Hash: r.Str(), Size: r.Num(), ModTime: r.Num(), Lines: r.Int(), Skip: r.Str()}
	if r.Byte() == 1 {
		f := &parse.File{Language: r.Str()}
		if n := r.Size(); n > 0 {
			f.Definitions = make([]parse.Definition, n)
			for i := range f.Definitions {
				d := &f.Definitions[i]
				d.Name, d.Kind, d.Signature, d.Doc, d.Parent = r.Str(), r.Str(), r.Str(), r.Str(), r.Str()
				d.StartLine, d.EndLine, d.StartByte, d.EndByte = r.Int(), r.Int(), r.Int(), r.Int()
			}
		}
		if n := r.Size(); n > 0 {
			f.References = make([]parse.Reference, n)
			for i := range f.References {
				x := &f.References[i]
				x.Name, x.Line, x.Enclosing = r.Str(), r.Int(), r.Int()
			}
		}
		if n := r.Size(); n > 0 {
			f.Comments = make([]parse.Comment, n)
			for i := range f.Comments {
				c := &f.Comments[i]
				c.Text, c.StartLine, c.EndLine, c.Marker = r.Str(), r.Int(), r.Int(), r.Str()
			}
		}
		if n := r.Size(); n > 0 {
			f.Imports = make([]parse.Import, n)
			for i := range f.Imports {
				f.Imports[i] = parse.Import{Path: r.Str(), Line: r.Int()}
			}
		}
		if n := r.Size(); n > 0 {
			f.Literals = make([]parse.Literal, n)
			for i := range f.Literals {
				f.Literals[i] = parse.Literal{Text: r.Str(), Line: r.Int()}
			}
		}
		rec.File = f
	}
	e := &rec.Entity
	e.Path = r.Str()
	if n := r.Size(); n > 0 {
		e.Terms = make([]model.Term, n)
		for i := range e.Terms {
			t := &e.Terms[i]
			t.Words, t.Count = r.Str(), r.Int()
			r.Flags(&t.Named, &t.TypeName, &t.Defines, &t.Folder, &t.FolderName, &t.FileName)
		}
	}
	e.Names, e.Plain = r.Int(), r.Int()
	r.Flags(&e.Test, &e.Util, &e.Infra)
	if n := r.Size(); n > 0 {
		rec.Chunks = make([]model.ChunkRef, n)
		for i := range rec.Chunks {
			c := &rec.Chunks[i]
			c.ID, c.Symbol, c.Kind, c.StartLine, c.EndLine, c.Target = r.Str(), r.Str(), r.Str(), r.Int(), r.Int(), r.Str()
			for j := range c.Terms {
				c.Terms[j] = int32(r.Int())
			}
		}
	}
	if r.Bad {
		return nil, errRecord
	}
	return rec, nil
}
