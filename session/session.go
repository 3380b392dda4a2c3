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
	"sync/atomic"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/watch"
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

// Session is one open workspace.
type Session struct {
	opts  Options
	root  string // the index's root, symlinks resolved
	named string // the root as the front end named it

	ixMu sync.RWMutex // held for writing only while the index is reopened
	ix   *index.Index // nil only when no index could be opened again (see reopenIndex)
	cfg  index.Config

	mu       sync.Mutex
	pending  map[string]*edit // workspace-relative path -> what to apply; nil: re-read from disk
	buffers  map[string][]byte
	rescan   bool
	reopen   *index.Config
	queued   uint64        // sequence number of the latest queued change
	applied  uint64        // every change up to this one is in the snapshot
	advanced chan struct{} // closed and replaced whenever applied moves
	ready    bool          // the first build finished
	indexing bool
	lastErr  error
	rereadAt int64 // the index's DamagedRecords when a rescan was last queued to read them again
	// the index's Parsed at the last refresh (ctxmap index asked on the socket)
	parsedAtRefresh int

	since     time.Time // when the session started
	inFlight  int       // socket requests being answered
	lastAsked time.Time // when the last one ended, or the session started

	yield   sync.RWMutex   // held by a partial answer; the build's workers wait on it (see Partial)
	partial *index.Partial // the partial answers' state until the first build is done; under yield
	cold    bool           // the cache held no index: the first build reads every file
	// closed when the first partial answer is made (see loop)
	firstPartial chan struct{}
	partialOnce  sync.Once
	built        atomic.Uint64 // the running build's share done, in thousandths

	ctx      context.Context
	cancel   context.CancelFunc
	wake     chan struct{}
	loopDone chan struct{}
	started  bool
	closed   bool
	// a stop was asked or the session is closing: no new request is taken, and an answer made
	// meanwhile, from an index the stop may have cut short, is not given as whole
	stopping atomic.Bool
	once     sync.Once
	closeErr error

	watchMu sync.Mutex
	watcher *watch.Watcher
	feeds   sync.WaitGroup

	listener *listener
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
	s := &Session{opts: opts, named: opts.Root, pending: map[string]*edit{}, buffers: map[string][]byte{},
		advanced: make(chan struct{}), wake: make(chan struct{}, 1), loopDone: make(chan struct{}),
		firstPartial: make(chan struct{})}
	ix, err := index.Open(ctx, index.Options{Root: opts.Root, Config: opts.Config, InMemory: opts.InMemory, CacheDir: opts.CacheDir, Logf: opts.Logf, Packs: true})
	if err != nil {
		return nil, err
	}
	s.ix, s.root, s.cfg = ix, ix.Root(), ix.Config()
	s.cold = len(ix.Snapshot().Paths) == 0
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
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return
	}
	s.started = true
	s.lastAsked = time.Now()
	s.since = s.lastAsked
	s.mu.Unlock()
	// the socket first: a watcher on a large tree takes seconds to set up, and the command that
	// started a background process waits for the socket
	if s.opts.Listen && !s.opts.InMemory {
		s.listen()
	}
	// on a cold cache the watcher waits for the first build (then a rescan reads what changed
	// meanwhile): setting up the watch of a large tree takes seconds that the partial answers asked
	// during the build need
	if s.opts.Watch && !s.cold {
		s.startWatcher()
	}
	go s.loop()
	s.Rescan()
}

// acquire returns the index for a read; call done when finished with it. ix is nil when no index
// could be opened again.
func (s *Session) acquire() (ix *index.Index, done func()) {
	s.ixMu.RLock()
	return s.ix, s.ixMu.RUnlock
}

// Config is the configuration in force: the index's, and the request defaults.
func (s *Session) Config() index.Config {
	s.ixMu.RLock()
	defer s.ixMu.RUnlock()
	return s.cfg
}

// Changed queues paths that changed on disk.
func (s *Session) Changed(paths []string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range paths {
		if _, ok := s.pending[p]; !ok {
			s.pending[p] = nil
		}
	}
	return s.signalLocked()
}

// Edited queues an editor buffer's content: it overlays the file on disk until BufferClosed.
func (s *Session) Edited(rel string, text []byte) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[rel] = &edit{text: text}
	s.buffers[rel] = text
	return s.signalLocked()
}

// BufferClosed queues a buffer's closing: the file on disk counts again.
func (s *Session) BufferClosed(rel string) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending[rel] = &edit{closed: true}
	delete(s.buffers, rel)
	return s.signalLocked()
}

// Rescan queues a walk of the whole workspace.
func (s *Session) Rescan() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rescan = true
	return s.signalLocked()
}

// Reconfigure applies a new configuration: request defaults at once; a change to what the index
// holds reopens and rebuilds it (reindexing is then true).
func (s *Session) Reconfigure(cfg index.Config) (reindexing bool) {
	s.ixMu.Lock()
	same := sameIndexConfig(cfg, s.cfg)
	if same {
		s.cfg = cfg
	}
	s.ixMu.Unlock()
	if same {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reopen = &cfg
	s.signalLocked()
	return true
}

// sameIndexConfig says whether two configurations build the same index (request defaults aside).
func sameIndexConfig(a, b index.Config) bool {
	a.Budget, a.Format, a.Tokenizer, a.Ranker, a.Fill, a.Tight, a.Daemon = 0, "", "", "", false, false, nil
	b.Budget, b.Format, b.Tokenizer, b.Ranker, b.Fill, b.Tight, b.Daemon = 0, "", "", "", false, false, nil
	return reflect.DeepEqual(a, b)
}

func (s *Session) signalLocked() uint64 {
	s.queued++
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return s.queued
}

// settleWait bounds how long a read waits for the writer: past it, it answers from what is there.
const settleWait = 3 * time.Second

// Settle waits until the first build finished and every change queued so far is applied, or until
// settleWait passed.
func (s *Session) Settle(ctx context.Context) {
	s.mu.Lock()
	seq := s.queued
	s.mu.Unlock()
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
	for {
		s.mu.Lock()
		done := s.applied >= seq && s.ready || s.closed
		ch := s.advanced
		s.mu.Unlock()
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
		s.stopping.Store(true)
		s.mu.Lock()
		s.closed = true
		started := s.started
		close(s.advanced)
		s.advanced = make(chan struct{})
		s.mu.Unlock()
		s.cancel()
		if started {
			<-s.loopDone
		}
		s.stopListening()
		s.stopWatcher()
		s.yield.Lock()
		s.freePartial()
		s.yield.Unlock()
		s.ixMu.Lock()
		if s.ix != nil {
			s.closeErr = s.ix.Close()
		}
		s.ixMu.Unlock()
	})
	return s.closeErr
}
