// Package index is the workspace engine: it lists, parses and indexes the files of one root, keeps the
// entity map, the lexical and vector stores current as files change, and answers queries from immutable
// snapshots. The server, the CLI and the agent tools all go through it.
package index

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/lexical"
	"github.com/ctxmap/ctxmap/internal/lexicon"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
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
	Packs    bool    // the process will make packs: the tokenizer loads while the index opens
	Logf     func(format string, args ...any)
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
	lex     *lexical.Store
	vectors *vector.Filler
	gen     uint64
	dirty   bool
	// lastParsed counts the files the last apply parsed (for the stats), lastTaken those it took as
	// a quick pack parsed them
	lastParsed int
	lastTaken  int
	only       []walk.File   // a quick index's files, which Build reads instead of walking (see Quick)
	walked     *walk.Result  // a quick pack's walk, which the next Build lists instead of walking (UseQuick)
	reads      *quickReads   // what quick packs parsed, which the next Build takes instead of parsing (UseQuick)
	keep       *quickReads   // a quick index's: where what it parses is kept for the full build
	partial    *pack.Partial // a quick index's packs say so
	saver      *time.Timer

	snap atomic.Pointer[Snapshot]

	lexMu  sync.Mutex
	lex0   *lexicon.Lexicon
	lexKey lexiconKey

	overlayMu sync.Mutex
	overlay   map[string][]byte
	reread    map[string]bool // buffers closed since the last update: their records came from the buffer

	firstMu sync.Mutex
	first   map[string]bool // files the running or next build reads before the others (ReadFirst)

	warnMu   sync.Mutex
	warnings []string
	// records of the state file found damaged when read, since the index opened (see DamagedRecords)
	damagedRecords atomic.Int64
}

// Open prepares the index of a root: configuration, cache, stores. It reads what a previous run left in
// the cache but does not look at the files; call Build for that.
func Open(ctx context.Context, opts Options) (*Index, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", opts.Root, err)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a folder", root)
	}
	ix := &Index{root: root, logf: opts.Logf, overlay: map[string][]byte{}, reread: map[string]bool{}}
	if ix.logf == nil {
		ix.logf = func(string, ...any) {}
	}
	if opts.Config != nil {
		ix.cfg = *opts.Config
	} else if ix.cfg, err = LoadConfig(root); err != nil {
		return nil, err
	}
	if err := ix.cfg.Validate(); err != nil {
		return nil, err
	}
	if !opts.InMemory {
		ix.cache = opts.CacheDir
		if ix.cache == "" {
			if ix.cache, err = DefaultCacheDir(root); err != nil {
				return nil, err
			}
		}
		if inside(root, ix.cache) {
			return nil, fmt.Errorf("cache folder %s is inside the workspace %s", ix.cache, root)
		}
		// the cache holds the workspace's code: for its owner only
		if err := os.MkdirAll(ix.cache, 0o700); err != nil {
			return nil, fmt.Errorf("create cache folder: %w", err)
		}
		if err := os.Chmod(ix.cache, 0o700); err != nil {
			return nil, fmt.Errorf("restrict cache folder: %w", err)
		}
	}
	if opts.Packs {
		// the tokenizer takes a quarter of a second to load: it loads while the index opens and builds
		go pack.NewTokenizer(ix.cfg.Tokenizer) // a bad name is reported by the request
	}
	state := ix.openStores(ctx)
	if state != nil {
		ix.gen, ix.listing = state.Generation, state.Listing
		ix.snap.Store(snapshotOf(state, root))
	} else {
		ix.snap.Store(newSnapshot(root, 0, store.NewFiles(nil), map[string]string{}, nil))
	}
	return ix, nil
}

// openStores opens the lexical and vector stores and the persisted state, and checks that they agree.
// Anything broken is reported, thrown away and rebuilt: a cache is never trusted over the files.
func (ix *Index) openStores(ctx context.Context) *store.State {
	if ix.cache == "" {
		ix.lex, _ = lexical.Open("")
		ix.vectors = ix.newVectors(nil, "the index is kept in memory only")
		return nil
	}
	// One process owns the cache, from before its first store is opened or created until Close: no
	// other process writes, moves or removes anything in it meanwhile.
	lock, err := store.TakeLock(ix.cache)
	if err != nil {
		if errors.Is(err, store.ErrBusy) {
			ix.warn("the cache %s is in use by another ctxmap process; indexing in memory", ix.cache)
		} else {
			ix.warn("%v; indexing in memory", err)
		}
		ix.cache = ""
		return ix.openStores(ctx)
	}
	ix.lock = lock
	store.RemoveLeftovers(ix.cache, ix.logf)
	lexDir := filepath.Join(ix.cache, "lexical.bleve")
	lex, err := lexical.Open(lexDir)
	if lexical.IsBusy(err) {
		// a ctxmap from before the owner lock holds the lexical index
		ix.warn("the cache %s is in use by another ctxmap process; indexing in memory", ix.cache)
		ix.lock.Release()
		ix.lock, ix.cache = nil, ""
		return ix.openStores(ctx)
	}
	rebuilt := err != nil // and said so
	var damaged *lexical.DamagedError
	if errors.As(err, &damaged) {
		ix.warn("cache file %s; %s, rebuilding", err, store.MoveAside(ix.cache, lexDir))
	} else if err != nil {
		ix.warn("lexical index unusable, rebuilding: %v", err)
		os.RemoveAll(lexDir)
	}
	if err != nil {
		if lex, err = lexical.Open(lexDir); err != nil {
			ix.warn("lexical index cannot be created, indexing in memory: %v", err)
			lex, _ = lexical.Open("")
		}
	}
	ix.lex = lex
	state, err := store.Load(ix.cache, ix.root)
	if errors.As(err, new(store.DamagedError)) {
		ix.warn("%v; %s, rebuilding", err, store.MoveAside(ix.cache, store.StatePath(ix.cache)))
	} else if err != nil {
		ix.warn("%v; rebuilding", err)
	}
	if state != nil {
		state.OnDamaged(func(p string, err error) {
			ix.damagedRecords.Add(1)
			ix.warn("cache %s: the record of %s is damaged (%v); the file is read again at the next build", store.StatePath(ix.cache), p, err)
		})
		meta, _ := lex.Meta("generation")
		if len(meta) != 8 || binary.BigEndian.Uint64(meta) != state.Generation {
			if !rebuilt {
				ix.warn("cache %s and its lexical index disagree; rebuilding", ix.cache)
			}
			state = nil
		}
	}
	if state == nil {
		// start the lexical index from nothing so that no chunk of an unknown file survives
		lex.Close()
		os.RemoveAll(lexDir)
		if ix.lex, err = lexical.Open(lexDir); err != nil {
			ix.warn("lexical index cannot be created, indexing in memory: %v", err)
			ix.lex, _ = lexical.Open("")
		}
	}
	var e embed.Embedder
	off := "disabled in the configuration"
	if ix.cfg.vectors() {
		if e, err = newEmbedder(ctx, ix.cfg.Embedding); err != nil {
			ix.warn("vectors off: %v", err)
			off = err.Error()
		}
	}
	ix.vectors = ix.newVectors(e, off)
	if state != nil {
		ix.vectors.Resume(state.Generation)
	}
	return state
}

func (ix *Index) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	ix.warnMu.Lock()
	ix.warnings = append(ix.warnings, msg)
	ix.warnMu.Unlock()
	ix.logf("%s", msg)
}

// Warnings returns and clears the warnings gathered since the last call.
func (ix *Index) Warnings() []string {
	ix.warnMu.Lock()
	defer ix.warnMu.Unlock()
	w := ix.warnings
	ix.warnings = nil
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

// Build brings the index in line with the files on disk: a cold build the first time, afterwards only
// what changed since the cache was written is read again.
func (ix *Index) Build(ctx context.Context, progress Progress) (Stats, error) {
	start := time.Now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.matcher = nil // read again by the next Update: an ignore file may have changed
	res, same := &walk.Result{Files: ix.only}, true
	walked := ix.walked
	ix.walked = nil
	defer func() { ix.reads = nil }() // what the quick packs parsed serves this build only
	if ix.only == nil {
		listing := ix.listing
		if listing == nil && walked != nil {
			listing = walked.Listing // a quick pack's walk of moments before, rechecked as a saved one is
		}
		res, same = walk.Recheck(ctx, ix.root, ix.cfg.WalkOptions(), listing)
		if same && listing != ix.listing {
			res.Listing, same = listing, false
		} else if !same {
			var err error
			if res, err = walk.Walk(ctx, ix.root, ix.cfg.WalkOptions()); err != nil {
				return Stats{}, fmt.Errorf("list %s: %w", ix.root, err)
			}
		}
	}
	if !same {
		// saved, so that the next start rechecks it instead of walking
		ix.dirty = ix.dirty || ix.cache != "" && !ix.listing.Same(res.Listing)
		ix.listing = res.Listing
	}
	old := ix.Snapshot()
	// git's log is read while the files are: only what is derived at the end needs it
	var hist *history.Log
	var histErr error
	histRead := make(chan struct{})
	go func() {
		defer close(histRead)
		hist, histErr = ix.readHistory(ctx, old.History)
	}()
	defer func() { <-histRead }()
	gitLog := func() *history.Log {
		<-histRead
		if histErr != nil {
			ix.warn("git history: %v", histErr)
			histErr = nil
		}
		return hist
	}
	seen := make([]fileStat, 0, len(res.Files))
	for _, f := range res.Files {
		seen = append(seen, fileStat{path: f.Path, size: f.Size, mod: f.ModTime.UnixNano(), exists: true})
	}
	skipped := map[string]string{}
	for _, s := range res.Skipped {
		skipped[s.Path] = s.Reason
	}
	st, err := ix.apply(ctx, seen, true, skipped, gitLog, progress)
	if err != nil {
		return st, err
	}
	if err := ix.saveLocked(); err != nil {
		ix.warn("%v", err)
	}
	if ix.lastTaken > 0 {
		ix.logf("build: %d files parsed, %d taken as the quick packs parsed them", ix.lastParsed, ix.lastTaken)
	}
	st = ix.Snapshot().Stats()
	st.Parsed = ix.lastParsed
	st.Seconds = time.Since(start).Seconds()
	st.Cache = ix.cache
	st.Vectors = ix.VectorStatus()
	st.Warnings = ix.Warnings()
	return st, nil
}

// UseQuick has the next Build take what q's quick packs found instead of finding it again. An index
// that was never built takes its files from their walk of moments before: it rechecks the folders'
// and files' times as it does a saved listing's, and walks only when one moved. It takes the files
// they read and parsed as they parsed them, each whose size and time are still those the quick pack
// saw (a file changed since, or open in an editor, is read again); what it leaves goes when it ends.
// A nil q hands nothing over.
func (ix *Index) UseQuick(q *Quick) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.walked, ix.reads = nil, nil
	if q == nil {
		return
	}
	ix.walked = q.walked
	if q.reads != nil && q.cfg.readsAs(ix.cfg) {
		ix.reads = q.reads
	}
}

// Update re-reads the given workspace-relative paths (created, changed, deleted or renamed files; a
// folder stands for the files under it) and publishes a new snapshot.
func (ix *Index) Update(ctx context.Context, paths []string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.matcher == nil {
		m, err := walk.NewMatcher(ix.root, ix.cfg.WalkOptions())
		if err != nil {
			return fmt.Errorf("read ignore files: %w", err)
		}
		ix.matcher = m
	}
	old := ix.Snapshot()
	var changes []fileStat
	skipped := make(map[string]string, len(old.Skipped))
	for p, r := range old.Skipped {
		skipped[p] = r
	}
	seen := map[string]bool{}
	for _, p := range paths {
		p = filepath.ToSlash(filepath.Clean(p))
		if p == "." || strings.HasPrefix(p, "../") || filepath.IsAbs(p) || seen[p] {
			continue
		}
		seen[p] = true
		delete(skipped, p)
		changes = append(changes, ix.statPath(p, skipped)...)
		// a folder that disappeared takes its files with it
		for q := range old.files.Entries() {
			if strings.HasPrefix(q, p+"/") && !seen[q] {
				seen[q] = true
				changes = append(changes, ix.statPath(q, skipped)...)
			}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	_, err := ix.apply(ctx, changes, false, skipped, func() *history.Log { return old.History }, nil)
	ix.scheduleSave()
	return err
}

// statPath describes one path for apply: gone, ignored or skipped paths come back as not existing.
func (ix *Index) statPath(p string, skipped map[string]string) []fileStat {
	abs := filepath.Join(ix.root, filepath.FromSlash(p))
	fi, err := os.Stat(abs)
	if err != nil || ix.matcher.Ignored(p, fi != nil && fi.IsDir()) {
		return []fileStat{{path: p}}
	}
	if fi.IsDir() {
		// a new folder: its files are listed by the walk rules
		var out []fileStat
		res, err := walk.Walk(context.Background(), abs, ix.cfg.WalkOptions())
		if err != nil {
			return nil
		}
		for _, f := range res.Files {
			q := p + "/" + f.Path
			if !ix.matcher.Ignored(q, false) {
				out = append(out, fileStat{path: q, size: f.Size, mod: f.ModTime.UnixNano(), exists: true})
			}
		}
		return out
	}
	if !fi.Mode().IsRegular() {
		return []fileStat{{path: p}}
	}
	if fi.Size() > ix.maxFileSize() {
		skipped[p] = "too large"
		return []fileStat{{path: p}}
	}
	return []fileStat{{path: p, size: fi.Size(), mod: fi.ModTime().UnixNano(), exists: true}}
}

type fileStat struct {
	path      string
	size, mod int64
	exists    bool
}

// apply reads and parses the given files, updates the stores and publishes the next snapshot. With
// full set, files not in the list are removed (a full build); otherwise the list is a set of changes.
// gitLog gives the history the snapshot derives from, once the files are read. It goes as a build
// does: decide what to read, read and store it a batch at a time, drop what left, derive and publish.
func (ix *Index) apply(ctx context.Context, list []fileStat, full bool, skipped map[string]string, gitLog func() *history.Log, progress Progress) (Stats, error) {
	old := ix.Snapshot()
	files, work := ix.plan(old, list, full, skipped)
	if len(work) >= bigBuild && os.Getenv("GOGC") == "" {
		// a large build keeps every record it makes while parse trees come and go: collecting twice
		// as often keeps its peak a third lower (1.6 GB -> 1.1 GB on a 23,000-file tree) for a
		// tenth more time
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	b := &batchWriter{ix: ix, old: old, files: files, skipped: skipped, read: map[string]*Record{}}
	stopped, err := b.load(ctx, work, progress)
	if err != nil {
		return Stats{}, err
	}
	if stopped {
		if b.wrote {
			ix.keepPartial(old, b.read, skipped, gitLog())
		}
		return Stats{}, fmt.Errorf("index %s: %w", ix.root, ctx.Err())
	}
	removedIDs := ix.removed(old, files, b.read)
	next := store.NewFiles(files)
	hist := gitLog()
	// new or removed chunks always derive anew; otherwise every record is compared
	same := ix.lastParsed == 0 && !b.wrote && len(removedIDs) == 0 && old.derivesFrom(next, hist)
	if !same {
		if len(removedIDs) > 0 {
			if err := b.write(removedIDs, nil); err != nil {
				return Stats{}, err
			}
		}
		ix.gen++
		if err := ix.markGeneration(); err != nil {
			return Stats{}, err
		}
		ix.dirty = true
	}
	if full {
		forgetSkips(skipped, files)
	}
	var snap *Snapshot
	if same {
		// nothing to derive again (a warm start, a save without changes): only read times or skips moved
		snap = old.withRecords(next, skipped)
		ix.dirty = ix.dirty || !maps.Equal(old.files.Entries(), files) || !maps.Equal(old.Skipped, skipped)
	} else {
		snap = newSnapshot(ix.root, ix.gen, next, skipped, hist)
	}
	ix.snap.Store(snap)
	ix.vectors.Kick(ix.gen)
	return snap.Stats(), nil
}

// plan decides what apply reads: the entries that stay as they are, and the files to read, in path
// order (the files ReadFirst names are then taken first; the stores' answers do not depend on the order
// they were filled in). Files gone, secret or of no language leave the entries; the last two are
// skipped.
func (ix *Index) plan(old *Snapshot, list []fileStat, full bool, skipped map[string]string) (map[string]*store.Entry, []fileStat) {
	files := make(map[string]*store.Entry, old.files.Len()+len(list))
	if !full {
		maps.Copy(files, old.files.Entries())
	}
	var work []fileStat
	for _, f := range list {
		if !f.exists {
			delete(files, f.path)
			continue
		}
		if walk.SecretName(path.Base(f.path)) {
			skipped[f.path] = walk.ReasonSecret // never read
			delete(files, f.path)
			continue
		}
		if parse.LanguageOf(f.path) == "" {
			// no grammar for its name; its first bytes tell a binary file from text of another kind
			skipped[f.path] = "unsupported"
			if walk.BinaryFile(filepath.Join(ix.root, filepath.FromSlash(f.path))) {
				skipped[f.path] = walk.ReasonBinary
			}
			delete(files, f.path)
			continue
		}
		if e := old.files.Entries()[f.path]; e != nil && e.Unchanged(f.size, f.mod) && !ix.fromBuffer(f.path) {
			files[f.path] = e
			continue
		}
		work = append(work, f)
	}
	slices.SortFunc(work, func(a, b fileStat) int { return strings.Compare(a.path, b.path) })
	return files, work
}

// batchWriter reads and parses the files of a build a batch at a time and sends each batch's chunks
// to the stores at once, so that a cold build holds one batch's chunks, not the whole workspace's.
type batchWriter struct {
	ix       *Index
	old      *Snapshot
	files    map[string]*store.Entry // the next snapshot's entries, updated as files are read
	skipped  map[string]string
	read     map[string]*Record // the files the batches wrote, nil for those gone
	wrote    bool               // the lexical index was written to
	lexBatch int
}

// load reads work and stores what it reads; stopped when ctx ended first.
func (b *batchWriter) load(ctx context.Context, work []fileStat, progress Progress) (stopped bool, err error) {
	ix := b.ix
	// A lexical batch is a segment that bleve merges later: a small build's load batch goes in one
	// (cli/cli indexes a few percent faster than in batches of 500), a large build's in batches of 500,
	// which keep its peak 90 MB lower on a 30,000-file tree.
	b.lexBatch = 4096
	if len(work) >= bigBuild {
		b.lexBatch = 500
	}
	ix.lastParsed, ix.lastTaken = 0, 0
	batches, stop := ix.loadAhead(ctx, work, b.old, progress)
	defer stop()
	from := 0
	for results := range batches {
		batch := work[from : from+len(results)]
		from += len(results)
		ix.readAgain(batch)
		if err := b.store(results); err != nil {
			return false, err
		}
		ix.vectors.Nudge()
	}
	return from < len(work), nil
}

// store takes one batch's results into the entries and their chunks into the stores, in place of the
// chunks of the files' old records.
func (b *batchWriter) store(results []loaded) error {
	ix := b.ix
	var del []string
	var docs []lexical.Doc
	for _, res := range results {
		switch {
		case res.reused:
			b.files[res.path] = store.EntryOf(res.rec)
			continue
		case res.err != nil:
			// deleted mid-index, unreadable: it is simply not there
			if !errors.Is(res.err, fs.ErrNotExist) {
				b.skipped[res.path] = "unreadable"
				ix.warn("%v", res.err)
			}
			delete(b.files, res.path)
		default:
			if res.quick {
				ix.lastTaken++
			} else {
				ix.lastParsed++
			}
			if res.warning != "" {
				ix.warn("%s", res.warning)
			}
			if ix.keep != nil {
				ix.keep.put(res) // before the terms go, below
			}
			b.files[res.path] = store.EntryOf(res.rec)
			delete(b.skipped, res.path)
			if res.rec.Skip != "" {
				b.skipped[res.path] = res.rec.Skip
			}
			for i := range res.chunks {
				docs = append(docs, lexical.Doc{ID: res.chunks[i].ID, Fields: res.chunks[i].Terms})
				res.chunks[i].Terms = lexical.Fields{} // the embedder, which keeps the chunks a while, reads only their text
			}
			ix.putVectors(res.path, res.chunks)
		}
		// new content or none: the old chunks go
		b.read[res.path] = res.rec
		if r := b.old.Record(res.path); r != nil {
			del = append(del, chunkIDs(r)...)
			if b.files[res.path] == nil {
				ix.vectors.Remove(res.path)
			}
		}
	}
	if len(del) > 0 || len(docs) > 0 {
		return b.write(del, docs)
	}
	return nil
}

// write deletes and adds chunks in the lexical index, a lexical batch at a time.
func (b *batchWriter) write(del []string, docs []lexical.Doc) error {
	if !b.wrote {
		// until the generation is written again, the next start sees that the lexical index does not
		// match the saved state and rebuilds it: a crash midway leaves no half-written index in use
		if err := b.ix.lex.SetMeta("generation", nil); err != nil {
			return fmt.Errorf("write lexical generation: %w", err)
		}
		b.wrote = true
	}
	for i := 0; i < len(docs) || i == 0; i += b.lexBatch {
		if i > 0 {
			del = nil
		}
		if err := b.ix.lex.Replace(del, docs[i:min(i+b.lexBatch, len(docs))]); err != nil {
			return err
		}
	}
	return nil
}

// removed are the chunks of what left the index without being read (a file deleted, or replaced by
// another record); their vectors go now.
func (ix *Index) removed(old *Snapshot, files map[string]*store.Entry, read map[string]*Record) []string {
	var ids []string
	for p, e := range old.files.Entries() {
		if _, done := read[p]; done {
			continue
		}
		if ne := files[p]; ne == e || ne != nil && ne.Head().Hash == e.Head().Hash {
			continue
		}
		ids = append(ids, chunkIDs(e.Record(p))...)
		ix.vectors.Remove(p)
	}
	return ids
}

// forgetSkips drops, after a full build, the skip reasons of files no longer listed: a reason only
// lasts as long as the file does.
func forgetSkips(skipped map[string]string, files map[string]*store.Entry) {
	for p, reason := range skipped {
		if reason == "unsupported" || reason == "unreadable" || reason == walk.ReasonSecret || walkReason(reason) ||
			parse.LanguageOf(p) == "" { // a binary file of no language, told by this build's plan
			continue
		}
		if files[p] == nil || files[p].Head().Skip == "" {
			delete(skipped, p)
		}
	}
}

// keepPartial saves what a build stopped midway leaves: the records of the files its batches wrote and
// the old records of the rest, which is what the lexical index holds. The next start reads only the
// files still out of line, so a first index interrupted by closing the editor goes on where it stopped.
func (ix *Index) keepPartial(old *Snapshot, read map[string]*Record, skipped map[string]string, hist *history.Log) {
	if ix.cache == "" {
		return
	}
	files := maps.Clone(old.files.Entries())
	for p, r := range read {
		if r == nil {
			delete(files, p)
		} else {
			files[p] = store.EntryOf(r)
		}
	}
	ix.gen++
	// the partial state has no derived part: the next start derives it
	if err := store.Save(ix.cache, &store.State{Root: ix.root, Generation: ix.gen, Records: store.NewFiles(files), Skipped: skipped, History: hist}); err != nil {
		ix.warn("%v", err)
		return
	}
	if err := ix.markGeneration(); err != nil {
		ix.warn("%v", err)
		return
	}
	ix.dirty = false // the saved state holds the snapshot's records and more
	ix.vectors.Kick(ix.gen)
}

// markGeneration records in the lexical index the generation whose chunks it holds, which the next
// start compares with the saved state's.
func (ix *Index) markGeneration() error {
	var g [8]byte
	binary.BigEndian.PutUint64(g[:], ix.gen)
	if err := ix.lex.SetMeta("generation", g[:]); err != nil {
		return fmt.Errorf("write lexical generation: %w", err)
	}
	return nil
}

func walkReason(r string) bool {
	switch r {
	case "vendored", "too large", "symlink outside root", "symlink loop":
		return true
	}
	return false
}

type loaded struct {
	path    string
	rec     *Record
	chunks  []Chunk
	reused  bool
	quick   bool   // parsed by a quick pack, taken from it (UseQuick)
	warning string // said when the result is stored, again by a build that takes it from a quick pack
	err     error
}

// bigBuild is how many files to read make a build large (see apply).
const bigBuild = 2000

// loadBatch is how many files a build reads and parses before their chunks go to the stores.
const loadBatch = 256

// batchOf is the load batch of a build of n files: a small build goes in quarters, so that its stores
// take one in while the next is read.
func batchOf(n int) int { return min(loadBatch, max(32, (n+3)/4)) }

// perFileTimeout bounds one file's parse: a pathological file must not stall the index.
const perFileTimeout = 5 * time.Second

// loadAhead loads work a batch at a time on its own goroutine, a batch ahead of the caller, which stores
// the one before meanwhile. The channel closes early when ctx ends; stop ends the loading and waits.
func (ix *Index) loadAhead(ctx context.Context, work []fileStat, old *Snapshot, progress Progress) (<-chan []loaded, func()) {
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan []loaded)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		batch := batchOf(len(work))
		for from := 0; from < len(work); from += batch {
			ix.takeFirst(work[from:])
			res := ix.load(ctx, work[from:min(from+batch, len(work))], old, func(n, _ int) {
				if progress != nil {
					progress(from+n, len(work))
				}
			})
			if ctx.Err() != nil {
				return
			}
			select {
			case out <- res:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, func() { cancel(); <-done }
}

// ReadFirst has the running build, or the next, read these files before the rest of what it has
// left to read: the files a quick pack chose, which the questions meanwhile are about.
func (ix *Index) ReadFirst(paths []string) {
	ix.firstMu.Lock()
	defer ix.firstMu.Unlock()
	if ix.first == nil {
		ix.first = map[string]bool{}
	}
	for _, p := range paths {
		ix.first[p] = true
	}
}

// takeFirst moves the files of work that ReadFirst named to its front, the others in their order,
// and forgets the names: those not in work were read already or are not the build's.
func (ix *Index) takeFirst(work []fileStat) {
	ix.firstMu.Lock()
	defer ix.firstMu.Unlock()
	if len(ix.first) == 0 {
		return
	}
	var first, rest []fileStat
	for _, f := range work {
		if ix.first[f.path] {
			first = append(first, f)
		} else {
			rest = append(rest, f)
		}
	}
	copy(work[copy(work, first):], rest)
	clear(ix.first)
}

// load reads and parses files on every core, each worker with its own parser.
func (ix *Index) load(ctx context.Context, work []fileStat, old *Snapshot, progress Progress) []loaded {
	out := make([]loaded, len(work))
	var next, done atomic.Int64
	workers := runtime.GOMAXPROCS(0)
	if workers > len(work) {
		workers = len(work)
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := parse.NewParser()
			defer p.Close()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(work) || ctx.Err() != nil {
					return
				}
				out[i] = ix.loadOne(ctx, p, work[i], old.Record(work[i].path))
				if n := done.Add(1); progress != nil {
					progress(int(n), len(work))
				}
			}
		}()
	}
	wg.Wait()
	return out
}

func (ix *Index) loadOne(ctx context.Context, p *parse.Parser, f fileStat, old *Record) (res loaded) {
	res.path = f.path
	defer func() {
		// a parser bug on one file costs that file, never the index
		if r := recover(); r != nil {
			res = loaded{path: f.path, err: fmt.Errorf("parse %s: internal error: %v", f.path, r)}
		}
	}()
	var src []byte
	var hash string
	kept, quick := ix.takeQuick(f)
	if quick {
		hash = kept.rec.Hash
	} else {
		var err error
		if src, err = ix.ReadFile(f.path); err != nil {
			res.err = err
			return res
		}
		sum := sha256.Sum256(src)
		hash = hex.EncodeToString(sum[:16])
	}
	if old != nil && old.Hash == hash {
		rec := *old
		rec.Size, rec.ModTime = f.size, f.mod
		res.rec, res.reused = &rec, true
		return res
	}
	if quick {
		return kept // the same content, read and parsed the same way moments ago
	}
	rec := &Record{Path: f.path, Language: parse.LanguageOf(f.path), Hash: hash, Size: f.size, ModTime: f.mod}
	rec.Lines = countLines(src)
	if int64(len(src)) > ix.maxFileSize() {
		rec.Skip = "too large" // an editor's buffer can outgrow the file it was opened from
		res.rec = rec
		return res
	}
	if reason := walk.Classify(f.path, src); reason != "" {
		rec.Skip = reason
		res.rec = rec
		return res
	}
	pctx, cancel := context.WithTimeout(ctx, perFileTimeout)
	defer cancel()
	pf, err := p.Parse(pctx, f.path, src)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// a grammar can loop on some inputs: the words stay searchable, the record keeps the hash so the
		// file is not parsed again until it changes
		res.warning = fmt.Sprintf("parse %s: the %s grammar did not finish in %v; indexed as plain text", f.path, rec.Language, perFileTimeout)
		pf, err = parse.Text(f.path, src), nil
	}
	if errors.Is(err, parse.ErrNotText) {
		rec.Skip = walk.ReasonBinary // a NUL deep in a text file: a skip with its reason, not an error
		res.rec = rec
		return res
	}
	if err != nil {
		res.err = fmt.Errorf("parse %s: %w", f.path, err)
		return res
	}
	rec.File = pf
	rec.Entity = entity.Contribute(f.path, pf)
	res.chunks = chunks(f.path, pf, src, ix.cfg.Mappings)
	for i := range res.chunks {
		c := &res.chunks[i]
		c.Terms = lexical.NewFields(c.Name, c.Path, c.Doc, c.Code)
	}
	rec.Chunks = refsOf(res.chunks)
	res.rec = rec
	return res
}

// takeQuick is what a quick pack parsed of f, if it was handed over (UseQuick), the file's size and
// time are still those the quick pack saw and no editor's buffer stands for it.
func (ix *Index) takeQuick(f fileStat) (loaded, bool) {
	if ix.reads == nil || ix.fromBuffer(f.path) {
		return loaded{}, false
	}
	return ix.reads.take(f)
}

func (ix *Index) maxFileSize() int64 { return ix.cfg.maxFileSize() }

// maxFileSize is the size past which a file is skipped.
func (c Config) maxFileSize() int64 {
	if c.MaxFileSize > 0 {
		return c.MaxFileSize
	}
	return 1 << 20
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// ReadFile returns a workspace file's content, the editor's unsaved text first.
func (ix *Index) ReadFile(rel string) ([]byte, error) {
	ix.overlayMu.Lock()
	b, ok := ix.overlay[rel]
	ix.overlayMu.Unlock()
	if ok {
		return b, nil
	}
	abs := filepath.Join(ix.root, filepath.FromSlash(rel))
	if !inside(ix.root, abs) {
		return nil, fmt.Errorf("%s is outside the workspace", rel)
	}
	return os.ReadFile(abs)
}

// SetOverlay makes text the content of rel until ClearOverlay (an editor's unsaved buffer); call Update
// afterwards to index it.
func (ix *Index) SetOverlay(rel string, text []byte) {
	ix.overlayMu.Lock()
	ix.overlay[rel] = text
	ix.overlayMu.Unlock()
}

// ClearOverlay goes back to the file on disk; call Update afterwards. The file is read again then: the
// record made from the buffer carries the file's size and time, which did not change.
func (ix *Index) ClearOverlay(rel string) {
	ix.overlayMu.Lock()
	if _, ok := ix.overlay[rel]; ok {
		delete(ix.overlay, rel)
		ix.reread[rel] = true
	}
	ix.overlayMu.Unlock()
}

// fromBuffer tells whether rel's content is, or last was, an editor's buffer: its size and time on
// disk say nothing about it.
func (ix *Index) fromBuffer(rel string) bool {
	ix.overlayMu.Lock()
	defer ix.overlayMu.Unlock()
	_, ok := ix.overlay[rel]
	return ok || ix.reread[rel]
}

// readAgain forgets the closed buffers among paths once they were read from disk.
func (ix *Index) readAgain(paths []fileStat) {
	ix.overlayMu.Lock()
	defer ix.overlayMu.Unlock()
	for _, f := range paths {
		delete(ix.reread, f.path)
	}
}

// RelPath turns an absolute path into a workspace-relative one; ok is false outside the workspace.
func (ix *Index) RelPath(abs string) (string, bool) {
	abs = resolve(abs)
	if !inside(ix.root, abs) {
		return "", false
	}
	rel, err := filepath.Rel(ix.root, abs)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolve follows the symlinks of a path; for a path that does not exist (deleted, not yet saved), those
// of its deepest existing folder, so a link to a folder outside cannot smuggle in a file that is not there
// yet either.
func resolve(abs string) string {
	abs = filepath.Clean(abs)
	tail := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, tail)
		}
		if filepath.Dir(dir) == dir {
			return abs
		}
		tail = filepath.Join(filepath.Base(dir), tail)
	}
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readHistory re-reads git history only when HEAD moved; an error comes with the old log or an
// unavailable one.
func (ix *Index) readHistory(ctx context.Context, old *history.Log) (*history.Log, error) {
	limit := ix.cfg.historyLimit()
	if limit < 0 {
		return sameOrNew(old, &history.Log{Reason: "disabled in the configuration"}), nil
	}
	if old != nil && old.Available && old.Head != "" && old.Head == gitHead(ctx, ix.root) {
		return old, nil
	}
	h, err := history.Read(ctx, ix.root, limit)
	if err != nil {
		return sameOrNew(old, &history.Log{Reason: err.Error()}), err
	}
	return sameOrNew(old, h), nil
}

// sameOrNew keeps the old log when the new one is as unavailable, for the same reason: the snapshot
// derived from it stays valid.
func sameOrNew(old, h *history.Log) *history.Log {
	if old != nil && !old.Available && !h.Available && old.Reason == h.Reason {
		return old
	}
	return h
}

func gitHead(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// saveDelay lets a burst of edits share one cache write.
const saveDelay = 2 * time.Second

func (ix *Index) scheduleSave() {
	if ix.cache == "" || !ix.dirty {
		return
	}
	if ix.saver != nil {
		ix.saver.Stop()
	}
	ix.saver = time.AfterFunc(saveDelay, func() {
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if err := ix.saveLocked(); err != nil {
			ix.warn("%v", err)
		}
	})
}

func (ix *Index) saveLocked() error {
	if ix.cache == "" || !ix.dirty {
		return nil
	}
	s := ix.Snapshot()
	err := store.Save(ix.cache, &store.State{Root: ix.root, Generation: s.Generation, Records: s.files, Skipped: s.Skipped, History: s.History, Derived: derivedOf(s), Listing: ix.listing})
	if err == nil {
		ix.dirty = false
	}
	return err
}

// DamagedRecords counts the records of the state file found damaged when read since the index
// opened. A record is read when a request first needs it, and a damaged one counts as its file without
// content until a build reads the file again: a one-shot caller that sees the count grow during a
// request builds and asks again, rather than answer without that file.
func (ix *Index) DamagedRecords() int64 { return ix.damagedRecords.Load() }

// Close writes what is pending and releases the stores.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.saver != nil {
		ix.saver.Stop()
	}
	err := ix.saveLocked()
	ix.vectors.Close()
	if cerr := ix.lex.Close(); err == nil {
		err = cerr
	}
	ix.lock.Release() // after every store is written and closed
	return err
}
