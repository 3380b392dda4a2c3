package server

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/watch"
)

// workspace owns the session's index and is its one writer: buffer edits, disk events and rescans are
// queued here and applied in order by a single goroutine, so handlers never wait for the index lock.
// Readers take the current snapshot; a reader that must see the edits sent before it waits (briefly)
// until the writer caught up with them.
type workspace struct {
	srv   *Server
	root  string // the index's root, symlinks resolved
	named string // the root as the client named it

	ixMu sync.RWMutex // held for writing only while the index is reopened
	ix   *index.Index
	cfg  index.Config

	mu       sync.Mutex
	pending  map[string]*edit // workspace-relative path -> what to apply; nil: re-read from disk
	rescan   bool
	reopen   *index.Config
	queued   uint64        // sequence number of the latest queued change
	applied  uint64        // every change up to this one is in the snapshot
	advanced chan struct{} // closed and replaced whenever applied moves
	ready    bool          // the first build finished
	indexing bool
	lastErr  error

	ctx      context.Context
	cancel   context.CancelFunc
	wake     chan struct{}
	loopDone chan struct{}
	started  bool
	closed   bool
	once     sync.Once
	closeErr error

	watchMu sync.Mutex
	watcher *watch.Watcher
	feeds   sync.WaitGroup
}

// edit is an editor buffer's new content, or its closing (back to the file on disk).
type edit struct {
	text   []byte
	closed bool
}

func openWorkspace(ctx context.Context, srv *Server, root string, cfg index.Config) (*workspace, error) {
	w := &workspace{srv: srv, named: root, cfg: cfg, pending: map[string]*edit{},
		advanced: make(chan struct{}), wake: make(chan struct{}, 1), loopDone: make(chan struct{})}
	ix, err := index.Open(ctx, w.indexOptions(cfg))
	if err != nil {
		return nil, err
	}
	w.ix, w.root = ix, ix.Root()
	w.ctx, w.cancel = context.WithCancel(srv.ctx)
	return w, nil
}

func (w *workspace) indexOptions(cfg index.Config) index.Options {
	return index.Options{Root: w.named, Config: &cfg, InMemory: w.srv.opts.InMemory, CacheDir: w.srv.opts.CacheDir, Logf: w.srv.logf}
}

// start builds the index in the background and follows the disk.
func (w *workspace) start(watchDisk bool) {
	w.mu.Lock()
	if w.started || w.closed {
		w.mu.Unlock()
		return
	}
	w.started = true
	w.mu.Unlock()
	if watchDisk {
		w.startWatcher()
	}
	go w.loop()
	w.requestRescan()
}

// acquire returns the index for a read; call done when finished with it.
func (w *workspace) acquire() (ix *index.Index, done func()) {
	w.ixMu.RLock()
	return w.ix, w.ixMu.RUnlock
}

func (w *workspace) config() index.Config {
	w.ixMu.RLock()
	defer w.ixMu.RUnlock()
	return w.cfg
}

// changed queues paths that changed on disk.
func (w *workspace) changed(paths []string) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range paths {
		if _, ok := w.pending[p]; !ok {
			w.pending[p] = nil
		}
	}
	return w.signalLocked()
}

// edited queues a buffer's content (nil text with closed set: the buffer was closed).
func (w *workspace) edited(rel string, e *edit) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending[rel] = e
	return w.signalLocked()
}

func (w *workspace) requestRescan() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rescan = true
	return w.signalLocked()
}

func (w *workspace) requestReopen(cfg index.Config) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reopen = &cfg
	return w.signalLocked()
}

func (w *workspace) signalLocked() uint64 {
	w.queued++
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return w.queued
}

// settleWait bounds how long a read waits for the writer: past it, it answers from what is there.
const settleWait = 3 * time.Second

// settle waits until the first build finished and every change queued so far is applied, or until
// settleWait passed.
func (w *workspace) settle(ctx context.Context) {
	w.mu.Lock()
	seq := w.queued
	w.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	w.waitApplied(ctx, seq)
}

// waitApplied waits until changes up to seq are applied; false when ctx ended first.
func (w *workspace) waitApplied(ctx context.Context, seq uint64) bool {
	for {
		w.mu.Lock()
		done := w.applied >= seq && w.ready || w.closed
		ch := w.advanced
		w.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

func (w *workspace) loop() {
	defer close(w.loopDone)
	for {
		select {
		case <-w.wake:
		case <-w.ctx.Done():
			return
		}
		for w.ctx.Err() == nil && w.step() {
		}
	}
}

// step applies what is queued; false when nothing was.
func (w *workspace) step() bool {
	w.mu.Lock()
	if len(w.pending) == 0 && !w.rescan && w.reopen == nil {
		w.mu.Unlock()
		return false
	}
	edits, rescan, reopen, seq := w.pending, w.rescan, w.reopen, w.queued
	w.pending, w.rescan, w.reopen = map[string]*edit{}, false, nil
	w.indexing = rescan || reopen != nil
	w.mu.Unlock()

	if reopen != nil {
		w.reopenIndex(*reopen)
		rescan = true
	}
	ix := w.ix // only this goroutine replaces it
	paths := make([]string, 0, len(edits))
	for rel, e := range edits {
		paths = append(paths, rel)
		switch {
		case e == nil:
		case e.closed:
			ix.ClearOverlay(rel)
		default:
			ix.SetOverlay(rel, e.text)
		}
	}
	sort.Strings(paths)
	var err error
	if rescan {
		err = w.build(ix)
	} else {
		err = ix.Update(w.ctx, paths)
		w.report(ix.Warnings())
	}
	if err != nil && w.ctx.Err() == nil {
		w.srv.logf("index: %v", err)
		w.srv.logMessage(protocol.MessageTypeError, fmt.Sprintf("ctxmap: %v", err))
	}
	w.mu.Lock()
	w.applied = seq
	w.indexing = false
	if rescan {
		w.ready = true
		w.lastErr = err
	}
	close(w.advanced)
	w.advanced = make(chan struct{})
	w.mu.Unlock()
	return true
}

// build walks the whole workspace, with progress in the editor.
func (w *workspace) build(ix *index.Index) error {
	p := w.srv.beginProgress("ctxmap", "indexing "+filepath.Base(w.root))
	st, err := ix.Build(w.ctx, p.report)
	if err != nil {
		p.end("indexing failed")
		return err
	}
	msg := fmt.Sprintf("%s files, %s definitions, %s entities in %.1fs", thousands(st.Files), thousands(st.Definitions), thousands(st.Entities), st.Seconds)
	p.end(msg)
	w.srv.logMessage(protocol.MessageTypeInfo, "ctxmap indexed "+w.root+": "+msg)
	if n := skippedCount(st.Skipped); n > 0 {
		w.srv.logMessage(protocol.MessageTypeInfo, fmt.Sprintf("ctxmap skipped %s files (%s)", thousands(n), reasons(st.Skipped)))
	}
	w.report(st.Warnings)
	return nil
}

// report shows the index's warnings in the editor's log, a bounded number of them.
func (w *workspace) report(warnings []string) {
	const most = 20
	for i, msg := range warnings {
		if i == most {
			w.srv.logMessage(protocol.MessageTypeWarning, fmt.Sprintf("ctxmap: %d more warnings", len(warnings)-most))
			break
		}
		w.srv.logMessage(protocol.MessageTypeWarning, "ctxmap: "+msg)
	}
}

// reopenIndex opens the index again with a new configuration; requests wait meanwhile.
func (w *workspace) reopenIndex(cfg index.Config) {
	w.stopWatcher()
	w.ixMu.Lock()
	if err := w.ix.Close(); err != nil {
		w.srv.logf("close the index: %v", err)
	}
	ix, err := index.Open(w.ctx, w.indexOptions(cfg))
	if err != nil {
		w.srv.logMessage(protocol.MessageTypeError, fmt.Sprintf("ctxmap: the new settings cannot be applied: %v", err))
		cfg = w.cfg
		ix, err = index.Open(w.ctx, w.indexOptions(cfg))
	}
	if err == nil {
		w.ix, w.cfg = ix, cfg
	}
	w.ixMu.Unlock()
	// the new index starts without the editor's buffers
	for rel, text := range w.srv.docs.overlays() {
		w.ix.SetOverlay(rel, text)
	}
	if !w.srv.opts.NoFileWatch {
		w.startWatcher()
	}
}

// close stops the writer and the watcher and closes the index; later calls return the first result.
func (w *workspace) close() error {
	w.once.Do(func() {
		w.mu.Lock()
		w.closed = true
		started := w.started
		close(w.advanced)
		w.advanced = make(chan struct{})
		w.mu.Unlock()
		w.cancel()
		if started {
			<-w.loopDone
		}
		w.stopWatcher()
		w.ixMu.Lock()
		w.closeErr = w.ix.Close()
		w.ixMu.Unlock()
	})
	return w.closeErr
}

// status is the answer to ctxmap.status.
type status struct {
	Ready       bool      `json:"ready"`
	Indexing    bool      `json:"indexing"`
	Files       int       `json:"files"`
	Definitions int       `json:"definitions"`
	Entities    int       `json:"entities"`
	LastUpdate  time.Time `json:"lastUpdate"`
	Root        string    `json:"root"`
	Pending     int       `json:"pending"`         // changes queued, not yet applied
	Error       string    `json:"error,omitempty"` // why the last full index failed
	Vectors     string    `json:"vectors"`         // the embedding model, or "off: " and why
	// the process, for a user who wonders what the server costs: the heap live after the last
	// collection, and the goroutines
	LiveHeap   uint64 `json:"liveHeap"`
	Goroutines int    `json:"goroutines"`
}

func (w *workspace) status() status {
	w.mu.Lock()
	st := status{Ready: w.ready, Indexing: w.indexing, Root: w.root, Pending: int(w.queued - w.applied)}
	if w.lastErr != nil {
		st.Error = w.lastErr.Error()
	}
	w.mu.Unlock()
	ix, done := w.acquire()
	snap := ix.Snapshot()
	st.Vectors = ix.VectorStatus()
	done()
	for _, p := range snap.Paths {
		st.Files++
		st.Definitions += len(snap.Files[p].File.Definitions)
	}
	if snap.Entities != nil {
		st.Entities = len(snap.Entities.Entities)
	}
	st.LastUpdate = snap.Updated.UTC().Truncate(time.Millisecond)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		st.LiveHeap = live[0].Value.Uint64()
	}
	st.Goroutines = runtime.NumGoroutine()
	return st
}

// rel turns a client URI into a workspace-relative path; outside the workspace is an error a person
// can act on.
func (w *workspace) rel(uri string) (string, error) {
	abs, err := pathOfURI(uri)
	if err != nil {
		return "", err
	}
	ix, done := w.acquire()
	rel, ok := ix.RelPath(abs)
	done()
	if ok && rel != "." {
		return rel, nil
	}
	return "", fmt.Errorf("%s is outside the workspace %s", abs, w.root)
}

func skippedCount(m map[string]int) int {
	n := 0
	for reason, c := range m {
		if reason != "unsupported" {
			n += c
		}
	}
	return n
}

func reasons(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "unsupported" {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %s", k, thousands(m[k]))
	}
	return strings.Join(parts, ", ")
}

// thousands writes n with comma separators: 12,345.
func thousands(n int) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
