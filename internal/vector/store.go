// Package vector keeps chunk embeddings in a chromem-go collection and finds the chunks nearest to a
// text. A persistent store lives in memory and is written to one file, a stream of vectors (file.go), on
// Save and Close: loading one file of 20,000 chunks is an order of magnitude faster than chromem's own
// one-file-per-document persistence, and a stream, unlike chromem's export, is never held whole. A
// one-shot query searches the file in place with SearchFile, without loading it. A Indexer keeps a store
// current with an index in the background (indexer.go).
package vector

import (
	"cmp"
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

	chromem "github.com/philippgille/chromem-go"

	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/words"
)

// Doc is a chunk to embed and keep.
type Doc struct {
	ID   string // unique per chunk
	Path string // workspace-relative file the chunk comes from
	Text string
}

// DocsOf are the docs chunks are embedded as: each chunk's names, doc and the start of its code.
func DocsOf(cs []records.Chunk) []Doc {
	docs := make([]Doc, len(cs))
	for i, c := range cs {
		docs[i] = Doc{ID: c.ID, Path: c.Path, Text: words.Clip(c.Path+"\n"+c.Name+"\n"+c.Doc+"\n"+c.Code, 2048)}
	}
	return docs
}

// Hit is a chunk found near a query's vector.
type Hit struct {
	ID    string
	Path  string
	Score float32 // cosine similarity
}

// ErrCorrupt marks a store file that cannot be read back; remove the folder and open it again.
var ErrCorrupt = errors.New("vector store is corrupt")

// ErrNoStore marks a store folder without vectors SearchFile can use: no store file (none saved yet,
// or only one of an older format), or one holding the vectors of another model.
var ErrNoStore = errors.New("no vector store")

var errClosed = errors.New("vector store is closed")

const (
	fileName = "vectors.bin"
	pathKey  = "path"
	sumKey   = "sum" // textSum of the text a vector was made from
)

// Store keeps the chunks' vectors (chromem-go), in memory or in one file, and searches them.
type Store struct {
	e    embed.Embedder
	db   *chromem.DB
	col  *chromem.Collection
	name string
	dir  string // "" for a store in memory

	// Writers (Put's insert, DeletePath, Close) take mu exclusively, briefly; Search and Save's
	// snapshot share it.
	mu     sync.RWMutex
	closed bool
	gen    uint64                       // changes since Open, under mu
	ids    map[string]map[string]string // path -> ID of each of its documents -> textSum of its text, under mu
	// keepSums: a model that embeds in batches is a remote one, whose vectors are worth keeping across an
	// interrupted start; the offline model embeds a workspace again faster than the sums would load.
	keepSums bool
	owner    map[string]string // ID -> path, under mu

	saveMu sync.Mutex
	saved  uint64 // gen last written, under saveMu
}

// collectionName carries the model and dimension, so vectors of another model are never mixed in.
func collectionName(e embed.Embedder) string {
	return fmt.Sprintf("chunks/%s/%d", e.ID(), e.Dim())
}

// Open returns the store kept under dir, created if missing, or a store in memory when dir is "".
// Vectors stored by another model are dropped: the store opens empty and the caller re-embeds.
func Open(dir string, e embed.Embedder) (*Store, error) {
	if err := usable(e); err != nil {
		return nil, fmt.Errorf("open vector store: %w", err)
	}
	// chromem deletes by metadata by looking at every document: a file's IDs are kept to delete by ID.
	s := &Store{e: e, db: chromem.NewDB(), name: collectionName(e), dir: dir, ids: map[string]map[string]string{}, owner: map[string]string{}}
	_, s.keepSums = e.(embed.BatchEmbedder)
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("open vector store: %w", err)
		}
		// another format, not a damaged file: the state's version changed with it, so all is re-embedded
		for _, old := range oldFiles {
			_ = os.Remove(filepath.Join(dir, old))
		}
		stale, err := s.load()
		if err != nil {
			return nil, err
		}
		if stale {
			s.gen = 1 // rewrite the file without the old model's vectors
		}
	}
	// Always pass our function: a nil one makes chromem call a remote service.
	col, err := s.db.GetOrCreateCollection(s.name, nil, s.embedFunc)
	if err != nil {
		return nil, fmt.Errorf("open vector store: %w", err)
	}
	s.col = col
	return s, nil
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
	s.mu.RLock()
	defer s.mu.RUnlock()
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
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Sorted(maps.Keys(s.ids))
}

func (s *Store) embedFunc(ctx context.Context, text string) ([]float32, error) {
	return s.e.Embed(ctx, text)
}

// load reads the store file, if any, into the collection, checking every vector. stale reports a file
// that held the vectors of another model.
func (s *Store) load() (stale bool, err error) {
	r, err := openFile(s.dir, s.e)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case errors.Is(err, ErrNoStore):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("open vector store: %w", err)
	}
	defer r.close()
	docs := make([]chromem.Document, 0, r.count) // bounded by the file's size
	for range r.count {
		if err := r.next(); err != nil {
			return false, err
		}
		meta := map[string]string{pathKey: string(r.path)}
		if len(r.sum) > 0 {
			meta[sumKey] = string(r.sum)
		}
		docs = append(docs, chromem.Document{ID: string(r.id), Metadata: meta, Embedding: slices.Clone(r.vec)})
	}
	if err := r.end(); err != nil {
		return false, err
	}
	col, err := s.db.GetOrCreateCollection(s.name, nil, s.embedFunc)
	if err != nil {
		return false, fmt.Errorf("open vector store: %w", err)
	}
	for _, d := range docs {
		if err := col.AddDocument(context.Background(), d); err != nil {
			return false, fmt.Errorf("%w: %s: %v", ErrCorrupt, r.file, err)
		}
		s.remember(d.Metadata[pathKey], d.ID, d.Metadata[sumKey])
	}
	return false, nil
}

func probe(dim int) []float32 {
	v := make([]float32, dim)
	v[0] = 1
	return v
}

// all returns every document of col; the embeddings are shared, not copied.
func all(col *chromem.Collection, dim int) ([]chromem.Result, error) {
	n := col.Count()
	if n == 0 {
		return nil, nil
	}
	return col.QueryEmbedding(context.Background(), probe(dim), n, nil, nil)
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
		if len(d.ID) > maxString || len(d.Path) > maxString {
			return fmt.Errorf("put vectors: document %d has an ID or path longer than %d bytes", i, maxString)
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
	for i, d := range docs {
		meta, sum := map[string]string{pathKey: d.Path}, ""
		if s.keepSums {
			sum = textSum(d.Text)
			meta[sumKey] = sum
		}
		doc := chromem.Document{ID: d.ID, Metadata: meta, Embedding: vecs[i]}
		if err := s.col.AddDocument(ctx, doc); err != nil {
			// Unreachable with an ID and an embedding; reported rather than trusted.
			return fmt.Errorf("put vectors: %s: %w", d.ID, err)
		}
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
				v, err := embedOne(ctx, s.e, docs[i].Text)
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
			if err := check(s.e, v); err != nil {
				return nil, fmt.Errorf("embed %s: %w", part[i].ID, err)
			}
		}
		vecs = append(vecs, vs...)
	}
	return vecs, nil
}

// usable refuses an embedder whose vectors the store file cannot hold.
func usable(e embed.Embedder) error {
	if e == nil || e.Dim() <= 0 || e.Dim() > maxDim {
		return errors.New("no embedder, or one without dimensions or with too many")
	}
	return nil
}

// embedOne embeds text with e and checks what e returned.
func embedOne(ctx context.Context, e embed.Embedder, text string) ([]float32, error) {
	v, err := e.Embed(ctx, text)
	if err != nil {
		return nil, err
	}
	if err := check(e, v); err != nil {
		return nil, err
	}
	return v, nil
}

// check refuses vectors of the wrong size, NaNs and zero vectors, so that a faulty embedder cannot put
// them into the store.
func check(e embed.Embedder, v []float32) error {
	if len(v) != e.Dim() {
		return fmt.Errorf("embedder %s returned %d components, want %d", e.ID(), len(v), e.Dim())
	}
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if math.IsNaN(sum) || math.IsInf(sum, 0) || sum == 0 {
		return fmt.Errorf("embedder %s returned a vector of squared length %v", e.ID(), sum)
	}
	return nil
}

// DeletePath removes every document of the file at path.
func (s *Store) DeletePath(ctx context.Context, path string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	ids := slices.Sorted(maps.Keys(s.ids[path]))
	if len(ids) == 0 {
		return nil
	}
	if err := s.col.Delete(ctx, nil, nil, ids...); err != nil {
		return fmt.Errorf("delete vectors of %s: %w", path, err)
	}
	for _, id := range ids {
		delete(s.owner, id)
	}
	delete(s.ids, path)
	s.gen++
	return nil
}

// tieMargin is how many more results than asked Search takes from chromem, to settle ties at the cut.
const tieMargin = 20

// Search returns up to k documents most similar to text, best first (ties by ID).
func (s *Store) Search(ctx context.Context, text string, k int) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	q, err := embedOne(ctx, s.e, text)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, errClosed
	}
	// chromem refuses more results than documents, also for an empty collection. Of documents with
	// equal scores at its cut it keeps any; asking for more and cutting after sorting by score and ID
	// keeps the same ones every time. When the ties run past the margin (chunks that read alike), it
	// asks again for twice as many, until the last one it gets scores below the k-th.
	count := s.col.Count()
	for n := min(k+tieMargin, count); n > 0; n = min(2*n, count) {
		res, err := s.col.QueryEmbedding(ctx, q, n, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("search vectors: %w", err)
		}
		hits := make([]Hit, len(res))
		for i, r := range res {
			hits[i] = Hit{ID: r.ID, Path: r.Metadata[pathKey], Score: r.Similarity}
		}
		slices.SortFunc(hits, byRank)
		if len(hits) <= k || n == count || hits[len(hits)-1].Score < hits[k-1].Score {
			return hits[:min(k, len(hits))], nil
		}
	}
	return nil, nil
}

// byRank orders hits best first: by score, then by ID.
func byRank(a, b Hit) int {
	return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID))
}

// Embedder is the model the store's vectors come from.
func (s *Store) Embedder() embed.Embedder { return s.e }

// Count is the number of vectors kept.
func (s *Store) Count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.col.Count()
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
	docs, err := all(s.col, s.e.Dim())
	s.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("save vector store: %w", err)
	}
	if err := s.write(docs); err != nil {
		return fmt.Errorf("save vector store %s: %w", s.dir, err)
	}
	s.saved = gen
	return nil
}

// write stores docs in the format load reads.
func (s *Store) write(docs []chromem.Result) error {
	tmp, err := os.CreateTemp(s.dir, fileName+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	err = writeFile(tmp, s.name, s.e.Dim(), docs)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(s.dir, fileName))
}

// Close saves a persistent store and releases it; later calls fail, a second Close does nothing. If
// the save fails the store stays open, so nothing is lost and Close can be tried again.
func (s *Store) Close() error {
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	if s.setClosed(true) { // no writer can start now
		return nil
	}
	s.mu.RLock()
	if err := s.saveLocked(); err != nil {
		s.setClosed(false)
		return err
	}
	return nil
}

// setClosed marks the store closed or open and says whether it was closed.
func (s *Store) setClosed(closed bool) (was bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	was, s.closed = s.closed, closed
	return was
}

func (s *Store) isClosed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.closed
}
