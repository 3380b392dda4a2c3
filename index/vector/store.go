// Package vector keeps chunk embeddings and finds the chunks nearest to a text by comparing it with
// every one (a few milliseconds per 10,000 chunks). A persistent store is one file, read whole at Open
// and searched where it lies; vectors put since are kept beside it, and Save and Close write the two
// together as the next file. Opening a store of 200,000 chunks costs reading the file, nothing more.
package vector

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ctxmap/ctxmap/index/embed"
)

type Doc struct {
	ID   string // unique per chunk
	Path string // workspace-relative file the chunk comes from
	Text string
}

type Hit struct {
	ID    string
	Path  string
	Score float32 // cosine similarity
}

// ErrCorrupt marks a store file that cannot be read back; remove the folder and open it again.
var ErrCorrupt = errors.New("vector store is corrupt")

var errClosed = errors.New("vector store is closed")

const fileName = "vectors.bin"

type Store struct {
	e        embed.Embedder
	name     string
	dir      string // "" for a store in memory
	keepSums bool   // see Open

	// Writers (Put, DeletePath, Close) take mu exclusively, briefly; Search and Save's snapshot share it.
	mu     sync.RWMutex
	closed bool
	gen    uint64           // changes since Open, under mu
	file   *segment         // the vectors of the store file; empty for a new store
	gone   []bool           // file entries replaced or deleted since Open
	live   int              // file entries not gone
	added  map[string]entry // ID -> vectors put since Open

	// The IDs by path, and where each ID is in the file, are needed only to change or compare the
	// store: built at the first such call, so that a process that only searches never pays for them.
	indexed bool
	ids     map[string]map[string]string // path -> ID of each of its documents -> textSum of its text
	owner   map[string]string            // ID -> path
	at      map[string]int               // ID -> its entry in file

	saveMu sync.Mutex
	saved  uint64 // gen last written, under saveMu
}

// entry is one vector put since Open.
type entry struct {
	path, sum string
	vec       []float32
}

// collectionName carries the model and dimension, so vectors of another model are never mixed in.
func collectionName(e embed.Embedder) string {
	return fmt.Sprintf("chunks/%s/%d", e.ID(), e.Dim())
}

// Open returns the store kept under dir, created if missing, or a store in memory when dir is "".
// Vectors stored by another model are dropped: the store opens empty and the caller re-embeds.
func Open(dir string, e embed.Embedder) (*Store, error) {
	if e == nil || e.Dim() <= 0 {
		return nil, errors.New("open vector store: no embedder, or one without dimensions")
	}
	s := &Store{e: e, name: collectionName(e), dir: dir, file: &segment{}, added: map[string]entry{}}
	// keepSums: a model that embeds in batches is a remote one, whose vectors are worth keeping across an
	// interrupted start; the offline model embeds a workspace again faster than the sums would load.
	_, s.keepSums = e.(embed.BatchEmbedder)
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("open vector store: %w", err)
		}
		os.Remove(filepath.Join(dir, "vectors.gob")) // the file of older builds: its vectors are made again
		file := filepath.Join(dir, fileName)
		seg, err := readSegment(file)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, err
		case seg.name != s.name:
			s.gen = 1 // rewrite the file without the old model's vectors
		case seg.dim != e.Dim():
			return nil, fmt.Errorf("%w: %s: vectors of %d components, want %d", ErrCorrupt, file, seg.dim, e.Dim())
		default:
			s.file = seg
		}
	}
	s.gone = make([]bool, s.file.len())
	s.live = s.file.len()
	return s, nil
}

// index builds the IDs by path and the places of the file's IDs; called with mu held exclusively.
func (s *Store) index() {
	if s.indexed {
		return
	}
	s.indexed = true
	s.ids, s.owner, s.at = map[string]map[string]string{}, map[string]string{}, make(map[string]int, s.file.len())
	for i := range s.file.len() {
		if !s.gone[i] {
			id := s.file.ids[i]
			s.at[id] = i
			s.remember(s.file.path(i), id, s.file.sums[i])
		}
	}
	for id, en := range s.added {
		s.remember(en.path, id, en.sum)
	}
}

// remember files id under path, and no longer under a path it had before.
func (s *Store) remember(path, id, sum string) {
	if old, ok := s.owner[id]; ok && old != path {
		delete(s.ids[old], id)
		if len(s.ids[old]) == 0 {
			delete(s.ids, old)
		}
	}
	s.owner[id] = path
	if s.ids[path] == nil {
		s.ids[path] = map[string]string{}
	}
	s.ids[path][id] = sum
}

// textSum identifies a document's text, so that vectors still valid need not be made again.
func textSum(text string) string {
	h := fnv.New64a()
	h.Write([]byte(text))
	return strconv.FormatUint(h.Sum64(), 36)
}

// Holds reports whether the store has exactly docs for path: the same IDs, made from the same texts.
// A store that keeps no sums holds nothing.
func (s *Store) Holds(path string, docs []Doc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index()
	have := s.ids[path]
	if len(have) != len(docs) {
		return false
	}
	for _, d := range docs {
		if sum, ok := have[d.ID]; !ok || sum == "" || sum != textSum(d.Text) {
			return false
		}
	}
	return true
}

// Paths are the files the store has vectors for, sorted.
func (s *Store) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.index()
	return slices.Sorted(maps.Keys(s.ids))
}

// Put embeds docs (concurrently, one worker per core; in batches when the embedder takes them) and adds them, replacing documents with the same
// ID. Either every doc is stored or, on an error, none.
func (s *Store) Put(ctx context.Context, docs []Doc) error {
	if len(docs) == 0 {
		return nil
	}
	for i, d := range docs {
		if d.ID == "" {
			return fmt.Errorf("put vectors: document %d (path %q) has no ID", i, d.Path)
		}
	}
	if s.isClosed() {
		return errClosed
	}
	vecs, err := s.embedAll(ctx, docs)
	if err != nil {
		return fmt.Errorf("put vectors: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.index()
	for i, d := range docs {
		sum := ""
		if s.keepSums {
			sum = textSum(d.Text)
		}
		s.drop(d.ID)
		s.added[d.ID] = entry{path: d.Path, sum: sum, vec: unit(vecs[i])}
		s.remember(d.Path, d.ID, sum)
	}
	s.gen++
	return nil
}

func (s *Store) embedAll(ctx context.Context, docs []Doc) ([][]float32, error) {
	if b, ok := s.e.(embed.BatchEmbedder); ok {
		return s.embedBatches(ctx, b, docs)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	vecs := make([][]float32, len(docs))
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(docs))
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(docs) || ctx.Err() != nil {
					return
				}
				v, err := s.embedOne(ctx, docs[i].Text)
				if err != nil {
					cancel(fmt.Errorf("embed %s: %w", docs[i].ID, err))
					return
				}
				vecs[i] = v
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return vecs, nil
}

// batchSize is how many texts go to a batch embedder at once: one request to a remote model.
const batchSize = 64

// embedBatches embeds docs batchSize at a time, one batch after the other (a remote server works
// through them anyway), and checks each vector as embedOne does.
func (s *Store) embedBatches(ctx context.Context, b embed.BatchEmbedder, docs []Doc) ([][]float32, error) {
	vecs := make([][]float32, 0, len(docs))
	texts := make([]string, 0, batchSize)
	for start := 0; start < len(docs); start += batchSize {
		part := docs[start:min(start+batchSize, len(docs))]
		texts = texts[:0]
		for _, d := range part {
			texts = append(texts, d.Text)
		}
		vs, err := b.EmbedBatch(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed %d chunks from %s: %w", len(part), part[0].ID, err)
		}
		if len(vs) != len(part) {
			return nil, fmt.Errorf("embedder %s returned %d vectors for %d chunks", s.e.ID(), len(vs), len(part))
		}
		for i, v := range vs {
			if err := s.check(v); err != nil {
				return nil, fmt.Errorf("embed %s: %w", part[i].ID, err)
			}
		}
		vecs = append(vecs, vs...)
	}
	return vecs, nil
}

// embedOne embeds text and checks what the embedder returned.
func (s *Store) embedOne(ctx context.Context, text string) ([]float32, error) {
	v, err := s.e.Embed(ctx, text)
	if err != nil {
		return nil, err
	}
	if err := s.check(v); err != nil {
		return nil, err
	}
	return v, nil
}

// check refuses vectors of the wrong size, NaNs and zero vectors, so that a faulty embedder cannot put
// them into the store.
func (s *Store) check(v []float32) error {
	if len(v) != s.e.Dim() {
		return fmt.Errorf("embedder %s returned %d components, want %d", s.e.ID(), len(v), s.e.Dim())
	}
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if math.IsNaN(sum) || math.IsInf(sum, 0) || sum == 0 {
		return fmt.Errorf("embedder %s returned a vector of squared length %v", s.e.ID(), sum)
	}
	return nil
}

// drop forgets the vector of id, in the file or put since; called with mu held and the index built.
func (s *Store) drop(id string) {
	delete(s.added, id)
	if i, ok := s.at[id]; ok && !s.gone[i] {
		s.gone[i] = true
		s.live--
		delete(s.at, id)
	}
}

// DeletePath removes every document of the file at path.
func (s *Store) DeletePath(_ context.Context, path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.index()
	ids := slices.Sorted(maps.Keys(s.ids[path]))
	if len(ids) == 0 {
		return nil
	}
	for _, id := range ids {
		s.drop(id)
		delete(s.owner, id)
	}
	delete(s.ids, path)
	s.gen++
	return nil
}

// Search returns up to k documents most similar to text, best first (ties by ID).
func (s *Store) Search(ctx context.Context, text string, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	q, err := s.embedOne(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	q = unit(q)
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	best := s.searchFile(q, k)
	for id, en := range s.added {
		best.offer(Hit{ID: id, Path: en.path, Score: dot(q, en.vec)})
	}
	return best.sorted(), nil
}

// searchFile compares q with every vector of the file still in the store, a share of the file on
// each core, and keeps the best k.
func (s *Store) searchFile(q []float32, k int) *topK {
	n := s.file.len()
	parts := max(1, min(runtime.GOMAXPROCS(0), n/4096))
	tops := make([]*topK, parts)
	var wg sync.WaitGroup
	for p := range parts {
		tops[p] = &topK{k: k}
		wg.Go(func() {
			t := tops[p]
			for i := p * n / parts; i < (p+1)*n/parts; i++ {
				if s.gone[i] {
					continue
				}
				score := dot(q, s.file.vec(i))
				if t.full() && score < t.min() {
					continue // the common case, decided without reading the ID
				}
				t.offer(Hit{ID: s.file.ids[i], Path: s.file.path(i), Score: score})
			}
		})
	}
	wg.Wait()
	for _, t := range tops[1:] {
		for _, h := range t.hits {
			tops[0].offer(h)
		}
	}
	return tops[0]
}

// Embedder is the model the store's vectors come from.
func (s *Store) Embedder() embed.Embedder { return s.e }

func (s *Store) Count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.live + len(s.added)
}

// Save writes a persistent store to its file if it changed since the last save: a temporary file
// renamed over the old one, so a crash leaves either the old or the new store. The lock is held only
// to take a snapshot, not while writing.
func (s *Store) Save() error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return errClosed
	}
	return s.saveLocked()
}

// saveLocked is called with saveMu held and mu read-locked; it releases mu.
func (s *Store) saveLocked() error {
	gen := s.gen
	if s.dir == "" || gen == s.saved {
		s.mu.RUnlock()
		return nil
	}
	docs := make([]fileDoc, 0, s.live+len(s.added))
	for i := range s.file.len() {
		if !s.gone[i] {
			docs = append(docs, fileDoc{id: s.file.ids[i], path: s.file.path(i), sum: s.file.sums[i], vec: s.file.vec(i)})
		}
	}
	for id, en := range s.added {
		docs = append(docs, fileDoc{id: id, path: en.path, sum: en.sum, vec: en.vec})
	}
	s.mu.RUnlock() // the vectors are never changed in place: a Put replaces them
	if err := writeSegment(filepath.Join(s.dir, fileName), s.name, s.e.Dim(), docs); err != nil {
		return fmt.Errorf("save vector store %s: %w", s.dir, err)
	}
	s.saved = gen
	return nil
}

// Close saves a persistent store and releases it; later calls fail, a second Close does nothing. If
// the save fails the store stays open, so nothing is lost and Close can be tried again.
func (s *Store) Close() error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true // no writer can start now
	s.mu.Unlock()
	s.mu.RLock()
	if err := s.saveLocked(); err != nil {
		s.mu.Lock()
		s.closed = false
		s.mu.Unlock()
		return err
	}
	return nil
}

func (s *Store) isClosed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.closed
}
