package server

import (
	"fmt"
	"net/url"
	"path/filepath"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
)

// lineIndex converts between LSP positions (line, UTF-16 code units) and byte offsets of one text.
type lineIndex struct {
	text   []byte
	starts []int // byte offset of each line's first byte
}

func newLineIndex(text []byte) *lineIndex {
	starts := []int{0}
	for i, c := range text {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{text: text, starts: starts}
}

// lines counts the lines; a text ending in a newline has an empty last line.
func (l *lineIndex) lines() int { return len(l.starts) }

// line returns line n's bytes (0-based) without its line break.
func (l *lineIndex) line(n int) []byte {
	if n < 0 || n >= len(l.starts) {
		return nil
	}
	end := len(l.text)
	if n+1 < len(l.starts) {
		end = l.starts[n+1] - 1
	}
	if end > l.starts[n] && l.text[end-1] == '\r' {
		end--
	}
	return l.text[l.starts[n]:end]
}

// offset is the byte offset of a position; a character past the line's end means the end of the line
// (as the protocol asks). A line past the text is an error.
func (l *lineIndex) offset(p protocol.Position) (int, error) {
	n := int(p.Line)
	if n >= len(l.starts) {
		return 0, fmt.Errorf("line %d is past the end of the document (%d lines)", n+1, len(l.starts))
	}
	return l.starts[n] + byteColumn(l.line(n), int(p.Character)), nil
}

// position is the LSP position of a byte offset (clamped to the text).
func (l *lineIndex) position(off int) protocol.Position {
	off = max(0, min(off, len(l.text)))
	// the last line starting at or before off
	lo, hi := 0, len(l.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if l.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	line := l.line(lo)
	col := off - l.starts[lo]
	if col > len(line) {
		col = len(line)
	}
	return protocol.Position{Line: uint32(lo), Character: uint32(utf16Len(line[:col]))}
}

// lineEnd is the position at the end of line n (0-based).
func (l *lineIndex) lineEnd(n int) protocol.Position {
	return protocol.Position{Line: uint32(n), Character: uint32(utf16Len(l.line(n)))}
}

// byteColumn is the byte offset within line of a column counted in UTF-16 code units; a column inside
// a surrogate pair or past the end is rounded to the next character boundary.
func byteColumn(line []byte, units int) int {
	i := 0
	for i < len(line) && units > 0 {
		r, size := utf8.DecodeRune(line[i:])
		units -= utf16Units(r)
		i += size
	}
	return i
}

func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		n += utf16Units(r)
		b = b[size:]
	}
	return n
}

func utf16Units(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// pathOfURI is the local path of a file: URI; other schemes (untitled:, git:) have none.
func pathOfURI(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%s is not a URI: %v", index.Quote(raw), err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("%s is not a file: URI", index.Quote(raw))
	}
	if u.Path == "" {
		return "", fmt.Errorf("%s names no path", index.Quote(raw))
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), nil
}

// fileURI is the file: URI of an absolute path.
func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}
