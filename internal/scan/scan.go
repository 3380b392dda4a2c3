// Package scan picks, from a workspace's files as they are on disk, those that match a query's
// strong terms best: the files to read first when a question comes before the index is whole. It
// reads each file once and looks each of its words up in the query's terms, so it costs the tree's
// bytes whatever the number of terms, spread over every core. What that read learns of every file's
// words (Words) answers the questions that follow without reading the files again.
package scan

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// MaxTerms bounds the terms of one query: a file's hits are one bit each.
const MaxTerms = 64

// MaxPostings bounds what Words keeps: a file's distinct words count one each (4 bytes, and the
// words' keys). Past it the read goes on as Best's and keeps nothing.
const MaxPostings = 24 << 20

// Term is what a file is searched for, lower case: a word (an identifier whole, or one of its parts
// split at case changes and underscores), a phrase (bytes, such as an error message), or a path's
// tail (a stack frame's file).
type Term struct {
	Text   string
	Weight float64
}

// Query is the terms of one question.
type Query struct {
	Words   []Term
	Phrases []Term
	Paths   []Term
	// Weight is how much a file's match counts, by its path (nil: as much as any other's)
	Weight func(path string) float64
}

// Match is a file and how well it matches.
type Match struct {
	Path  string
	Score float64
}

// Best reads the files (slash-separated, relative to root) and returns at most most of them, best
// first, that match at least one term. A word found in many files counts less (its inverse document
// frequency, as BM25 weighs it); a word in a file's path counts twice.
func Best(ctx context.Context, root string, files []string, q Query, most int, maxSize int64) ([]Match, error) {
	out, _, err := best(ctx, root, files, q, most, maxSize, false)
	return out, err
}

// Learn is Best that keeps what it read of every file's words, for the questions that follow
// (Words.Best); words is nil when they would take more than MaxPostings.
func Learn(ctx context.Context, root string, files []string, q Query, most int, maxSize int64) ([]Match, *Words, error) {
	return best(ctx, root, files, q, most, maxSize, true)
}

// Words is what one read of a workspace's files learned of their words: the files that hold each
// word, whole or by its parts, lower case (as Best looks a query's words up).
type Words struct {
	root     string
	files    []string
	sizes    []int32 // of the files read, in bytes
	maxSize  int64
	postings map[uint64][]uint32 // a word's hash (hashWord) -> the files that hold it
	count    int                 // the postings, all told
}

// Postings is how many file-word pairs w keeps.
func (w *Words) Postings() int { return w.count }

// Best is the package's Best for the files w was learned from, as they were then: their words are
// looked up in w, and only the files that hold every word of one of the query's phrases are read.
// read counts those.
func (w *Words) Best(ctx context.Context, q Query, most int) (out []Match, read int, err error) {
	t := compile(q)
	inText := make([]uint64, len(w.files))
	inPath := t.pathHits(w.files)
	t.lookUp(w.postings, inText)
	for j, p := range t.phrases {
		holds := w.holding(phraseWords(p))
		read += len(holds)
		err := readEach(ctx, w.root, w.files, holds, w.maxSize, func(_, i int, text, lower []byte) []byte {
			lower = appendLower(lower[:0], text)
			if bytes.Contains(lower, p) {
				inText[i] |= t.phraseBits[j]
			}
			return lower
		})
		if err != nil {
			return nil, read, err
		}
	}
	return t.rank(w.files, w.sizes, inText, inPath, most), read, nil
}

// holding returns the files that hold every one of the words (hashes); every file when there are none.
func (w *Words) holding(words []uint64) []int {
	var out []int
	if len(words) == 0 {
		for i := range w.files {
			out = append(out, i)
		}
		return out
	}
	count := make([]uint8, len(w.files))
	for n, k := range words {
		for _, i := range w.postings[k] {
			if int(count[i]) == n {
				count[i]++
			}
		}
	}
	for i, c := range count {
		if int(c) == len(words) {
			out = append(out, i)
		}
	}
	return out
}

// best is Best, and Learn when learn is set.
func best(ctx context.Context, root string, files []string, q Query, most int, maxSize int64, learn bool) ([]Match, *Words, error) {
	t := compile(q)
	inText := make([]uint64, len(files)) // the terms found in each file's text
	inPath := t.pathHits(files)          // and in its path
	// each reader keeps the words of the files it reads, which the query's words are looked up in
	// once all are read; past MaxPostings a file's words are looked up in the query's as it is read
	sizes := make([]int32, len(files))
	kept := make([]map[uint64][]uint32, readers())
	seen := make([]wordSet, readers())
	var count atomic.Int64
	all := make([]int, len(files))
	for i := range all {
		all[i] = i
	}
	err := readEach(ctx, root, files, all, maxSize, func(r, i int, text, lower []byte) []byte {
		sizes[i] = int32(len(text))
		if learn && count.Load() < MaxPostings {
			if kept[r] == nil {
				kept[r] = map[uint64][]uint32{}
			}
			count.Add(int64(record(text, &seen[r], kept[r], uint32(i))))
		} else {
			inText[i] = lookupWords(text, t.words)
		}
		if len(t.phrases) > 0 {
			lower = appendLower(lower[:0], text)
			for j, p := range t.phrases {
				if bytes.Contains(lower, p) {
					inText[i] |= t.phraseBits[j]
				}
			}
		}
		return lower
	})
	if err != nil {
		return nil, nil, err
	}
	// the readers' files are apart: their postings join without overlap
	var postings map[uint64][]uint32
	for _, m := range kept {
		if len(m) > len(postings) {
			m, postings = postings, m
		}
		for k, v := range m {
			postings[k] = append(postings[k], v...)
		}
	}
	t.lookUp(postings, inText)
	var w *Words
	if n := count.Load(); learn && n < MaxPostings {
		w = &Words{root: root, files: files, sizes: sizes, maxSize: maxSize, postings: postings, count: int(n)}
	}
	return t.rank(files, sizes, inText, inPath, most), w, nil
}

// terms is a query ready for the scan: its terms, at most MaxTerms, each a bit.
type terms struct {
	all        []Term
	words      map[string]uint64
	phrases    [][]byte
	phraseBits []uint64
	paths      []string
	pathBits   []uint64
	weight     func(path string) float64
}

func compile(q Query) *terms {
	all := append(append(append([]Term(nil), q.Words...), q.Phrases...), q.Paths...)
	if len(all) > MaxTerms {
		sort.SliceStable(all, func(i, j int) bool { return all[i].Weight > all[j].Weight })
		all = all[:MaxTerms]
	}
	t := &terms{all: all, words: map[string]uint64{}, weight: q.Weight}
	for i, term := range all {
		bit := uint64(1) << i
		switch {
		case term.Text == "":
		case i < len(q.Words):
			t.words[term.Text] |= bit
		case i < len(q.Words)+len(q.Phrases):
			t.phrases, t.phraseBits = append(t.phrases, []byte(term.Text)), append(t.phraseBits, bit)
		default:
			t.paths, t.pathBits = append(t.paths, term.Text), append(t.pathBits, bit)
		}
	}
	return t
}

// pathHits are the terms each file's path holds: words, and paths it ends with.
func (t *terms) pathHits(files []string) []uint64 {
	in := make([]uint64, len(files))
	for i, f := range files {
		rel := strings.ToLower(f)
		in[i] = lookupWords([]byte(rel), t.words)
		for j, p := range t.paths {
			if strings.HasSuffix(rel, p) && (len(rel) == len(p) || rel[len(rel)-len(p)-1] == '/') {
				in[i] |= t.pathBits[j]
			}
		}
	}
	return in
}

// lookUp adds to inText the words of the query each file holds, by postings.
func (t *terms) lookUp(postings map[uint64][]uint32, inText []uint64) {
	for word, bits := range t.words {
		for _, i := range postings[hashWord([]byte(word))] {
			inText[i] |= bits
		}
	}
}

// rank scores the files that match: a term's weight times its rarity across the files, twice in a
// path, the text's share normalised by the file's length as BM25 does (a long file holds many words
// by chance), then weighted by the query's Weight.
func (t *terms) rank(files []string, sizes []int32, inText, inPath []uint64, most int) []Match {
	idf := make([]float64, len(t.all))
	for b := range t.all {
		df := 0
		for i := range files {
			if (inText[i]|inPath[i])&(1<<b) != 0 {
				df++
			}
		}
		if df > 0 {
			idf[b] = t.all[b].Weight * math.Log(1+float64(len(files))/float64(df))
		}
	}
	var total, n float64
	for _, sz := range sizes {
		if sz > 0 {
			total, n = total+float64(sz), n+1
		}
	}
	avg := max(total/max(n, 1), 1)
	var out []Match
	for i, f := range files {
		if inText[i]|inPath[i] == 0 {
			continue
		}
		text, path := 0.0, 0.0
		for b := range t.all {
			if inText[i]&(1<<b) != 0 {
				text += idf[b]
			}
			if inPath[i]&(1<<b) != 0 {
				path += 2 * idf[b]
			}
		}
		norm := 1 - lengthB + lengthB*float64(sizes[i])/avg
		score := text*(lengthK1+1)/(1+lengthK1*norm) + path
		if t.weight != nil {
			score *= t.weight(f)
		}
		out = append(out, Match{Path: f, Score: score})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	if len(out) > most {
		out = out[:most]
	}
	return out
}

// BM25's length normalisation, mild: a word counts once per file however often it is there, so a long
// file gains less than BM25's counts would give it.
const (
	lengthB  = 0.1
	lengthK1 = 1.2
)

// readers is how many files are read at once.
func readers() int { return runtime.GOMAXPROCS(0) }

// readEach reads the files at the indices idx on every core and hands each that is text to fn with
// its reader's number and that reader's buffer, which fn returns for the next file. Unreadable,
// binary and oversized files are passed over: the index will say why.
func readEach(ctx context.Context, root string, files []string, idx []int, maxSize int64, fn func(reader, i int, text, buf []byte) []byte) error {
	next := make(chan int, 256)
	var wg sync.WaitGroup
	for r := range readers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := range next {
				text, err := readSmall(filepath.Join(root, filepath.FromSlash(files[i])), maxSize)
				if err != nil || bytes.IndexByte(text[:min(len(text), 8000)], 0) >= 0 {
					continue
				}
				buf = fn(r, i, text, buf)
			}
		}()
	}
	for _, i := range idx {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return ctx.Err()
}

// readSmall reads a file of at most max bytes; a larger one reads as nothing.
func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, os.ErrInvalid
	}
	var b bytes.Buffer
	_, err = b.ReadFrom(f)
	return b.Bytes(), err
}

// lookupWords returns the bits of the words of text found in words.
func lookupWords(text []byte, words map[string]uint64) uint64 {
	var hits uint64
	eachWord(text, func(w []byte) { hits |= words[string(w)] })
	return hits
}

// record adds file to the postings of the words of text, once each, and returns how many it added.
// The words are told apart in seen, a set that fits the cache, so that the postings, which do not,
// are looked up once per word of the file rather than once per word in it.
func record(text []byte, seen *wordSet, postings map[uint64][]uint32, file uint32) int {
	seen.reset()
	eachWord(text, func(w []byte) { seen.add(hashWord(w)) })
	for _, h := range seen.list {
		postings[h] = append(postings[h], file)
	}
	return len(seen.list)
}

// wordSet is a set of word keys, open addressing over a table that a reset empties by moving on a
// generation rather than by clearing it.
type wordSet struct {
	keys []uint64
	gens []uint32
	gen  uint32
	list []uint64 // the keys, as they came
}

func (s *wordSet) reset() {
	s.gen++
	s.list = s.list[:0]
	if len(s.keys) == 0 {
		s.keys, s.gens, s.gen = make([]uint64, 1024), make([]uint32, 1024), 1
	}
}

func (s *wordSet) add(h uint64) {
	mask := uint64(len(s.keys) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if s.gens[i] != s.gen {
			s.keys[i], s.gens[i] = h, s.gen
			s.list = append(s.list, h)
			if 2*len(s.list) > len(s.keys) {
				s.grow()
			}
			return
		}
		if s.keys[i] == h {
			return
		}
	}
}

// grow doubles the table and puts the keys back.
func (s *wordSet) grow() {
	list := s.list
	s.keys, s.gens, s.gen, s.list = make([]uint64, 2*len(s.keys)), make([]uint32, 2*len(s.keys)), 1, nil
	for _, h := range list {
		s.add(h)
	}
}

// hashWord is the key of a word in the postings (FNV-1a): two words that share one are taken for the
// same, a chance small enough for a scan.
func hashWord(w []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range w {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// phraseWords are the keys of a phrase's words, which a file that holds the phrase holds too: its
// first and last could be part of a longer word there (a message cut at a placeholder, `%sname`), but
// a message's literal starts and ends at a quote or a space in all but a few.
func phraseWords(p []byte) []uint64 {
	var out []uint64
	for start, end := nextWord(p, 0); start < end; start, end = nextWord(p, end) {
		if end-start >= 2 && end-start <= maxWord && len(out) < maxPhraseWords {
			out = append(out, hashWord(p[start:end]))
		}
	}
	return out
}

// nextWord finds the first run of word bytes in text at or after i: start and end are equal when
// there is none.
func nextWord(text []byte, i int) (start, end int) {
	for i < len(text) && !wordByte(text[i]) {
		i++
	}
	start = i
	for i < len(text) && wordByte(text[i]) {
		i++
	}
	return start, i
}

const (
	maxWord        = 64 // the longest word the scan looks at
	maxPhraseWords = 8  // enough of a phrase's words to narrow the files it is looked for in
)

// eachWord calls fn with each word of text, lower case: each identifier whole and each of its parts
// (at underscores, before an upper-case letter that follows a lower-case one or a digit, and before
// the last capital of a run that a lower-case letter follows: HTTPServer). w is valid during the call.
func eachWord(text []byte, fn func(w []byte)) {
	var buf [maxWord]byte
	for start, end := nextWord(text, 0); start < end; start, end = nextWord(text, end) {
		tok := text[start:end]
		if len(tok) < 2 || len(tok) > maxWord {
			continue
		}
		low := appendLower(buf[:0], tok)
		fn(low)
		from := 0
		for j := 1; j <= len(tok); j++ {
			last := j == len(tok)
			under := !last && tok[j] == '_'
			camel := !last && isUpper(tok[j]) && (isLower(tok[j-1]) || isUpper(tok[j-1]) && j+1 < len(tok) && isLower(tok[j+1]))
			if !last && !under && !camel {
				continue
			}
			if j-from >= 2 && j-from < len(tok) {
				fn(low[from:j])
			}
			from = j
			if under {
				from = j + 1
			}
		}
	}
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// appendLower appends b with ASCII letters in lower case.
func appendLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
