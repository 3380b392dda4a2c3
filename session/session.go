// Package session owns a workspace's index while a process serves it (the language server, the MCP
// server): the disk watcher's feed, the queue of changes, the one writer that applies them in order,
// and the sequence numbers that let a query wait until the changes sent before it are in. Front ends
// queue changes and ask questions; they never touch the index's writer.
package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// Level says how a message to the user matters.
type Level int

// The levels of a message, as the editor shows them.
const (
	Info Level = iota
	Warning
	Error
)

// Progress follows one full build.
type Progress interface {
	Report(done, total int) // called by the index's workers, concurrently
	End(message string)
}

// Options configure a session.
type Options struct {
	Root     string
	Config   *index.Config // nil: the root's .ctxmap.yaml
	InMemory bool          // keep the index in memory only
	CacheDir string        // "": the index's default cache folder
	Watch    bool          // follow the disk with a watcher
	Listen   bool          // answer the operations on a socket in the cache folder (see Operation.Ask)
	// Stop, when set, is what a stop asked on the socket calls: the session is a background process
	// (see RunBackground); a session without it refuses to stop and asks a background one to at Open.
	Stop func()
	// Logf is the process's log (stderr).
	Logf func(format string, args ...any)
	// Show tells the person using the front end (the editor's log); nil: Logf.
	Show func(level Level, message string)
	// Progress starts the report of a full build; nil: none.
	Progress func(title, message string) Progress
}

// Session is one open workspace. Its parts go by job: the index readers take (writer.go), the
// changes queued for the writer (this file), the first build's partial answers (partial.go), the
// watcher (watch.go), the socket (socket.go) and the process it serves in (process.go).
type Session struct {
	opts  Options
	root  string // the index's root, symlinks resolved
	named string // the root as the front end named it

	ctx      context.Context // the session's: Close cancels it
	cancel   context.CancelFunc
	once     sync.Once
	closeErr error

	ix       heldIndex
	queue    queue
	first    firstBuild
	watching watching
	listener *listener // nil when the session does not listen
	life     lifecycle
}

// queue is what waits for the writer, and how far the writer got.
type queue struct {
	mu       sync.Mutex
	pending  map[string]*edit // workspace-relative path -> what to apply; nil: re-read from disk
	buffers  map[string][]byte
	rescan   bool
	reopen   *index.Config
	queued   uint64        // sequence number of the latest queued change
	applied  uint64        // every change up to this one is in the snapshot
	advanced chan struct{} // closed and replaced whenever applied moves
	wake     chan struct{} // the writer's signal that something was queued
	ready    bool          // the first build finished
	indexing bool
	lastErr  error
	started  bool // the writer runs
	closed   bool // the session closed: nobody waits for the writer any more
	loopDone chan struct{}
}

// edit is an editor buffer's new content, or its closing (back to the file on disk).
type edit struct {
	text   []byte
	closed bool
}

// ErrNoIndex is the answer of a session whose index could not be opened again.
var ErrNoIndex = errors.New("the index could not be opened: see the log")

// Open opens the index of a workspace; Start builds it and follows the disk.
func Open(ctx context.Context, opts Options) (*Session, error) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Show == nil {
		logf := opts.Logf
		opts.Show = func(_ Level, msg string) { logf("%s", msg) }
	}
	if opts.Listen && opts.Stop == nil && !opts.InMemory {
		stopBackgroundFor(ctx, opts)
	}
	s := &Session{opts: opts, named: opts.Root,
		queue: queue{pending: map[string]*edit{}, buffers: map[string][]byte{}, advanced: make(chan struct{}),
			wake: make(chan struct{}, 1), loopDone: make(chan struct{})},
		first: firstBuild{firstPartial: make(chan struct{})}}
	ix, err := index.Open(ctx, index.Options{Root: opts.Root, Config: opts.Config, InMemory: opts.InMemory, CacheDir: opts.CacheDir, Logf: opts.Logf, Packs: true})
	if err != nil {
		return nil, err
	}
	s.ix.ix, s.root, s.ix.cfg = ix, ix.Root(), ix.Config()
	s.first.cold = len(ix.Snapshot().Paths) == 0
	// the session outlives the request that opened it
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return s, nil
}

func (s *Session) indexOptions(cfg index.Config, inMemory bool) index.Options {
	return index.Options{Root: s.named, Config: &cfg, InMemory: inMemory, CacheDir: s.opts.CacheDir, Logf: s.opts.Logf, Packs: true}
}

// Root is the workspace's folder, symlinks resolved.
func (s *Session) Root() string { return s.root }

// Start builds the index in the background and follows the disk.
func (s *Session) Start() {
	if !s.queue.start() {
		return
	}
	s.life.begin()
	// the socket first: a watcher on a large tree takes seconds to set up, and the command that
	// started a background process waits for the socket
	if s.opts.Listen && !s.opts.InMemory {
		s.listen()
	}
	// on a cold cache the watcher waits for the first build (then a rescan reads what changed
	// meanwhile): setting up the watch of a large tree takes seconds that the partial answers asked
	// during the build need
	if s.opts.Watch && !s.first.cold {
		s.startWatcher()
	}
	go s.loop()
	s.Rescan()
}

// Config is the configuration in force: the index's, and the request defaults.
func (s *Session) Config() index.Config { return s.ix.config() }

// Changed queues paths that changed on disk.
func (s *Session) Changed(paths []string) uint64 {
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, p := range paths {
		if _, ok := q.pending[p]; !ok {
			q.pending[p] = nil
		}
	}
	return q.signalLocked()
}

// Edited queues an editor buffer's content: it overlays the file on disk until BufferClosed.
func (s *Session) Edited(rel string, text []byte) uint64 {
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending[rel] = &edit{text: text}
	q.buffers[rel] = text
	return q.signalLocked()
}

// BufferClosed queues a buffer's closing: the file on disk counts again.
func (s *Session) BufferClosed(rel string) uint64 {
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending[rel] = &edit{closed: true}
	delete(q.buffers, rel)
	return q.signalLocked()
}

// Rescan queues a walk of the whole workspace.
func (s *Session) Rescan() uint64 {
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rescan = true
	return q.signalLocked()
}

// Reconfigure applies a new configuration: request defaults at once; a change to what the index
// holds reopens and rebuilds it (reindexing is then true).
func (s *Session) Reconfigure(cfg index.Config) (reindexing bool) {
	if s.ix.setDefaults(cfg) {
		return false
	}
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	q.reopen = &cfg
	q.signalLocked()
	return true
}

// sameIndexConfig says whether two configurations build the same index (request defaults aside).
func sameIndexConfig(a, b index.Config) bool {
	a.Budget, a.Format, a.Tokenizer, a.Ranker, a.Fill, a.Tight, a.Daemon = 0, "", "", "", false, false, nil
	b.Budget, b.Format, b.Tokenizer, b.Ranker, b.Fill, b.Tight, b.Daemon = 0, "", "", "", false, false, nil
	return reflect.DeepEqual(a, b)
}

func (q *queue) signalLocked() uint64 {
	q.queued++
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return q.queued
}

// take empties the queue for the writer; ok is false when nothing was queued.
func (q *queue) take() (edits map[string]*edit, rescan bool, reopen *index.Config, seq uint64, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 && !q.rescan && q.reopen == nil {
		return nil, false, nil, 0, false
	}
	edits, rescan, reopen, seq = q.pending, q.rescan, q.reopen, q.queued
	q.pending, q.rescan, q.reopen = map[string]*edit{}, false, nil
	q.indexing = rescan || reopen != nil
	return edits, rescan, reopen, seq, true
}

// done records that the writer applied the changes up to seq (a full index when rescan, which err
// ended), and wakes whoever waits for them.
func (q *queue) done(seq uint64, rescan bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.applied = seq
	q.indexing = false
	if rescan {
		q.ready = true
		q.lastErr = err
	}
	q.advance()
}

// advance wakes the waiters; the caller holds mu.
func (q *queue) advance() {
	close(q.advanced)
	q.advanced = make(chan struct{})
}

// buffersTo sets the editor's buffers over the files of ix, a newly opened index.
func (q *queue) buffersTo(ix *index.Index) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for rel, text := range q.buffers {
		ix.SetOverlay(rel, text)
	}
}

// start marks the writer running; false when it already runs or the session closed.
func (q *queue) start() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.started || q.closed {
		return false
	}
	q.started = true
	return true
}

// close releases whoever waits for the writer and says whether it was started.
func (q *queue) close() (started bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.advance()
	return q.started
}

// isReady says whether the first build is done.
func (q *queue) isReady() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ready || q.closed
}

// state is the writer's: the first build done, a full index being made, the changes not yet in, and
// why the last full index failed.
func (q *queue) state() (ready, indexing bool, pending int, lastErr error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ready, q.indexing, int(q.queued - q.applied), q.lastErr
}

// settleWait bounds how long a read waits for the writer: past it, it answers from what is there.
const settleWait = 3 * time.Second

// Settle waits until the first build finished and every change queued so far is applied, or until
// settleWait passed.
func (s *Session) Settle(ctx context.Context) {
	s.queue.mu.Lock()
	seq := s.queue.queued
	s.queue.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	s.WaitApplied(ctx, seq)
}

// WaitReady waits, as long as ctx allows, for the first build.
func (s *Session) WaitReady(ctx context.Context) error {
	if !s.WaitApplied(ctx, 0) {
		return fmt.Errorf("the index is still being built: %w", ctx.Err())
	}
	return nil
}

// WaitApplied waits until changes up to seq are applied and the first build finished; false when
// ctx ended first.
func (s *Session) WaitApplied(ctx context.Context, seq uint64) bool {
	q := &s.queue
	for {
		q.mu.Lock()
		done := q.applied >= seq && q.ready || q.closed
		ch := q.advanced
		q.mu.Unlock()
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

// Close stops the writer, the watcher and the socket and closes the index; later calls return the
// first result.
func (s *Session) Close() error {
	s.once.Do(func() {
		s.life.stopping.Store(true)
		started := s.queue.close()
		s.cancel()
		if started {
			<-s.queue.loopDone
		}
		s.stopListening()
		s.stopWatcher()
		s.first.drop(s.opts.Logf)
		s.closeErr = s.ix.close()
	})
	return s.closeErr
}
