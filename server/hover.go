package server

import (
	"context"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

func (s *Server) hover(ctx context.Context, p protocol.TextDocumentPositionParams) (any, error) {
	text, pl, err := s.text(string(p.TextDocument.URI))
	if err != nil {
		return nil, nil // a document we cannot read has nothing to say
	}
	lines := newLineIndex(text)
	off, err := lines.offset(p.Position)
	if err != nil {
		return nil, nil
	}
	start, end := wordAt(text, off)
	if start == end {
		return nil, nil
	}
	release(ctx)
	md := pl.sess.Snapshot(ctx).Describe(string(text[start:end]))
	if md == "" {
		return nil, nil
	}
	r := protocol.Range{Start: lines.position(start), End: lines.position(end)}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}, Range: &r}, nil
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordAt returns the identifier or word around a byte offset, also when the offset is just past it
// (the cursor at a word's end); start == end when there is none.
func wordAt(text []byte, off int) (start, end int) {
	if off > len(text) {
		off = len(text)
	}
	if r, _ := utf8.DecodeRune(text[off:]); off == len(text) || !isWordRune(r) {
		r, size := utf8.DecodeLastRune(text[:off])
		if off == 0 || !isWordRune(r) {
			return off, off
		}
		off -= size
	}
	start, end = off, off
	for start > 0 {
		r, size := utf8.DecodeLastRune(text[:start])
		if !isWordRune(r) {
			break
		}
		start -= size
	}
	for end < len(text) {
		r, size := utf8.DecodeRune(text[end:])
		if !isWordRune(r) {
			break
		}
		end += size
	}
	return start, end
}
