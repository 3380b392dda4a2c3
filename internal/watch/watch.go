// Package watch follows a workspace's file events recursively and delivers them as debounced batches of
// changed paths, leaving out what the ignore rules leave out.
package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ctxmap/ctxmap/internal/walk"
)

// Batch is the changes of one burst of file events.
type Batch struct {
	Paths  []string // slash-separated, relative to the root, deduplicated and sorted
	Rescan bool     // events were lost or the rules changed: the receiver must compare the whole tree
}

// Options tune how events become batches.
type Options struct {
	Debounce time.Duration // 0 means 50 ms: a burst becomes one batch
	Rescan   time.Duration // periodic rescan once the watch limit was hit; 0 means 30 s
	Walk     walk.Options
}

const (
	defaultDebounce = 50 * time.Millisecond
	defaultRescan   = 30 * time.Second
	maxWait         = time.Second // a steady stream of events still flushes this often
	warningBuffer   = 16
)

// Watcher follows a workspace's files (fsnotify, else periodic rescans) and sends their changes in
// batches.
type Watcher struct {
	root     string // absolute; fsnotify names events under it
	opts     Options
	fsw      *fsnotify.Watcher // nil when no inotify instance was available: periodic rescans only
	events   *queue
	batches  chan Batch
	warnings chan string
	done     chan struct{}
	wg       sync.WaitGroup
	close    sync.Once

	// owned by the loop goroutine after New returns
	matcher  *walk.Matcher
	dirs     map[string]map[string]bool // watched folder -> names of the files known in it
	limited  bool                       // the watch limit was hit: rescan on a timer
	hitLimit bool                       // the limit was hit during the current pass over the tree
	pending  map[string]bool
	gone     map[string]bool // folders dropped since the last batch: their own late events say nothing new
	rescan   bool
	reload   bool // an ignore file changed: read the rules again before the next batch
	resync   bool // watches may be missing: walk the tree again before the next batch
	recheck  bool // folders were dropped: a moved one's watch may have gone with its old path
}

// New watches every folder under root that the ignore rules keep. Warnings are buffered: read them or
// lose them, never block on them.
func New(root string, opts Options) (*Watcher, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("watch %s: not a folder", root)
	}
	if opts.Debounce <= 0 {
		opts.Debounce = defaultDebounce
	}
	if opts.Rescan <= 0 {
		opts.Rescan = defaultRescan
	}
	m, err := walk.NewMatcher(abs, opts.Walk)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w := &Watcher{
		root:     abs,
		opts:     opts,
		events:   newQueue(),
		batches:  make(chan Batch),
		warnings: make(chan string, warningBuffer),
		done:     make(chan struct{}),
		matcher:  m,
		dirs:     map[string]map[string]bool{},
		pending:  map[string]bool{},
		gone:     map[string]bool{},
	}
	w.fsw, err = fsnotify.NewWatcher()
	if errors.Is(err, syscall.EMFILE) {
		w.fsw, w.limited = nil, true
		w.warn("no inotify instance left (raise the sysctl fs.inotify.max_user_instances); " +
			"falling back to a full rescan every " + opts.Rescan.String())
	} else if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	if w.fsw != nil {
		w.addTree("", false)
		w.addGitWatches()
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			drain(w.fsw, w.events)
		}()
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.loop()
	}()
	return w, nil
}

// Batches are the changes, a burst at a time.
func (w *Watcher) Batches() <-chan Batch { return w.batches }

// Warnings say what the watcher cannot do (the watch limit hit, events lost), for the user.
func (w *Watcher) Warnings() <-chan string { return w.warnings }

// Close stops watching; both channels are closed once it returns. Pending changes are dropped.
func (w *Watcher) Close() error {
	var err error
	w.close.Do(func() {
		close(w.done)
		if w.fsw != nil {
			err = w.fsw.Close()
		}
		w.wg.Wait()
		close(w.batches)
		close(w.warnings)
	})
	return err
}

func (w *Watcher) loop() {
	flush := time.NewTimer(time.Hour)
	flush.Stop()
	var first time.Time // the first change not yet flushed
	var poll <-chan time.Time
	var ticker *time.Ticker
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	var out chan Batch // w.batches while a batch waits for the receiver
	var ready Batch
	var readySet map[string]bool

	for {
		if w.limited && ticker == nil {
			ticker = time.NewTicker(w.opts.Rescan)
			poll = ticker.C
		}
		changed := false
		select {
		case <-w.done:
			return
		case <-w.events.ready:
			for _, it := range w.events.take() {
				if w.handle(it) {
					changed = true
				}
			}
			changed = changed || w.recheck // the watches are checked when the batch is taken
		case <-poll:
			w.rescan, w.resync = true, true
			changed = true
		case <-flush.C:
			first = time.Time{}
			if b, ok := w.take(); ok {
				if readySet == nil {
					readySet = map[string]bool{}
				}
				for _, p := range b.Paths {
					readySet[p] = true
				}
				ready.Rescan = ready.Rescan || b.Rescan
				ready.Paths = sortedKeys(readySet)
				out = w.batches
			}
			if !w.limited && ticker != nil {
				ticker.Stop()
				ticker, poll = nil, nil
			}
		case out <- ready:
			out, ready, readySet = nil, Batch{}, nil
		}
		if changed {
			now := time.Now()
			if first.IsZero() {
				first = now
			}
			deadline := now.Add(w.opts.Debounce)
			if limit := first.Add(max(maxWait, 2*w.opts.Debounce)); deadline.After(limit) {
				deadline = limit
			}
			flush.Reset(time.Until(deadline))
		}
	}
}

// take applies the deferred work (rules, watches) and returns what changed since the last batch.
func (w *Watcher) take() (Batch, bool) {
	if w.reload {
		w.reload = false
		m, err := walk.NewMatcher(w.root, w.opts.Walk)
		if err != nil {
			w.warn(fmt.Sprintf("ignore rules not reloaded: %v", err))
		} else {
			w.matcher = m
		}
		w.rescan, w.resync = true, true
	}
	if w.resync {
		w.resync = false
		w.resyncTree()
	}
	if w.recheck {
		w.recheck = false
		w.rewatch()
	}
	if len(w.pending) == 0 && !w.rescan {
		return Batch{}, false
	}
	b := Batch{Paths: sortedKeys(w.pending), Rescan: w.rescan}
	w.pending, w.gone, w.rescan = map[string]bool{}, map[string]bool{}, false
	return b, true
}

// handle records one event or error; it reports whether anything is now pending.
func (w *Watcher) handle(it item) bool {
	if it.err != nil {
		if errors.Is(it.err, fsnotify.ErrEventOverflow) {
			w.warn("file events overflowed the kernel queue; rescanning the workspace")
		} else {
			w.warn(fmt.Sprintf("file events: %v; rescanning the workspace", it.err))
		}
		w.rescan, w.resync = true, true
		return true
	}
	ev := it.ev
	if ev.Op == fsnotify.Chmod || ev.Op == 0 {
		return false
	}
	rel, ok := w.rel(ev.Name)
	if !ok {
		return false
	}
	switch {
	case rel == "":
		w.rescan, w.resync = true, true // the root itself moved or went away
		return true
	case rel == ".git" || rel == ".git/info":
		if ev.Has(fsnotify.Create) {
			w.addGitWatches()
		}
		return false
	case rel == ".git/HEAD":
		w.rescan = true // a branch switch: the checkout's own file events arrive too
		return true
	case rel == ".git/info/exclude":
		w.reload = true
		return true
	case strings.HasPrefix(rel, ".git/"):
		return false
	}
	reported := false
	if w.matcher.IsIgnoreFile(rel) {
		w.reload, reported = true, true
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		reported = w.removed(rel) || reported
	}
	if ev.Has(fsnotify.Create) {
		reported = w.created(rel) || reported
	} else if ev.Has(fsnotify.Write) && !w.matcher.Ignored(rel, false) {
		w.addFile(rel, true)
		reported = true
	}
	return reported
}

// removed handles a path that is gone (deleted or renamed away): a folder stands for its known files.
func (w *Watcher) removed(rel string) bool {
	if _, ok := w.dirs[rel]; ok {
		w.dropTree(rel)
		w.gone[rel] = true
		return true
	}
	if w.gone[rel] {
		w.recheck = true // fsnotify drops a moved folder's watch when it reports the move
		return false
	}
	dir, name := split(rel)
	if files := w.dirs[dir]; files[name] {
		delete(files, name)
		w.pending[rel] = true
		return true
	}
	if w.matcher.Ignored(rel, false) || w.matcher.Ignored(rel, true) {
		return false
	}
	w.pending[rel] = true
	return true
}

// created handles a new path; an atomic save arrives here too, as a create over a known file.
func (w *Watcher) created(rel string) bool {
	st, err := os.Lstat(w.abs(rel))
	if err == nil && st.IsDir() {
		if w.matcher.Ignored(rel, true) {
			return false
		}
		w.addTree(rel, true)
		return true
	}
	if w.matcher.Ignored(rel, false) {
		return false
	}
	w.addFile(rel, true)
	return true
}

func (w *Watcher) addFile(rel string, report bool) {
	dir, name := split(rel)
	if files, ok := w.dirs[dir]; ok {
		files[name] = true
	}
	if report {
		w.pending[rel] = true
	}
}

// warn never blocks: a warning nobody reads is dropped.
func (w *Watcher) warn(msg string) {
	select {
	case w.warnings <- msg:
	default:
	}
}

// rel turns an event name into a slash path relative to the root; false when outside it.
func (w *Watcher) rel(name string) (string, bool) {
	r, err := filepath.Rel(w.root, name)
	if err != nil {
		return "", false
	}
	r = filepath.ToSlash(r)
	if r == "." {
		return "", true
	}
	if r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return r, true
}

func (w *Watcher) abs(rel string) string {
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

// split returns the folder ("" for the root) and the name of a relative path.
func split(rel string) (string, string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}

func sortedKeys(set map[string]bool) []string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
