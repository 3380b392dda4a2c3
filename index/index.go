package index

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/lexicon"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/internal/vector"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// Options says where the index lives and how it is configured.
type Options struct {
	Root     string
	Config   *Config // nil: read the root's .ctxmap.yaml
	CacheDir string  // "": DefaultCacheDir(root)
	InMemory bool    // keep nothing on disk (tests, read-only use)
	// ReadHeld reads a cache another process holds as that process last saved it, instead of indexing
	// in memory beside it: its records, entities, definitions and graph; nothing is parsed and
	// nothing written. With SearchHeld it is searched too: Build makes its lexical index in memory
	// from the files as the state records them (bleve's lock on the owner's admits no reader, not even
	// a read-only one), and its vectors are read where they lie, when they are those of the state.
	ReadHeld   bool
	SearchHeld bool
	Packs      bool // the process will make packs: the tokenizer loads while the index opens
	Logf       func(format string, args ...any)
}

// Index is the engine for one workspace root. One writer (Build, Update) at a time; readers take
// Snapshot() and never wait for the writer.
type Index struct {
	root  string
	cfg   Config
	cache string // "" when nothing is persisted
	lock  *store.Lock
	logf  func(string, ...any)

	mu      sync.Mutex // the writer's lock
	matcher *walk.Matcher
	listing *walk.Listing // the last walk's, saved with the state
	lex     *bm25.Store
	vectors *vector.Indexer
	gen     uint64
	dirty   bool
	// lastParsed counts the files the last apply parsed (for the stats), lastTaken those it took as
	// a partial pack parsed them
	lastParsed int
	lastTaken  int
	only       []walk.File   // a partial index's files, which Build reads instead of walking (see Partial)
	walked     *walk.Result  // a partial pack's walk, which the next Build lists instead of walking (UsePartial)
	reads      *partialReads // what partial packs parsed, which the next Build takes instead of parsing (UsePartial)
	keep       *partialReads // a partial index's: where what it parses is kept for the full build
	partial    *pack.Partial // a partial index's packs say so
	saver      *time.Timer

	snap atomic.Pointer[Snapshot]

	workspaceLexicon *lexicon.Workspace // the workspace's lexicon, made again when what it is made from changes

	overlayMu sync.Mutex
	overlay   map[string][]byte
	reread    map[string]bool // buffers closed since the last update: their records came from the buffer

	firstMu sync.Mutex
	first   map[string]bool // files the running or next build reads before the others (ReadFirst)

	warnMu   sync.Mutex
	warnings []string       // since the last Warnings, each once
	pending  map[string]int // how often each of warnings was said since the last Warnings
	said     map[string]int // how often each message was said since the index opened (maxSaid of them)
	// records of the state file found damaged when read, since the index opened (see DamagedRecords)
	damagedRecords atomic.Int64
	parsed         atomic.Int64 // files read and parsed since the index was opened (Parsed)
	held           string       // the cache another process holds, read as it is (Options.ReadHeld)
	heldSearch     bool         // its lexical index is still to be made (Options.SearchHeld)
}

// maxSaid bounds the messages whose repetitions are counted; past it, a new message is logged each
// time it is said.
const maxSaid = 1024

// warn says a problem: logged the first time, then again with its count at the 10th, 100th, 1,000th
// time..., and gathered once for Warnings. A warning that repeats costs a line, not a log.
func (ix *Index) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	ix.warnMu.Lock()
	if ix.said == nil {
		ix.said, ix.pending = map[string]int{}, map[string]int{}
	}
	n := ix.said[msg] + 1
	if n > 1 || len(ix.said) < maxSaid {
		ix.said[msg] = n
	}
	if ix.pending[msg] == 0 {
		ix.warnings = append(ix.warnings, msg)
	}
	ix.pending[msg]++
	ix.warnMu.Unlock()
	switch {
	case n == 1:
		ix.logf("%s", msg)
	case isPowerOfTen(n):
		ix.logf("%s (said %d times)", msg, n)
	}
}

func isPowerOfTen(n int) bool {
	for n >= 10 && n%10 == 0 {
		n /= 10
	}
	return n == 1
}

// Warnings returns and clears the warnings gathered since the last call, each once: one said again
// meanwhile ends with how often.
func (ix *Index) Warnings() []string {
	ix.warnMu.Lock()
	defer ix.warnMu.Unlock()
	w := ix.warnings
	for i, msg := range w {
		if n := ix.pending[msg]; n > 1 {
			w[i] = fmt.Sprintf("%s (%d times)", msg, n)
		}
	}
	ix.warnings = nil
	clear(ix.pending)
	return w
}

// Root is the workspace's absolute path.
func (ix *Index) Root() string { return ix.root }

// Config is the configuration in force.
func (ix *Index) Config() Config { return ix.cfg }

// Snapshot is the current state; it never changes once returned.
func (ix *Index) Snapshot() *Snapshot { return ix.snap.Load() }

// Progress is told how many files of a build are done.
type Progress func(done, total int)

// DamagedRecords counts the records of the state file found damaged when read since the index
// opened. A record is read when a request first needs it, and a damaged one counts as its file without
// content until a build reads the file again: a one-shot caller that sees the count grow during a
// request builds and asks again, rather than answer without that file.
func (ix *Index) DamagedRecords() int64 { return ix.damagedRecords.Load() }
