// Package sieve picks, from a workspace's files as they are on disk, those that match a query's
// strong terms best: the files to read first when a question comes before the index is whole. It
// reads each file once and looks each of its words up in the query's terms, so it costs the tree's
// bytes whatever the number of terms, spread over every core.
package sieve

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
)

// MaxTerms bounds the terms of one query: a file's hits are one bit each.
const MaxTerms = 64

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
	terms := append(append(append([]Term(nil), q.Words...), q.Phrases...), q.Paths...)
	if len(terms) > MaxTerms {
		sort.SliceStable(terms, func(i, j int) bool { return terms[i].Weight > terms[j].Weight })
		terms = terms[:MaxTerms]
	}
	words := map[string]uint64{}
	var phrases [][]byte
	var phraseBits []uint64
	var paths []string
	var pathBits []uint64
	for i, t := range terms {
		bit := uint64(1) << i
		switch {
		case i < len(q.Words) && t.Text != "":
			words[t.Text] |= bit
		case i < len(q.Words)+len(q.Phrases) && t.Text != "":
			phrases, phraseBits = append(phrases, []byte(t.Text)), append(phraseBits, bit)
		case t.Text != "":
			paths, pathBits = append(paths, t.Text), append(pathBits, bit)
		}
	}
	inText := make([]uint64, len(files)) // the terms found in each file's text
	inPath := make([]uint64, len(files)) // and in its path
	next := make(chan int, 256)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lower []byte
			for i := range next {
				rel := strings.ToLower(files[i])
				inPath[i] = lookupWords([]byte(rel), words)
				for j, p := range paths {
					if strings.HasSuffix(rel, p) && (len(rel) == len(p) || rel[len(rel)-len(p)-1] == '/') {
						inPath[i] |= pathBits[j]
					}
				}
				text, err := readSmall(filepath.Join(root, filepath.FromSlash(files[i])), maxSize)
				if err != nil || bytes.IndexByte(text[:min(len(text), 8000)], 0) >= 0 {
					continue // unreadable or binary: the index will say so
				}
				inText[i] = lookupWords(text, words)
				if len(phrases) > 0 {
					lower = appendLower(lower[:0], text)
					for j, p := range phrases {
						if bytes.Contains(lower, p) {
							inText[i] |= phraseBits[j]
						}
					}
				}
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// a term's weight times its rarity across the files
	idf := make([]float64, len(terms))
	for b := range terms {
		df := 0
		for i := range files {
			if (inText[i]|inPath[i])&(1<<b) != 0 {
				df++
			}
		}
		if df > 0 {
			idf[b] = terms[b].Weight * math.Log(1+float64(len(files))/float64(df))
		}
	}
	var out []Match
	for i, f := range files {
		if inText[i]|inPath[i] == 0 {
			continue
		}
		score := 0.0
		for b := range terms {
			if inText[i]&(1<<b) != 0 {
				score += idf[b]
			}
			if inPath[i]&(1<<b) != 0 {
				score += 2 * idf[b]
			}
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
	return out, nil
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

// lookupWords returns the bits of the words of text found in words: each identifier whole and each of
// its parts, lower case.
func lookupWords(text []byte, words map[string]uint64) uint64 {
	var hits uint64
	var buf [64]byte
	for i := 0; i < len(text); {
		if !wordByte(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && wordByte(text[i]) {
			i++
		}
		tok := text[start:i]
		if len(tok) < 2 || len(tok) > len(buf) {
			continue
		}
		low := appendLower(buf[:0], tok)
		hits |= words[string(low)]
		// the parts: at underscores, before an upper-case letter that follows a lower-case one or a
		// digit, and before the last capital of a run that a lower-case letter follows (HTTPServer)
		from := 0
		for j := 1; j <= len(tok); j++ {
			end := j == len(tok)
			under := !end && tok[j] == '_'
			camel := !end && isUpper(tok[j]) && (isLower(tok[j-1]) || isUpper(tok[j-1]) && j+1 < len(tok) && isLower(tok[j+1]))
			if !end && !under && !camel {
				continue
			}
			if j-from >= 2 && j-from < len(tok) {
				hits |= words[string(low[from:j])]
			}
			from = j
			if under {
				from = j + 1
			}
		}
	}
	return hits
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
