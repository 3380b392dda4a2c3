package pack

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// The encodings split text into pieces with a regular expression before they merge bytes (o200k_base's
// and cl100k_base's patterns, below), and the library runs it with a backtracking engine that made
// counting the largest cost of a query. The scanners here take the same pieces with the same
// priorities, by hand; the tests hold them to the library's counts on the repository's own files and
// on random text of every character class the patterns name.
//
//	o200k_base:  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	            |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	            |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//	cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+

// Character classes of the patterns.
const (
	clsL     = 1 << iota // \p{L}
	clsN                 // \p{N}
	clsUpper             // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clsLower             // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	clsSpace             // \s
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOf(r)
	}
	return t
}()

func classOf(r rune) uint8 {
	var c uint8
	if unicode.IsLetter(r) {
		c |= clsL
	}
	if unicode.IsNumber(r) {
		c |= clsN
	}
	if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M) {
		c |= clsUpper
	}
	if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) {
		c |= clsLower
	}
	if unicode.IsSpace(r) {
		c |= clsSpace
	}
	return c
}

// scanner walks one text's runes and their classes.
type scanner struct {
	rs  []rune
	cls []uint8
}

func newScanner(s string) *scanner {
	sc := &scanner{rs: make([]rune, 0, len(s)), cls: make([]uint8, 0, len(s))}
	for _, r := range s {
		sc.rs = append(sc.rs, r)
		if r < utf8.RuneSelf {
			sc.cls = append(sc.cls, asciiClass[r])
		} else {
			sc.cls = append(sc.cls, classOf(r))
		}
	}
	return sc
}

// run is the end of the longest run from i of runes in class c.
func (sc *scanner) run(i int, c uint8) int {
	for i < len(sc.rs) && sc.cls[i]&c != 0 {
		i++
	}
	return i
}

func (sc *scanner) is(i int, c uint8) bool { return i < len(sc.rs) && sc.cls[i]&c != 0 }

// other is [^\r\n\p{L}\p{N}], the optional rune before a word.
func (sc *scanner) other(i int) bool {
	return i < len(sc.rs) && sc.rs[i] != '\r' && sc.rs[i] != '\n' && sc.cls[i]&(clsL|clsN) == 0
}

// punct is [^\s\p{L}\p{N}].
func (sc *scanner) punct(i int) bool { return i < len(sc.rs) && sc.cls[i]&(clsL|clsN|clsSpace) == 0 }

// contraction is the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or i.
func (sc *scanner) contraction(i int) int {
	if i+1 >= len(sc.rs) || sc.rs[i] != '\'' {
		return i
	}
	second := func(want rune) int {
		if i+2 < len(sc.rs) && unicode.ToLower(sc.rs[i+2]) == want {
			return i + 3
		}
		return i
	}
	switch unicode.ToLower(sc.rs[i+1]) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		return second('e')
	case 'l':
		return second('l')
	}
	return i
}

// starts are where a word may begin after the optional leading rune: past it first, as the greedy
// ? tries.
func (sc *scanner) starts(i int) []int {
	if sc.other(i) {
		return []int{i + 1, i}
	}
	return []int{i}
}

// spaces is the end of the whitespace alternatives at i: \s*[\r\n]+ | \s+(?!\S) | \s+; i when none.
func (sc *scanner) spaces(i int) int {
	s := sc.run(i, clsSpace)
	if s == i {
		return i
	}
	for k := s - 1; k >= i; k-- { // \s*[\r\n]+ ends after the run's last line break
		if sc.rs[k] == '\r' || sc.rs[k] == '\n' {
			return k + 1
		}
	}
	if s < len(sc.rs) && s-i >= 2 {
		return s - 1 // \s+(?!\S) leaves the last space to the word after it
	}
	return s
}

// digits is \p{N}{1,3} at i, or i.
func (sc *scanner) digits(i int) int {
	e := i
	for e < len(sc.rs) && e-i < 3 && sc.cls[e]&clsN != 0 {
		e++
	}
	return e
}

// punctuation is ` ?[^\s\p{L}\p{N}]+` then a run of tail runes, or i.
func (sc *scanner) punctuation(i int, tail func(rune) bool) int {
	j := i
	if sc.rs[i] == ' ' && sc.punct(i+1) {
		j = i + 1
	}
	if !sc.punct(j) {
		return i
	}
	for j < len(sc.rs) && sc.punct(j) {
		j++
	}
	for j < len(sc.rs) && tail(sc.rs[j]) {
		j++
	}
	return j
}

func breakOrSlash(r rune) bool { return r == '\r' || r == '\n' || r == '/' }
func lineBreak(r rune) bool    { return r == '\r' || r == '\n' }

// nextO200k is the end of o200k_base's piece at i.
func (sc *scanner) nextO200k(i int) int {
	for _, j := range sc.starts(i) { // upper* lower+ contraction?
		a := sc.run(j, clsUpper)
		for k := a; k >= j; k-- {
			if sc.is(k, clsLower) {
				return sc.contraction(sc.run(k, clsLower))
			}
		}
	}
	for _, j := range sc.starts(i) { // upper+ lower* contraction?
		if a := sc.run(j, clsUpper); a > j {
			return sc.contraction(sc.run(a, clsLower))
		}
	}
	return sc.rest(i, breakOrSlash)
}

// nextCl100k is the end of cl100k_base's piece at i.
func (sc *scanner) nextCl100k(i int) int {
	if e := sc.contraction(i); e > i {
		return e
	}
	for _, j := range sc.starts(i) {
		if sc.is(j, clsL) {
			return sc.run(j, clsL)
		}
	}
	return sc.rest(i, lineBreak)
}

// rest are the alternatives both patterns end with: digits, punctuation, whitespace.
func (sc *scanner) rest(i int, tail func(rune) bool) int {
	if e := sc.digits(i); e > i {
		return e
	}
	if e := sc.punctuation(i, tail); e > i {
		return e
	}
	if e := sc.spaces(i); e > i {
		return e
	}
	return i + 1 // not reached: every rune starts one of the alternatives
}

// pieceCounter counts tokens as an encoding does: its pieces, then byte-pair merges by rank.
type pieceCounter struct {
	ranks map[string]int
	o200k bool
}

// count is the tokens of s; -1 when s is not valid UTF-8 (the library reads such bytes as U+FFFD).
func (pc *pieceCounter) count(s string) int {
	if !utf8.ValidString(s) {
		return -1
	}
	sc := newScanner(s)
	off := 0
	n := 0
	for i := 0; i < len(sc.rs); {
		var j int
		if pc.o200k {
			j = sc.nextO200k(i)
		} else {
			j = sc.nextCl100k(i)
		}
		end := off
		for _, r := range sc.rs[i:j] {
			end += utf8.RuneLen(r)
		}
		n += pc.merges(s[off:end])
		off, i = end, j
	}
	return n
}

// merges is the tokens of one piece: merged pairwise, lowest rank first, as the library does.
func (pc *pieceCounter) merges(piece string) int {
	if _, ok := pc.ranks[piece]; ok || len(piece) == 1 {
		return 1
	}
	type part struct{ start, rank int }
	parts := make([]part, len(piece)+1)
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := pc.ranks[piece[parts[i].start:parts[i+skip+2].start]]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := range parts {
		parts[i] = part{i, math.MaxInt}
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		best, at := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < best {
				best, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts[at].rank = rank(at, 1)
		if at > 0 {
			parts[at-1].rank = rank(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return len(parts) - 1
}
