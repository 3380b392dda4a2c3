package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/internal/vector"
	"github.com/ctxmap/ctxmap/internal/words"
)

// vectorFiller embeds chunks in the background: a query never waits for embeddings, it uses the vectors
// that are there. Pending work per file collapses, so a file saved ten times is embedded once.
type vectorFiller struct {
	ix  *Index
	e   embed.Embedder // nil when the vectors are off
	dir string         // the store's folder, "" for one in memory
	off string         // why there are no vectors

	// The store is loaded when there is something to write: until then a query reads the saved file
	// in place (vector.SearchFile), and a process that answers one query never loads it.
	openMu sync.Mutex
	store  *vector.Store

	mu        sync.Mutex
	puts      map[string][]Chunk
	dels      map[string]bool
	gen       uint64
	refillAll bool
	busy      bool
	closed    bool
	doneGen   uint64 // the generation whose vectors are all in the store
	lost      bool   // a Put failed: some vectors are missing until the next start
	failing   string // why the last embedding failed; "" once one succeeds
	// A damaged store file was found and the store is being made again: until then a query answers
	// without vectors, or, once WaitVectors asked for complete answers, waits for them. Never with
	// half of them.
	repairing bool
	complete  bool
	// chunks queued since the index opened and chunks embedded (or given up), for progress
	queuedN, embeddedN int

	// ctx ends in close, so that a slow embedding does not hold it
	ctx  context.Context
	stop context.CancelFunc
	wake chan struct{}
	done chan struct{}
}

// newVectorFiller fills the store under dir with e's vectors in the background; without e, off says
// why there are none.
func newVectorFiller(ix *Index, e embed.Embedder, dir, off string) *vectorFiller {
	v := &vectorFiller{ix: ix, e: e, dir: dir, off: off, puts: map[string][]Chunk{}, dels: map[string]bool{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	v.ctx, v.stop = context.WithCancel(context.Background())
	if e == nil {
		close(v.done)
		return v
	}
	go v.run()
	return v
}

// loaded is the store, loaded on first call; nil when it cannot be opened (and said).
func (v *vectorFiller) loaded() *vector.Store {
	v.openMu.Lock()
	defer v.openMu.Unlock()
	if v.store != nil || v.e == nil {
		return v.store
	}
	vs, err := vector.Open(v.dir, v.e)
	if err != nil && v.dir != "" {
		v.damaged(err)
		vs, err = vector.Open(v.dir, v.e)
	}
	if err != nil {
		v.ix.warn("vector store cannot be created, going without vectors: %v", err)
		return nil
	}
	v.store = vs
	return vs
}

// damaged moves a store that cannot be read aside and says so; what queries do until it is made
// again is repairing's. Called with openMu held.
func (v *vectorFiller) damaged(err error) {
	complete := v.repair()
	until := "packs are made without vectors until they are made again"
	if complete {
		until = "packs wait until they are made again"
	}
	v.ix.warn("vector store unusable (%v); %s, rebuilding: %s", err, store.MoveAside(v.ix.cache, v.dir), until)
}

// repair marks the store as being made again, every file queued, in one step: the worker, which ends
// the repair once nothing is left, cannot see it in between. It says whether queries wait for it.
func (v *vectorFiller) repair() (complete bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.repairing, v.refillAll = true, true
	return v.complete
}

// opened is the store if it is loaded, else nil.
func (v *vectorFiller) opened() *vector.Store {
	v.openMu.Lock()
	defer v.openMu.Unlock()
	return v.store
}

// newEmbedder makes the configured embedder: the offline GloVe model unless a provider is named. A
// remote model without configured dimensions is asked for one embedding here, so a server that is down
// or a refused key shows when the index opens.
func newEmbedder(ctx context.Context, c Embedding) (embed.Embedder, error) {
	if c.Provider != "openai" {
		return embed.Default(), nil
	}
	var key string
	if c.APIKeyEnv != "" {
		if key = os.Getenv(c.APIKeyEnv); key == "" {
			return nil, fmt.Errorf("embedding.apiKeyEnv names %s, which is not set (or empty) in the environment ctxmap runs in", c.APIKeyEnv)
		}
	}
	e, err := embed.NewOpenAI(ctx, embed.OpenAIConfig{URL: c.URL, Model: c.Model, APIKey: key, Dimensions: c.Dimensions})
	if err != nil {
		check := fmt.Sprintf("check that the server at %s runs and serves the model %q", c.URL, c.Model)
		if c.APIKeyEnv != "" {
			check += fmt.Sprintf(" and that $%s holds a valid key", c.APIKeyEnv)
		}
		return nil, fmt.Errorf("the embedding model %q cannot be used: %w; %s", c.Model, err, check)
	}
	return e, nil
}

// status names the model the vectors come from, or says why there are none.
func (v *vectorFiller) status() string {
	if v.e == nil {
		return "off: " + v.off
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.failing != "" {
		return v.e.ID() + "; embedding fails: " + v.failing
	}
	return v.e.ID()
}

// note records how an embedding went; the first failure after a success is a warning.
func (v *vectorFiller) note(err error) {
	v.mu.Lock()
	first := err != nil && v.failing == ""
	if err == nil {
		v.failing = ""
	} else {
		v.failing = err.Error()
	}
	v.mu.Unlock()
	if first {
		v.ix.warn("vectors: %v", err)
	}
}

func (v *vectorFiller) genFile() string {
	if v.ix.cache == "" {
		return ""
	}
	return filepath.Join(v.ix.cache, "vectors.gen")
}

// upToDate tells whether the persisted vectors were complete at generation gen.
func (v *vectorFiller) upToDate(gen uint64) bool {
	if v.e == nil || v.genFile() == "" {
		return true
	}
	b, err := os.ReadFile(v.genFile())
	return err == nil && string(b) == v.marker(gen)
}

// marker is what the generation file holds once the vectors of generation gen are complete: the
// model too, since a store of another model's vectors is dropped when it is loaded.
func (v *vectorFiller) marker(gen uint64) string {
	return fmt.Sprintf("%d %s/%d", gen, v.e.ID(), v.e.Dim())
}

func (v *vectorFiller) put(path string, cs []Chunk) {
	if v.e == nil {
		return
	}
	v.mu.Lock()
	v.queuedN += len(cs) - len(v.puts[path])
	v.puts[path] = cs
	delete(v.dels, path)
	v.mu.Unlock()
}

func (v *vectorFiller) remove(path string) {
	if v.e == nil {
		return
	}
	v.mu.Lock()
	v.queuedN -= len(v.puts[path])
	delete(v.puts, path)
	v.dels[path] = true
	v.mu.Unlock()
}

// kick starts the worker on what is pending, which makes generation gen complete once done.
func (v *vectorFiller) kick(gen uint64) {
	if v.e == nil {
		return
	}
	v.mu.Lock()
	v.gen = gen
	v.mu.Unlock()
	v.nudge()
}

// nudge starts the worker on what is pending without completing a generation: a long build embeds
// as it goes instead of holding every chunk until its end.
func (v *vectorFiller) nudge() {
	if v.e == nil {
		return
	}
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

func (v *vectorFiller) run() {
	defer close(v.done)
	for range v.wake {
		for {
			v.mu.Lock()
			if v.closed {
				v.mu.Unlock()
				return
			}
			if v.refillAll {
				v.refillAll = false
				v.busy = true // until the files are queued: wait must not see nothing to do
				v.mu.Unlock()
				v.queueAll()
				continue
			}
			puts, dels := v.puts, v.dels
			v.puts, v.dels = map[string][]Chunk{}, map[string]bool{}
			v.busy = len(puts) > 0 || len(dels) > 0
			if !v.busy {
				v.doneGen = v.gen // under the lock: wait reads it
				v.repairing = false
				v.mu.Unlock()
				break
			}
			v.mu.Unlock()
			v.write(puts, dels)
			v.mu.Lock()
			v.busy = false
			v.mu.Unlock()
		}
	}
}

func (v *vectorFiller) write(puts map[string][]Chunk, dels map[string]bool) {
	ctx := v.ctx
	store := v.loaded()
	if store == nil {
		v.mu.Lock()
		v.lost = true
		v.mu.Unlock()
		return
	}
	for p := range dels {
		if err := store.DeletePath(ctx, p); err != nil {
			v.ix.warn("vectors: %v", err)
		}
	}
	paths := make([]string, 0, len(puts))
	for p := range puts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var docs []vector.Doc
	flush := func() {
		if len(docs) > 0 {
			err := store.Put(ctx, docs)
			v.mu.Lock()
			v.lost = v.lost || err != nil
			v.embeddedN += len(docs)
			v.mu.Unlock()
			if ctx.Err() == nil {
				v.note(err)
			}
			docs = docs[:0]
		}
	}
	for _, p := range paths {
		if v.isClosed() {
			return
		}
		if err := store.DeletePath(ctx, p); err != nil {
			v.ix.warn("vectors: %v", err)
		}
		docs = append(docs, vectorDocs(puts[p])...)
		if len(docs) >= 256 {
			flush()
		}
	}
	flush()
}

func vectorDocs(cs []Chunk) []vector.Doc {
	docs := make([]vector.Doc, len(cs))
	for i, c := range cs {
		docs[i] = vector.Doc{ID: c.ID, Path: c.Path, Text: embedText(c)}
	}
	return docs
}

// queueAll brings the persisted vectors, which were left incomplete, up to the current snapshot: the
// files whose vectors are missing or were made from other text are embedded again, and the files gone
// are removed. What is still valid is kept, so an interrupted start with a remote model goes on where
// it stopped. A build running meanwhile read some files after the snapshot was made: what it queued
// for them stands.
func (v *vectorFiller) queueAll() {
	store := v.loaded()
	if store == nil {
		return
	}
	s := v.ix.Snapshot()
	for _, p := range s.Paths {
		r := s.Record(p)
		if r.File == nil || v.queued(p) {
			continue
		}
		src, err := v.ix.ReadFile(p)
		if err != nil {
			continue
		}
		cs := chunks(p, r.File, src, v.ix.cfg.Mappings)
		if !store.Holds(p, vectorDocs(cs)) {
			v.putUnlessQueued(p, cs)
		}
	}
	for _, p := range store.Paths() {
		if r := s.Record(p); (r == nil || r.File == nil) && !v.queued(p) {
			v.remove(p)
		}
	}
}

// refill embeds every file again, in the background.
func (v *vectorFiller) refill() {
	v.mu.Lock()
	v.refillAll = true
	v.mu.Unlock()
	v.nudge()
}

// queued tells whether a put or a removal of path is pending.
func (v *vectorFiller) queued(path string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	_, put := v.puts[path]
	return put || v.dels[path]
}

func (v *vectorFiller) putUnlessQueued(path string, cs []Chunk) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, put := v.puts[path]; !put && !v.dels[path] {
		v.queuedN += len(cs)
		v.puts[path] = cs
	}
}

func (v *vectorFiller) isClosed() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.closed
}

// queryEmbedTimeout bounds a query's embedding: a slow provider leaves the vectors out of that query
// instead of holding it up.
const queryEmbedTimeout = 5 * time.Second

// search returns the chunks nearest to text, or nothing when there are no vectors or the query cannot
// be embedded (the other signals answer).
func (v *vectorFiller) search(ctx context.Context, text string, k int) []vector.Hit {
	if v.e == nil || k <= 0 {
		return nil
	}
	var hits []vector.Hit
	var err error
	if store := v.opened(); store != nil || v.dir == "" {
		if store == nil {
			store = v.loaded()
		}
		if store == nil || !v.repaired(ctx) {
			return nil
		}
		hits, err = v.searchStore(ctx, store, text, k)
	} else {
		sctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
		hits, err = vector.SearchFile(sctx, v.dir, v.e, text, k)
		cancel()
		if errors.Is(err, vector.ErrNoStore) || errors.Is(err, vector.ErrCorrupt) {
			// nothing saved, or damaged: the store is loaded, which repairs it, and filled again;
			// until then it is not used
			if complete := v.repair(); errors.Is(err, vector.ErrNoStore) && !complete {
				v.ix.warn("vectors: %v; packs are made without vectors until they are made again", err)
			}
			hits, err = nil, nil
			v.ix.LoadVectors()
			v.nudge()
			if store := v.opened(); store != nil && v.repaired(ctx) {
				hits, err = v.searchStore(ctx, store, text, k)
			}
		}
	}
	if ctx.Err() == nil {
		v.note(err)
	}
	if err != nil {
		return nil
	}
	return hits
}

// VectorProgress counts the chunks embedded and the chunks queued for embedding since the index
// opened; a front end shows it while it waits for the vectors.
func (ix *Index) VectorProgress() (done, total int) {
	v := ix.vectors
	v.mu.Lock()
	defer v.mu.Unlock()
	return min(v.embeddedN, v.queuedN), v.queuedN
}

func (v *vectorFiller) searchStore(ctx context.Context, store *vector.Store, text string, k int) ([]vector.Hit, error) {
	sctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	return store.Search(sctx, text, k)
}

// repaired tells whether a query may use the store: not while a damaged one is made again, unless
// complete answers were asked for, which wait for it (as long as ctx allows).
func (v *vectorFiller) repaired(ctx context.Context) bool {
	v.mu.Lock()
	repairing, complete := v.repairing, v.complete
	v.mu.Unlock()
	if !repairing {
		return true
	}
	if !complete {
		return false
	}
	v.waitCtx(ctx)
	return ctx.Err() == nil
}

// wait blocks until everything queued so far is embedded; from then on, queries wait for a damaged
// store to be made again rather than answer without it.
func (v *vectorFiller) wait() {
	v.mu.Lock()
	v.complete = true
	v.mu.Unlock()
	v.waitCtx(context.Background())
}

func (v *vectorFiller) waitCtx(ctx context.Context) {
	for {
		v.mu.Lock()
		// idle once the worker has seen nothing left: then the generation counts as complete
		idle := len(v.puts) == 0 && len(v.dels) == 0 && !v.refillAll && !v.busy && v.doneGen == v.gen
		v.mu.Unlock()
		if idle || v.e == nil {
			return
		}
		select {
		case <-v.done:
			return
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// drainTimeout bounds how long Close waits for pending embeddings before giving them up.
const drainTimeout = 10 * time.Second

func (v *vectorFiller) close() {
	if v.e == nil {
		return
	}
	drained := make(chan struct{})
	go func() { v.waitCtx(context.Background()); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
	}
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	v.stop()
	select {
	case v.wake <- struct{}{}:
	default:
	}
	close(v.wake)
	<-v.done
	// The marker says the saved vectors are complete: written only after they are on disk, and only
	// when nothing was left pending or failed; otherwise the next start embeds everything again.
	complete := len(v.puts) == 0 && len(v.dels) == 0 && !v.refillAll && v.doneGen == v.gen && !v.lost
	if store := v.opened(); store != nil {
		if err := store.Close(); err != nil {
			v.ix.warn("vectors: %v", err)
			complete = false
		}
	}
	if f := v.genFile(); f != "" {
		if complete {
			_ = os.WriteFile(f, []byte(v.marker(v.gen)), 0o600)
		} else {
			os.Remove(f)
		}
	}
}

// embedText is what a chunk is embedded by: its names, doc and the start of its code.
func embedText(c Chunk) string {
	return words.Clip(c.Path+"\n"+c.Name+"\n"+c.Doc+"\n"+c.Code, 2048)
}
