package pack

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
)

const DefaultTokenizer = "o200k_base" // when no encoding is named

// Tokenizer counts tokens exactly as the named encoding does. One per encoding per process, shared by
// every caller: the encoding takes a few hundred milliseconds to build and its counts are cached.
type Tokenizer struct {
	name   string
	enc    *tiktoken.Tiktoken
	pieces *pieceCounter // nil: the library counts
	cache  *countCache
}

var (
	loaderOnce sync.Once
	tokMu      sync.Mutex
	tokByName  = map[string]*Tokenizer{}
)

// NewTokenizer returns the shared tokenizer for "o200k_base" (the default when name is "") or
// "cl100k_base". The encodings ship inside the module: nothing is fetched.
func NewTokenizer(name string) (*Tokenizer, error) {
	if err := CheckTokenizer(name); err != nil {
		return nil, err
	}
	if name == "" {
		name = DefaultTokenizer
	}
	tokMu.Lock()
	defer tokMu.Unlock()
	if t, ok := tokByName[name]; ok {
		return t, nil
	}
	// The library's default loader downloads; this one reads the embedded files.
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(embeddedRanks{}) })
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", name, err)
	}
	t := &Tokenizer{name: name, enc: enc, cache: newCountCache(4 << 20)}
	ranksMu.Lock()
	if ranks := loadedRanks[name+".tiktoken"]; ranks != nil {
		t.pieces = &pieceCounter{ranks: ranks, o200k: name == "o200k_base"}
	}
	ranksMu.Unlock()
	tokByName[name] = t
	return t, nil
}

// CheckTokenizer says whether NewTokenizer knows the name, without loading anything.
func CheckTokenizer(name string) error {
	switch name {
	case "", "o200k_base", "cl100k_base":
		return nil
	}
	return fmt.Errorf("unknown tokenizer %q (known: o200k_base, cl100k_base)", name)
}

// Name is the encoding's name (o200k_base, cl100k_base); "" for no tokenizer.
func (t *Tokenizer) Name() string {
	if t == nil {
		return ""
	}
	return t.name
}

func (t *Tokenizer) ready() bool { return t != nil && t.enc != nil }

// Count is the number of tokens in text. The text is cut at line boundaries where the encoding's
// pre-tokenizer always splits (see nextCut), so the pieces' counts add up to the whole's exactly and
// each piece is counted once per process. A Tokenizer not made by NewTokenizer counts bytes, which is
// never less than the tokens.
func (t *Tokenizer) Count(text string) int {
	if !t.ready() {
		return len(text)
	}
	n := 0
	for text != "" {
		cut := nextCut(text)
		n += t.countPiece(text[:cut])
		text = text[cut:]
	}
	return n
}

func (t *Tokenizer) countPiece(s string) int {
	if n, ok := t.cache.get(s); ok {
		return n
	}
	n := -1
	if t.pieces != nil {
		n = t.pieces.count(s)
	}
	switch {
	case n >= 0:
	case len(s) > maxLibraryPiece:
		n = 3 * len(s) // an invalid byte is read as U+FFFD, at most three tokens
	default:
		n = len(t.enc.EncodeOrdinary(s))
	}
	t.cache.put(s, n)
	return n
}

// clip shortens text to at most max tokens, on a rune boundary, marking the cut with "…".
func (t *Tokenizer) clip(text string, max int) string {
	if max <= 0 {
		return ""
	}
	// a longer text is over max without counting it whole, and its first max tokens are in its start
	if len(text) <= maxTokenBytes*max && t.Count(text) <= max {
		return text
	}
	if !t.ready() {
		return trimToValid(text[:max-1]) + "…"
	}
	if limit := maxTokenBytes * (max + 1); len(text) > limit {
		text = trimToValid(text[:limit])
	}
	keep := max - 1 // room for the ellipsis, which is one token or two
	for keep > 0 {
		s := t.prefix(text, keep) + "…"
		if t.Count(s) <= max {
			return s
		}
		keep--
	}
	return ""
}

// maxTokenBytes is the most bytes a token of either encoding holds.
const maxTokenBytes = 128

// maxLibraryPiece is the longest text the library's encoder is given: its merges take time quadratic
// in a piece's length. Only text that is not valid UTF-8 goes to it.
const maxLibraryPiece = 16 << 10

// prefix is the bytes of text's first n tokens, a rune cut in half dropped.
func (t *Tokenizer) prefix(text string, n int) string {
	if t.pieces != nil {
		if end, ok := t.pieces.prefix(text, n); ok {
			return trimToValid(text[:end])
		}
	}
	if max := min(maxLibraryPiece, maxTokenBytes*(n+1)); len(text) > max {
		text = text[:max]
	}
	ids := t.enc.EncodeOrdinary(text)
	return trimToValid(t.enc.Decode(ids[:min(n, len(ids))]))
}

// minTokens is a lower bound on the tokens of text, cheap to compute; it stops counting past stop.
// Every maximal run of ASCII letters is at least one pre-token of its own in both encodings (two runs
// joined by an apostrophe count as one, for contractions), and a run of n ASCII digits is at least
// ceil(n/3) pre-tokens. Other characters are skipped as if absent, which can only join runs, so the
// bound holds. Runs end at newlines, so code inside an item contributes at least this much to it.
func minTokens(text string, stop int) int {
	n, digits := 0, 0
	inLetters, apostrophe := false, false
	for i := 0; i < len(text) && n <= stop; i++ {
		b := text[i]
		switch {
		case b >= utf8.RuneSelf:
			// skipped
		case 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z':
			if !inLetters && !apostrophe {
				n++
			}
			inLetters, apostrophe, digits = true, false, 0
		case '0' <= b && b <= '9':
			if digits%3 == 0 {
				n++
			}
			digits++
			inLetters, apostrophe = false, false
		case b == '\'' && inLetters:
			inLetters, apostrophe, digits = false, true, 0
		default:
			inLetters, apostrophe, digits = false, false, 0
		}
	}
	return n
}

// trimToValid drops a rune cut in half at the end of s.
func trimToValid(s string) string {
	for s != "" {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size > 1 {
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}

// nextCut is the length of the first piece of text that can be counted on its own: up to and including
// a newline that is followed by a line where the split is safe, or the whole text.
//
// Why it is exact, for both encodings' patterns: a pre-token that contains a newline is either
// whitespace ending in a newline (`\s*[\r\n]+`, which wins over the look-ahead alternatives whenever
// the rest of the run ends in a newline) or punctuation followed by `[\r\n/]*`. Neither can continue
// into a line that starts with optional spaces or tabs and then a visible ASCII character (not "/"
// when there is no indentation). So no pre-token crosses such a boundary, the pre-tokens on each side
// are the same as when each side is encoded alone, and BPE works within pre-tokens.
func nextCut(text string) int {
	from := 0
	for {
		i := strings.IndexByte(text[from:], '\n')
		if i < 0 {
			return len(text)
		}
		end := from + i + 1
		if end < len(text) && safeStart(text[end:]) {
			return end
		}
		if end >= len(text) {
			return len(text)
		}
		from = end
	}
}

func safeStart(line string) bool {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) {
		return false
	}
	c := line[i]
	if c < 0x21 || c > 0x7e {
		return false
	}
	return i > 0 || c != '/'
}

// countCache keeps counts in two generations: when the newer one outgrows its byte limit it becomes the
// older one and the oldest is dropped, so memory stays bounded and pieces in use stay cached.
type countCache struct {
	mu       sync.Mutex
	limit    int
	size     int
	cur, old map[string]int
}

const (
	maxCachedPiece = 64 << 10
	entryOverhead  = 48 // a map entry's own bytes, roughly: string header, int, hash slot
)

func newCountCache(limit int) *countCache {
	return &countCache{limit: limit, cur: map[string]int{}}
}

func (c *countCache) get(s string) (int, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.cur[s]; ok {
		return n, true
	}
	if n, ok := c.old[s]; ok {
		c.add(s, n)
		return n, true
	}
	return 0, false
}

func (c *countCache) put(s string, n int) {
	if c == nil || len(s) > maxCachedPiece {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.add(s, n)
}

func (c *countCache) add(s string, n int) {
	if _, ok := c.cur[s]; ok {
		return
	}
	cost := len(s) + entryOverhead
	if c.size+cost > c.limit {
		c.old, c.cur, c.size = c.cur, map[string]int{}, 0
	}
	// A clone, so the cache does not keep the caller's whole text alive through a substring.
	c.cur[strings.Clone(s)] = n
	c.size += cost
}
