package rank

import (
	"container/list"
	"sync"

	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/words"
)

// A file's words by line, for the body_terms feature: which of the text's words a definition's lines
// use. Splitting every line into words is the costly part of describing a file's definitions, and the
// same few files are described for query after query, so each file's words are kept by content hash
// for the files used last.

// bodyWords is a file's vocabulary and, per line, the vocabulary's words it uses.
type bodyWords struct {
	vocab map[string]int32
	lines [][]int32

	defsOnce sync.Once
	defs     []defWords // per definition of the file, in its order
}

// defWords are the words of a definition's name, doc and signature.
type defWords struct{ name, doc, sig []string }

// defWordsOf gives the words of each definition's name, doc and signature, split once per content.
func (bw *bodyWords) defWordsOf(defs []parse.Definition) []defWords {
	bw.defsOnce.Do(func() { bw.defs = splitDefs(defs) })
	if len(bw.defs) != len(defs) {
		return splitDefs(defs) // the same content parsed otherwise: say nothing rather than wrong
	}
	return bw.defs
}

func splitDefs(defs []parse.Definition) []defWords {
	out := make([]defWords, len(defs))
	for i, d := range defs {
		out[i] = defWords{words.Terms(d.Name), words.Terms(d.Doc), words.Terms(d.Signature)}
	}
	return out
}

// share is the part of ws that the text uses.
func share(ws []string, qw map[string]bool) float64 {
	if len(ws) == 0 {
		return 0
	}
	n := 0
	for _, w := range ws {
		if qw[w] {
			n++
		}
	}
	return float64(n) / float64(len(ws))
}

// newBodyWords gives each line the terms words.Terms would; a file repeats its words, so each part is
// normalised once, and looked up without making a string of it.
func newBodyWords(src []byte) *bodyWords {
	bw := &bodyWords{vocab: map[string]int32{}}
	parts := map[string]int32{} // a part as split -> its term's id, -1 for a part that is no term
	var ids []int32
	add := func(part []byte) {
		id, ok := parts[string(part)]
		if !ok {
			id = -1
			if t := words.Normalize(string(part)); t != "" {
				if id, ok = bw.vocab[t]; !ok {
					id = int32(len(bw.vocab))
					bw.vocab[t] = id
				}
			}
			parts[string(part)] = id
		}
		if id >= 0 {
			ids = append(ids, id)
		}
	}
	for _, l := range parse.SplitLines(src) {
		ids = nil
		words.EachPart(l, add)
		bw.lines = append(bw.lines, ids)
	}
	return bw
}

// count is how many of the text's words (qwID: their ids in this file's vocabulary) a definition's
// first maxBodyLines lines use.
func (bw *bodyWords) count(d parse.Definition, qwID map[int32]bool) int {
	if len(qwID) == 0 || d.StartLine < 1 || d.StartLine > len(bw.lines) {
		return 0
	}
	end := min(d.EndLine, len(bw.lines), d.StartLine+maxBodyLines-1)
	seen := map[int32]bool{}
	for _, ids := range bw.lines[d.StartLine-1 : end] {
		for _, id := range ids {
			if qwID[id] {
				seen[id] = true
			}
		}
	}
	return len(seen)
}

// ids are the text's words in this file's vocabulary.
func (bw *bodyWords) ids(qw map[string]bool) map[int32]bool {
	out := map[int32]bool{}
	for w := range qw {
		if id, ok := bw.vocab[w]; ok {
			out[id] = true
		}
	}
	return out
}

// bodyWordsCache keeps the words of the files described last, by content hash.
var bodyWordsCache = struct {
	sync.Mutex
	order *list.List // of string hashes, most recent first
	items map[string]*list.Element
	words map[string]*bodyWords
}{order: list.New(), items: map[string]*list.Element{}, words: map[string]*bodyWords{}}

const bodyWordsKept = 48

// wordsOf is the words of a file's content, made once per content.
func wordsOf(hash string, src []byte) *bodyWords {
	c := &bodyWordsCache
	c.Lock()
	if e, ok := c.items[hash]; ok && hash != "" {
		c.order.MoveToFront(e)
		bw := c.words[hash]
		c.Unlock()
		return bw
	}
	c.Unlock()
	bw := newBodyWords(src)
	if hash == "" {
		return bw
	}
	c.Lock()
	defer c.Unlock()
	if _, ok := c.items[hash]; !ok {
		c.items[hash] = c.order.PushFront(hash)
		c.words[hash] = bw
		for c.order.Len() > bodyWordsKept {
			last := c.order.Back()
			h := last.Value.(string)
			c.order.Remove(last)
			delete(c.items, h)
			delete(c.words, h)
		}
	}
	return bw
}
