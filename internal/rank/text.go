package rank

import (
	"bytes"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// qualified is a definition's name under its parent's, as the index names chunks.
func qualified(d parse.Definition) string {
	if d.Parent != "" {
		return d.Parent + "." + d.Name
	}
	return d.Name
}

func splitLines(src []byte) [][]byte {
	if len(src) == 0 {
		return nil
	}
	ls := bytes.Split(src, []byte("\n"))
	if len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// joinLines returns lines from..to (1-based, inclusive), clamped to the file.
func joinLines(lines [][]byte, from, to int) string {
	if from < 1 {
		from = 1
	}
	if to > len(lines) {
		to = len(lines)
	}
	if from > to {
		return ""
	}
	return string(bytes.Join(lines[from-1:to], []byte("\n")))
}

// capBytes cuts s to at most n bytes, on a character's boundary.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	// do not leave half a UTF-8 sequence behind
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}
