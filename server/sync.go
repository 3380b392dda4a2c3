package server

import (
	"context"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"
)

// documents are the editor's open buffers, by URI as the client wrote it. Buffers inside the workspace
// overlay the files on disk in the index, so that hover and context see unsaved edits.
type documents struct {
	mu   sync.Mutex
	open map[string]*document
}

// document is immutable once stored: an edit stores a new one.
type document struct {
	uri     string
	place   // its root's session and its path in it; rel "" outside every root (untitled buffers)
	version int32
	text    []byte
}

func (d *documents) get(uri string) *document {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.open[uri]
}

func (d *documents) put(doc *document) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.open[doc.uri] = doc
}

// all are the open buffers.
func (d *documents) all() []*document {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*document, 0, len(d.open))
	for _, doc := range d.open {
		out = append(out, doc)
	}
	return out
}

func (d *documents) remove(uri string) *document {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc := d.open[uri]
	delete(d.open, uri)
	return doc
}

func (s *Server) didOpen(_ context.Context, p protocol.DidOpenTextDocumentParams) (any, error) {
	doc := &document{uri: string(p.TextDocument.URI), version: p.TextDocument.Version, text: []byte(p.TextDocument.Text)}
	doc.place, _ = s.placeOf(doc.uri)
	s.docs.put(doc)
	if doc.rel != "" {
		doc.sess.Edited(doc.rel, doc.text)
	}
	return nil, nil
}

// contentChange is TextDocumentContentChangeEvent with the range optional: the library's value Range
// cannot tell a full-text change from an insert at 0:0.
type contentChange struct {
	Range *protocol.Range `json:"range"`
	Text  string          `json:"text"`
}

// didChangeParams are DidChangeTextDocumentParams with contentChange for the changes.
type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                          `json:"contentChanges"`
}

func (s *Server) didChange(_ context.Context, p didChangeParams) (any, error) {
	uri := string(p.TextDocument.URI)
	old := s.docs.get(uri)
	if old == nil {
		return nil, invalidParams("textDocument/didChange: %s is not open", uri)
	}
	text := old.text
	for i, c := range p.ContentChanges {
		var err error
		if text, err = applyChange(text, c); err != nil {
			// the buffer is now unknown: ask for a fresh didOpen by forgetting this one
			s.docs.remove(uri)
			if old.rel != "" {
				old.sess.BufferClosed(old.rel)
			}
			return nil, invalidParams("textDocument/didChange: change %d of %s: %v", i+1, uri, err)
		}
	}
	doc := &document{uri: uri, place: old.place, version: p.TextDocument.Version, text: text}
	s.docs.put(doc)
	if doc.rel != "" {
		doc.sess.Edited(doc.rel, text)
	}
	return nil, nil
}

// applyChange returns a new text: stored texts are shared with the index and never modified.
func applyChange(text []byte, c contentChange) ([]byte, error) {
	if c.Range == nil {
		return []byte(c.Text), nil
	}
	l := newLineIndex(text)
	start := l.editOffset(c.Range.Start)
	end := l.editOffset(c.Range.End)
	if start > end {
		return nil, fmt.Errorf("the range starts after it ends (%d:%d > %d:%d)",
			c.Range.Start.Line, c.Range.Start.Character, c.Range.End.Line, c.Range.End.Character)
	}
	out := make([]byte, 0, len(text)-(end-start)+len(c.Text))
	out = append(out, text[:start]...)
	out = append(out, c.Text...)
	return append(out, text[end:]...), nil
}

// editOffset is offset with a line past the end meaning the end of the text, which editors send for
// "to the end of the document".
func (l *lineIndex) editOffset(p protocol.Position) int {
	off, err := l.offset(p)
	if err != nil {
		return len(l.text)
	}
	return off
}

func (s *Server) didClose(_ context.Context, p protocol.DidCloseTextDocumentParams) (any, error) {
	if doc := s.docs.remove(string(p.TextDocument.URI)); doc != nil && doc.rel != "" {
		doc.sess.BufferClosed(doc.rel)
	}
	return nil, nil
}

// didSave changes nothing: the buffer still overlays the file, and the watcher sees the write.
func (s *Server) didSave(context.Context) (any, error) { return nil, nil }

// text is what the server knows of a document: the open buffer, else the file on disk; and where it
// is (its rel is "" outside every root).
func (s *Server) text(uri string) (text []byte, pl place, err error) {
	if doc := s.docs.get(uri); doc != nil {
		return doc.text, doc.place, nil
	}
	if pl, err = s.placeOf(uri); err != nil {
		return nil, pl, err
	}
	text, err = pl.sess.ReadFile(pl.rel)
	if err != nil {
		return nil, pl, fmt.Errorf("read %s: %v", pl.rel, err)
	}
	return text, pl, nil
}
