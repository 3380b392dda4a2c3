package pack

import (
	"container/heap"
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
	n := 0
	if !pc.pieces(s, func(piece string) bool {
		n += len(pc.tokens(piece))
		return true
	}) {
		return -1
	}
	return n
}

// prefix is the length of the bytes of s's first n tokens (all of s when it has fewer); false when s
// is not valid UTF-8. The library's Decode of its first n tokens gives the same bytes.
func (pc *pieceCounter) prefix(s string, n int) (int, bool) {
	end := 0
	ok := pc.pieces(s, func(piece string) bool {
		ends := pc.tokens(piece)
		if len(ends) >= n {
			if n > 0 {
				end += ends[n-1]
			}
			n = 0
			return false
		}
		n -= len(ends)
		end += len(piece)
		return true
	})
	return end, ok
}

// pieces calls each with the pre-tokens of s in order until it returns false; false when s is not
// valid UTF-8.
func (pc *pieceCounter) pieces(s string, each func(piece string) bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	sc := newScanner(s)
	off := 0
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
		if !each(s[off:end]) {
			break
		}
		off, i = end, j
	}
	return true
}

// tokens are the end offsets of one piece's tokens: its bytes merged pairwise, the pair of lowest rank
// first and the leftmost of equal ones, as the library does. The library scans every pair at each
// merge, quadratic in the piece's length (minutes for a 200 KB word); here a heap holds the pairs and
// a list the parts, so a piece costs n log n.
func (pc *pieceCounter) tokens(piece string) []int {
	n := len(piece)
	if _, ok := pc.ranks[piece]; ok || n == 1 {
		return []int{n}
	}
	next := make([]int, n) // the start of the part after the one starting at i; n for the last
	prev := make([]int, n) // the start of the part before; -1 for the first
	rank := make([]int, n) // the rank of the part at i joined with the next, MaxInt when none
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	pair := func(i int) int {
		if j := next[i]; j < n {
			if r, ok := pc.ranks[piece[i:next[j]]]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	h := make(pairHeap, 0, n)
	for i := range n {
		if rank[i] = pair(i); rank[i] != math.MaxInt {
			h = append(h, pairAt{rank[i], i})
		}
	}
	heap.Init(&h)
	gone := make([]bool, n)
	for h.Len() > 0 {
		p := heap.Pop(&h).(pairAt)
		if gone[p.at] || rank[p.at] != p.rank {
			continue // stale: the part was merged into its left one, or its pair changed since
		}
		j := next[p.at]
		gone[j] = true
		next[p.at] = next[j]
		if next[j] < n {
			prev[next[j]] = p.at
		}
		for _, i := range []int{p.at, prev[p.at]} {
			if i < 0 {
				continue
			}
			if rank[i] = pair(i); rank[i] != math.MaxInt {
				heap.Push(&h, pairAt{rank[i], i})
			}
		}
	}
	var ends []int
	for i := 0; i < n; i = next[i] {
		ends = append(ends, next[i])
	}
	return ends
}

// pairAt is a pair of parts by its rank and the start of its left part: the heap's order is the
// library's choice of the next merge.
type pairAt struct{ rank, at int }

type pairHeap []pairAt

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	return h[i].rank < h[j].rank || h[i].rank == h[j].rank && h[i].at < h[j].at
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairAt)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
