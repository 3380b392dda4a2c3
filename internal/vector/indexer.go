package vector

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/internal/embed"
)

// Contents is what the vectors should hold at one moment: an index's snapshot of its files.
type Contents interface {
	// Files counts the files the snapshot has a record of, read or skipped.
	Files() int
	// Paths are the files with content, sorted.
	Paths() []string
	// HasContent tells whether the snapshot holds path's parsed content.
	HasContent(path string) bool
	// Docs are the chunks of path as the file is now, to embed; an error when it cannot be read.
	Docs(path string) ([]Doc, error)
}

// IndexerOptions say where a Indexer keeps its store and what it reads and tells.
type IndexerOptions struct {
	Embedder embed.Embedder // nil: no vectors, for the reason Off gives
	Off      string         // why there are no vectors
	Dir      string         // the store's folder; "": a store in memory
	// GenFile holds, once the vectors of a generation are all saved, that generation and the model
	// (see Close); "": none is kept.
	GenFile string
	// Contents is the index's current snapshot, which a refill brings the store up to.
	Contents func() Contents
	// MoveAside moves a damaged store out of the way and says where it went.
	MoveAside func(path string) string
	// Warn tells the user something went wrong.
	Warn func(format string, args ...any)
	// ReadOnly searches the store of another process where it lies (SearchFile) and writes nothing:
	// no worker, no repair, no generation file.
	ReadOnly bool
}

// Indexer embeds an index's chunks in the background: a query never waits for embeddings, it uses the
// vectors that are there. Pending work per file collapses, so a file saved ten times is embedded once.
type Indexer struct {
	e    embed.Embedder // nil when the vectors are off
	opts IndexerOptions

	// The store is loaded when there is something to write: until then a query reads the saved file
	// in place (SearchFile), and a process that answers one query never loads it.
	openMu sync.Mutex
	store  *Store

	mu        sync.Mutex
	puts      map[string][]Doc
	dels      map[string]bool
	gen       uint64
	refillAll bool
	busy      bool
	closed    bool
	doneGen   uint64 // the generation whose vectors are all in the store
	lost      bool   // a Put failed: some vectors are missing until the next start
	// the store could not be opened, even as new: not tried again (under openMu)
	openFailed bool
	failing    string // why the last embedding failed; "" once one succeeds
	// A damaged store file was found and the store is being made again: until then a query answers
	// without vectors, or, once Wait asked for complete answers, waits for them. Never with half of
	// them.
	repairing bool
	complete  bool
	// chunks queued since the index opened and chunks embedded (or given up), for progress
	queuedN, embeddedN int

	// the store saved, and its generation marked complete, once the worker has been idle for
	// saveDelay after completing a generation (settled); under saveMu, which Close takes too
	saveMu   sync.Mutex
	saver    *time.Timer
	savedGen uint64

	// ctx ends in Close, so that a slow embedding does not hold it
	ctx  context.Context
	stop context.CancelFunc
	wake chan struct{}
	done chan struct{}
}

// NewIndexer fills the store under opts.Dir with opts.Embedder's vectors in the background.
func NewIndexer(opts IndexerOptions) *Indexer {
	if opts.Warn == nil {
		opts.Warn = func(string, ...any) {}
	}
	if opts.Embedder != nil {
		if err := usable(opts.Embedder); err != nil {
			opts.Warn("vectors off: %v", err)
			opts.Embedder, opts.Off = nil, err.Error()
		}
	}
	v := &Indexer{e: opts.Embedder, opts: opts, puts: map[string][]Doc{}, dels: map[string]bool{},
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	v.ctx, v.stop = context.WithCancel(context.Background())
	if v.e == nil || opts.ReadOnly {
		close(v.done)
		return v
	}
	go v.run()
	return v
}

// On tells whether there are vectors at all.
func (v *Indexer) On() bool { return v.e != nil }

// Loaded is the store, loaded on first call; nil when it cannot be opened (and said).
func (v *Indexer) Loaded() *Store {
	v.openMu.Lock()
	defer v.openMu.Unlock()
	if v.store != nil || v.e == nil || v.openFailed || v.opts.ReadOnly {
		return v.store
	}
	vs, err := Open(v.opts.Dir, v.e)
	if err != nil && v.opts.Dir != "" {
		v.damaged(err)
		vs, err = Open(v.opts.Dir, v.e)
	}
	if err != nil {
		// said once: what made it fail (a full disk, a folder it cannot write) stays until a restart
		v.openFailed = true
		v.opts.Warn("vector store cannot be created, going without vectors until the next start: %v", err)
		return nil
	}
	v.store = vs
	return vs
}

// Load loads the store now rather than when it is first written: a long-running process then
// searches it in memory, and damage to it is found and repaired now, not by a query.
func (v *Indexer) Load() {
	if vs := v.Loaded(); vs != nil && vs.Count() == 0 && v.opts.Contents().Files() > 0 {
		v.Refill()
	}
}

// damaged moves a store that cannot be read aside and says so; what queries do until it is made
// again is repairing's. Called with openMu held.
func (v *Indexer) damaged(err error) {
	complete := v.repair()
	until := "packs are made without vectors until they are made again"
	if complete {
		until = "packs wait until they are made again"
	}
	v.opts.Warn("vector store unusable (%v); %s, rebuilding: %s", err, v.opts.MoveAside(v.opts.Dir), until)
}

// repair marks the store as being made again, every file queued, in one step: the worker, which ends
// the repair once nothing is left, cannot see it in between. It says whether queries wait for it.
func (v *Indexer) repair() (complete bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.repairing, v.refillAll = true, true
	return v.complete
}

// opened is the store if it is loaded, else nil.
func (v *Indexer) opened() *Store {
	v.openMu.Lock()
	defer v.openMu.Unlock()
	return v.store
}

// Status names the model the vectors come from, or says why there are none.
func (v *Indexer) Status() string {
	if v.e == nil {
		return "off: " + v.opts.Off
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.failing != "" {
		return v.e.ID() + "; embedding fails: " + v.failing
	}
	return v.e.ID()
}

// note records how an embedding went; the first failure after a success is a warning.
func (v *Indexer) note(err error) {
	v.mu.Lock()
	first := err != nil && v.failing == ""
	if err == nil {
		v.failing = ""
	} else {
		v.failing = err.Error()
	}
	v.mu.Unlock()
	if first {
		v.opts.Warn("vectors: %v", err)
	}
}

// Resume starts from what the saved store holds: unless its vectors were complete at generation gen
// (the saved state's), every file is checked and embedded again where needed once the worker runs.
func (v *Indexer) Resume(gen uint64) {
	if v.upToDate(gen) {
		return
	}
	v.mu.Lock()
	v.refillAll = true
	v.mu.Unlock()
}

// Complete tells whether the saved vectors are those of generation gen, all of them.
func (v *Indexer) Complete(gen uint64) bool { return v.e != nil && v.upToDate(gen) }

// upToDate tells whether the persisted vectors were complete at generation gen.
func (v *Indexer) upToDate(gen uint64) bool {
	if v.e == nil || v.opts.GenFile == "" {
		return true
	}
	b, err := os.ReadFile(v.opts.GenFile)
	return err == nil && string(b) == v.marker(gen)
}

// marker is what the generation file holds once the vectors of generation gen are complete: the
// model too, since a store of another model's vectors is dropped when it is loaded.
func (v *Indexer) marker(gen uint64) string {
	return fmt.Sprintf("%d %s/%d", gen, v.e.ID(), v.e.Dim())
}

// Put queues path's docs, in place of whatever the store holds of it.
func (v *Indexer) Put(path string, docs []Doc) {
	if v.e == nil || v.opts.ReadOnly {
		return
	}
	v.mu.Lock()
	v.queuedN += len(docs) - len(v.puts[path])
	v.puts[path] = docs
	delete(v.dels, path)
	v.mu.Unlock()
}

// Remove queues the removal of path's vectors.
func (v *Indexer) Remove(path string) {
	if v.e == nil || v.opts.ReadOnly {
		return
	}
	v.mu.Lock()
	v.queuedN -= len(v.puts[path])
	delete(v.puts, path)
	v.dels[path] = true
	v.mu.Unlock()
}

// Kick starts the worker on what is pending, which makes generation gen complete once done.
func (v *Indexer) Kick(gen uint64) {
	if v.e == nil {
		return
	}
	v.mu.Lock()
	v.gen = gen
	v.mu.Unlock()
	v.Nudge()
}

// Nudge starts the worker on what is pending without completing a generation: a long build embeds
// as it goes instead of holding every chunk until its end.
func (v *Indexer) Nudge() {
	if v.e == nil {
		return
	}
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

func (v *Indexer) run() {
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
			v.puts, v.dels = map[string][]Doc{}, map[string]bool{}
			v.busy = len(puts) > 0 || len(dels) > 0
			if !v.busy {
				v.doneGen = v.gen // under the lock: wait reads it
				v.repairing = false
				v.mu.Unlock()
				v.settled()
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

func (v *Indexer) write(puts map[string][]Doc, dels map[string]bool) {
	ctx := v.ctx
	store := v.Loaded()
	if store == nil {
		v.mu.Lock()
		v.lost = true
		v.mu.Unlock()
		return
	}
	for p := range dels {
		if err := store.DeletePath(ctx, p); err != nil {
			v.opts.Warn("vectors: %v", err)
		}
	}
	paths := make([]string, 0, len(puts))
	for p := range puts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var docs []Doc
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
			v.opts.Warn("vectors: %v", err)
		}
		docs = append(docs, puts[p]...)
		if len(docs) >= 256 {
			flush()
		}
	}
	flush()
}

// queueAll brings the persisted vectors, which were left incomplete, up to the current snapshot: the
// files whose vectors are missing or were made from other text are embedded again, and the files gone
// are removed. What is still valid is kept, so an interrupted start with a remote model goes on where
// it stopped. A build running meanwhile read some files after the snapshot was made: what it queued
// for them stands.
func (v *Indexer) queueAll() {
	store := v.Loaded()
	if store == nil {
		return
	}
	c := v.opts.Contents()
	for _, p := range c.Paths() {
		if !c.HasContent(p) || v.queued(p) {
			continue
		}
		docs, err := c.Docs(p)
		if err != nil {
			continue
		}
		if !store.Holds(p, docs) {
			v.putUnlessQueued(p, docs)
		}
	}
	for _, p := range store.Paths() {
		if !c.HasContent(p) && !v.queued(p) {
			v.Remove(p)
		}
	}
}

// Refill embeds every file again, in the background.
func (v *Indexer) Refill() {
	v.mu.Lock()
	v.refillAll = true
	v.mu.Unlock()
	v.Nudge()
}

// queued tells whether a put or a removal of path is pending.
func (v *Indexer) queued(path string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	_, put := v.puts[path]
	return put || v.dels[path]
}

func (v *Indexer) putUnlessQueued(path string, docs []Doc) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, put := v.puts[path]; !put && !v.dels[path] {
		v.queuedN += len(docs)
		v.puts[path] = docs
	}
}

func (v *Indexer) isClosed() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.closed
}

// queryEmbedTimeout bounds a query's embedding: a slow provider leaves the vectors out of that query
// instead of holding it up.
const queryEmbedTimeout = 5 * time.Second

// Search returns the chunks nearest to text, or nothing when there are no vectors or the query cannot
// be embedded (the other signals answer).
func (v *Indexer) Search(ctx context.Context, text string, k int) []Hit {
	if v.e == nil || k <= 0 {
		return nil
	}
	var hits []Hit
	var err error
	if v.opts.ReadOnly {
		sctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
		hits, err = SearchFile(sctx, v.opts.Dir, v.e, text, k)
		cancel()
	} else if store := v.opened(); store != nil || v.opts.Dir == "" {
		if store == nil {
			store = v.Loaded()
		}
		if store == nil || !v.repaired(ctx) {
			return nil
		}
		hits, err = v.searchStore(ctx, store, text, k)
	} else {
		sctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
		hits, err = SearchFile(sctx, v.opts.Dir, v.e, text, k)
		cancel()
		if errors.Is(err, ErrNoStore) || errors.Is(err, ErrCorrupt) {
			// nothing saved, or damaged: the store is loaded, which repairs it, and filled again;
			// until then it is not used
			if complete := v.repair(); errors.Is(err, ErrNoStore) && !complete {
				v.opts.Warn("vectors: %v; packs are made without vectors until they are made again", err)
			}
			hits, err = nil, nil
			v.Load()
			v.Nudge()
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

// Progress counts the chunks embedded and the chunks queued for embedding since the indexer started.
func (v *Indexer) Progress() (done, total int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return min(v.embeddedN, v.queuedN), v.queuedN
}

func (v *Indexer) searchStore(ctx context.Context, store *Store, text string, k int) ([]Hit, error) {
	sctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	return store.Search(sctx, text, k)
}

// repaired tells whether a query may use the store: not while a damaged one is made again, unless
// complete answers were asked for, which wait for it (as long as ctx allows).
func (v *Indexer) repaired(ctx context.Context) bool {
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

// Wait blocks until everything queued so far is embedded; from then on, queries wait for a damaged
// store to be made again rather than answer without it.
func (v *Indexer) Wait() {
	v.mu.Lock()
	v.complete = true
	v.mu.Unlock()
	v.waitCtx(context.Background())
}

func (v *Indexer) waitCtx(ctx context.Context) {
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

// saveDelay lets a burst of edits share one save of the store.
const saveDelay = 2 * time.Second

// settled schedules the save of a persistent store once the worker has completed a generation it was
// not saved at, so that another process reading the cache (ctxmap context --no-daemon beside a
// background process) finds the vectors, not only the next start. New work pushes it back.
func (v *Indexer) settled() {
	v.saveMu.Lock()
	defer v.saveMu.Unlock()
	v.mu.Lock()
	gen, closed := v.gen, v.closed
	v.mu.Unlock()
	if v.opts.GenFile == "" || closed || gen == 0 || gen == v.savedGen {
		return
	}
	if v.saver != nil {
		v.saver.Stop()
	}
	v.saver = time.AfterFunc(saveDelay, v.saveSettled)
}

// saveSettled saves the store and marks its generation complete, if the worker is still idle with
// that generation done and nothing was lost.
func (v *Indexer) saveSettled() {
	v.saveMu.Lock()
	defer v.saveMu.Unlock()
	v.mu.Lock()
	gen := v.gen
	idle := !v.closed && len(v.puts) == 0 && len(v.dels) == 0 && !v.refillAll && !v.busy && v.doneGen == gen && !v.lost
	v.mu.Unlock()
	store := v.opened()
	if !idle || store == nil || gen == v.savedGen {
		return
	}
	if err := store.Save(); err != nil {
		v.opts.Warn("vectors: %v", err)
		return
	}
	if err := os.WriteFile(v.opts.GenFile, []byte(v.marker(gen)), 0o600); err == nil {
		v.savedGen = gen
	}
}

// drainTimeout bounds how long Close waits for pending embeddings before giving them up.
const drainTimeout = 10 * time.Second

// Close waits a while for what is pending, stops the worker and saves the store; the generation file
// then says whether the saved vectors are complete.
func (v *Indexer) Close() {
	if v.e == nil || v.opts.ReadOnly {
		return
	}
	drained := make(chan struct{})
	go func() { v.waitCtx(context.Background()); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
	}
	v.saveMu.Lock() // a settled save in progress ends first; none starts after
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	if v.saver != nil {
		v.saver.Stop()
	}
	v.saveMu.Unlock()
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
			v.opts.Warn("vectors: %v", err)
			complete = false
		}
	}
	if f := v.opts.GenFile; f != "" {
		if complete {
			_ = os.WriteFile(f, []byte(v.marker(v.gen)), 0o600)
		} else {
			os.Remove(f)
		}
	}
}
