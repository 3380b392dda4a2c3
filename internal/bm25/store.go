// Package bm25 is the BM25 store: chunks indexed in bleve with their text already split into normalised
// terms (words.Split + words.Stem), so that `RuleIndex`, "rule index" and "rules indexes" meet.
package bm25

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/words"
)

// Doc is one chunk as the store sees it. ID is unique and starts with the file's path and '#'.
type Doc struct {
	ID     string
	Fields Fields
}

// Fields are a chunk's normalised terms (see Normalize), one space-separated string per field, in the
// order of fieldNames.
type Fields [4]string

var fieldNames = [4]string{"name", "path", "doc", "code"}

// NewFields normalises a chunk's text: its symbol name(s), path, doc comments and code or prose.
func NewFields(name, path, doc, code string) Fields {
	return Fields{Normalize(name), Normalize(path), Normalize(doc), Normalize(code)}
}

// Lengths counts the terms of each field, as the whitespace tokenizer cuts them.
func (f Fields) Lengths() records.Lengths {
	var n records.Lengths
	for i, s := range f {
		in := false
		for j := 0; j < len(s); j++ {
			space := s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r'
			if !space && !in {
				n[i]++
			}
			in = !space
		}
	}
	return n
}

// Stats are what BM25 knows of the whole collection: the chunks and their terms in each field. bleve
// derives its own from the segments it happens to hold (deleted chunks and merge timing included), so
// the same files would score differently depending on how they came to be indexed; these are summed
// from the chunks themselves.
type Stats struct {
	Chunks int
	Terms  [4]int64
}

// Add counts one chunk.
func (s *Stats) Add(n records.Lengths) {
	s.Chunks++
	for i, x := range n {
		s.Terms[i] += int64(x)
	}
}

// Hit is a chunk that matched, with its BM25 score.
type Hit struct {
	ID    string
	Path  string
	Score float64
}

// Field boosts, in the order of fieldNames: a term in a symbol's name or the file's path says more than
// one in its body.
var boosts = [4]float64{3, 2, 1, 1}

// Store wraps one bleve index.
type Store struct {
	idx     bleve.Index
	dir     string // "" in memory
	mu      sync.Mutex
	checked manifest // what open checked the files against (see check.go); nil: check all at Close
}

const analyzerName = "terms"

func newMapping() mapping.IndexMapping {
	m := bleve.NewIndexMapping()
	m.ScoringModel = "bm25"
	_ = m.AddCustomAnalyzer(analyzerName, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     spacesName,
		"token_filters": []string{lowercase.Name},
	})
	m.DefaultAnalyzer = analyzerName
	dm := bleve.NewDocumentMapping()
	for _, f := range fieldNames {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = analyzerName
		fm.Store = false
		fm.IncludeInAll = false
		fm.IncludeTermVectors = false
		dm.AddFieldMappingsAt(f, fm)
	}
	m.DefaultMapping = dm
	return m
}

// Open opens the index at dir, creating it when absent; dir "" keeps it in memory.
// A second process holding the same index makes Open fail after a second instead of blocking (see
// IsBusy). A damaged index, a panic inside bleve included, is a *DamagedError naming the file.
func Open(dir string) (*Store, error) {
	if dir == "" {
		idx, err := bleve.NewUsing("", newMapping(), scorch.Name, scorch.Name, nil)
		if err != nil {
			return nil, fmt.Errorf("create in-memory lexical index: %w", err)
		}
		return &Store{idx: idx}, nil
	}
	if _, err := os.Stat(dir); err == nil {
		return openExisting(dir)
	}
	idx, err := bleve.NewUsing(dir, newMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("create lexical index %s: %w", dir, err)
	}
	return &Store{idx: idx, dir: dir}, nil
}

// Normalize turns text into the space-separated terms the store indexes and queries.
func Normalize(text string) string {
	parts := words.Split(text)
	for i, p := range parts {
		parts[i] = words.Stem(p)
	}
	return strings.Join(parts, " ")
}

// Replace deletes the chunks with the old IDs and indexes docs, in one batch.
func (s *Store) Replace(old []string, docs []Doc) error {
	b := s.idx.NewBatch()
	for _, id := range old {
		b.Delete(id)
	}
	for _, d := range docs {
		fields := make(map[string]interface{}, len(fieldNames))
		for i, f := range fieldNames {
			fields[f] = d.Fields[i]
		}
		if err := b.Index(d.ID, fields); err != nil {
			return fmt.Errorf("index chunk %s: %w", d.ID, err)
		}
	}
	if err := s.idx.Batch(b); err != nil {
		return fmt.Errorf("write lexical batch: %w", err)
	}
	return nil
}

// Term is one weighted query term, already normalised (lower-case, stemmed).
type Term struct {
	Word   string
	Weight float64
}

// Search returns up to k chunks by BM25 over the weighted terms, best first. With stats, BM25's
// document count and average field lengths are those (see Stats), else bleve's own.
func (s *Store) Search(ctx context.Context, terms []Term, k int, stats *Stats) ([]Hit, error) {
	var qs []query.Query
	for _, t := range terms {
		if t.Word == "" || t.Weight <= 0 {
			continue
		}
		for i, f := range fieldNames { // in a fixed order: a sum of floats depends on it
			tq := bleve.NewTermQuery(t.Word)
			tq.SetField(f)
			tq.SetBoost(boosts[i] * t.Weight)
			qs = append(qs, tq)
		}
	}
	if len(qs) == 0 || k <= 0 {
		return nil, nil
	}
	if stats != nil && stats.Chunks > 0 {
		card := make(map[string]int, len(fieldNames))
		for i, f := range fieldNames {
			card[f] = int(stats.Terms[i]) // bleve divides this by the count for the average length
		}
		ctx = context.WithValue(ctx, search.BM25StatsKey, &search.BM25Stats{DocCount: float64(stats.Chunks), FieldCardinality: card})
	}
	// Of chunks with equal scores at its cut bleve keeps those it met first, which follows the order
	// they were added in. Asking for more and cutting after sorting by score and ID keeps the same
	// ones however the index came to be; when the ties run past the margin, it asks again for twice
	// as many, until the last hit scores below the k-th.
	for n := k + tieMargin; ; n *= 2 {
		hits, err := s.search(ctx, qs, n)
		if err != nil {
			return nil, err
		}
		if len(hits) < n || hits[len(hits)-1].Score < hits[k-1].Score {
			return hits[:min(k, len(hits))], nil
		}
	}
}

// tieMargin is how many more hits than asked Search takes from bleve, to settle ties at the cut.
const tieMargin = 20

// search returns bleve's best n hits for the queries, by score then by ID.
func (s *Store) search(ctx context.Context, qs []query.Query, n int) ([]Hit, error) {
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), n, 0, false)
	var res *bleve.SearchResult
	err := guarded(func() (err error) {
		res, err = s.idx.SearchInContext(ctx, req)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			s.distrust()
		}
		return nil, fmt.Errorf("lexical search: %w", err)
	}
	hits := make([]Hit, 0, len(res.Hits))
	for _, h := range res.Hits {
		// bleve adds a chunk's term scores in the order its searchers meet the chunk, which follows the
		// index's segments: the last bits of a sum depend on how the index came to be. Compared at
		// float32 precision, the same chunks rank the same however it did.
		hits = append(hits, Hit{ID: h.ID, Path: PathOf(h.ID), Score: float64(float32(h.Score))})
	}
	// ties in a fixed order, whatever order the chunks were added in (sorting inside bleve by _id costs
	// a fifth of a query)
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	return hits, nil
}

// distrust makes the next open check every file in full: a search failed, on damage open trusted
// the manifest for (a segment changed on disk without its size or time) or that came since.
func (s *Store) distrust() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checked = nil
}

// PathOf returns the file path of a chunk ID.
func PathOf(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		return id[:i]
	}
	return id
}

// Count is the number of chunks indexed.
func (s *Store) Count() (uint64, error) { return s.idx.DocCount() }

// SetMeta and Meta keep small values (a generation number) inside the index, so the index and the
// cache that describes it can be checked against each other.
func (s *Store) SetMeta(key string, val []byte) error { return s.idx.SetInternal([]byte(key), val) }

// Meta reads back what SetMeta kept; nil when nothing is.
func (s *Store) Meta(key string) ([]byte, error) { return s.idx.GetInternal([]byte(key)) }

// Close releases the index (and its file lock), then writes the manifest of its files.
func (s *Store) Close() error {
	if s == nil || s.idx == nil {
		return nil
	}
	if err := s.idx.Close(); err != nil {
		return err
	}
	if s.dir == "" {
		return nil
	}
	s.mu.Lock()
	checked := s.checked
	s.mu.Unlock()
	if err := writeManifest(s.dir, checked); err != nil {
		return fmt.Errorf("close lexical index: %w", err)
	}
	return nil
}
