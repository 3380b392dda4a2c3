package records

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names are the names of a workspace's definitions, sorted, with each name's letter set so that the
// names a query asks about are found by scanning bits: a query asks for a few dozen, and mapping the
// 170,000 names of a large tree once by their lower case took a one-shot query longer than its BM25
// search.
type Names struct {
	Sorted  []string
	letters []uint64 // letterSet of each name
	unusual []int    // the names, by index, that are not plain ASCII
}

// NewNames indexes names, which must be sorted.
func NewNames(sorted []string) *Names {
	n := &Names{Sorted: sorted, letters: make([]uint64, len(sorted))}
	for i, s := range sorted {
		n.letters[i] = letterSet(s)
		if !isASCII(s) {
			n.unusual = append(n.unusual, i)
		}
	}
	return n
}

// Folded are the names that lower-case to l, ASCII names first, each group in sorted order.
func (n *Names) Folded(l string) []string {
	want := letterSet(l)
	var out []string
	for i, have := range n.letters {
		// an ASCII name lower-cases to l only if it has l's letters; other names are checked below
		if want&^have == 0 && len(n.Sorted[i]) == len(l) && asciiLowersTo(n.Sorted[i], l) {
			out = append(out, n.Sorted[i])
		}
	}
	for _, i := range n.unusual {
		if strings.ToLower(n.Sorted[i]) == l {
			out = append(out, n.Sorted[i])
		}
	}
	return out
}

// WithLetters are the names, sorted, that hold every character of pattern, case folded: the only ones
// a fuzzy match of pattern can find, picked out without scoring each name.
func (n *Names) WithLetters(pattern string) []string {
	want := letterSet(pattern)
	var out []string
	for i, have := range n.letters {
		if want&^have == 0 {
			out = append(out, n.Sorted[i])
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiLowersTo reports whether the ASCII name n lower-cases to l, of the same length.
func asciiLowersTo(n, l string) bool {
	for i := 0; i < len(n); i++ {
		c := n[i]
		if c >= utf8.RuneSelf {
			return false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != l[i] {
			return false
		}
	}
	return true
}

// letterSet is the set of characters in s as bits: ASCII letters case folded, digits, and other
// ASCII characters sharing the bits left. A non-ASCII rune adds the ASCII letters it folds to (the
// Kelvin sign to k), and nothing else, so a pattern's set is within a name's whenever the name can match.
func letterSet(s string) uint64 {
	var set uint64
	for _, r := range s {
		if r >= utf8.RuneSelf {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f < utf8.RuneSelf {
					set |= asciiBit(byte(f))
				}
			}
			continue
		}
		set |= asciiBit(byte(r))
	}
	return set
}

func asciiBit(c byte) uint64 {
	switch {
	case 'a' <= c && c <= 'z':
		return 1 << (c - 'a')
	case 'A' <= c && c <= 'Z':
		return 1 << (c - 'A')
	case '0' <= c && c <= '9':
		return 1 << (26 + c - '0')
	}
	return 1 << (36 + c%28)
}
