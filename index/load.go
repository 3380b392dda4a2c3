package index

// Loading: reading and parsing the files an update plans, a batch per core, the ones asked for first.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/walk"
)

type loaded struct {
	path    string
	rec     *Record
	chunks  []records.Chunk
	terms   []bm25.Fields // each chunk's normalised text for the lexical store
	reused  bool
	partial bool   // parsed by a partial pack, taken from it (UsePartial)
	warning string // said when the result is stored, again by a build that takes it from a partial pack
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
// left to read: the files a partial pack chose, which the questions meanwhile are about.
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
	kept, partial := ix.takePartial(f)
	if partial {
		hash = kept.rec.Hash
	} else {
		var err error
		if src, err = ix.ReadFile(f.path); err != nil {
			res.err = err
			return res
		}
		hash = contentHash(src)
	}
	if old != nil && old.Hash == hash {
		rec := *old
		rec.Size, rec.ModTime = f.size, f.mod
		res.rec, res.reused = &rec, true
		return res
	}
	if partial {
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
	res.chunks = records.Chunks(f.path, pf, src, ix.cfg.Mappings)
	res.terms = make([]bm25.Fields, len(res.chunks))
	rec.Chunks = make([]records.ChunkRef, len(res.chunks))
	for i, c := range res.chunks {
		res.terms[i] = bm25.NewFields(c.Name, c.Path, c.Doc, c.Code)
		rec.Chunks[i] = c.Ref(res.terms[i].Lengths())
	}
	res.rec = rec
	return res
}

// takePartial is what a partial pack parsed of f, if it was handed over (UsePartial), the file's size and
// time are still those the partial pack saw and no editor's buffer stands for it.
func (ix *Index) takePartial(f fileStat) (loaded, bool) {
	if ix.reads == nil || ix.fromBuffer(f.path) {
		return loaded{}, false
	}
	return ix.reads.take(f)
}

func (ix *Index) maxFileSize() int64 { return ix.cfg.FileSizeLimit() }

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
