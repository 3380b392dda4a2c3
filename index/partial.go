package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/sieve"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// A quick pack is made from at most QuickFiles files of QuickBytes in all: what parses in about a
// second on two cores. The questions after it add at most QuickMore files of QuickMoreBytes to
// those: what parses in a tenth of a second.
const (
	QuickFiles     = 240
	QuickBytes     = 3 << 20
	quickFirst     = 5 // the best files, read whatever their size
	QuickMore      = 16
	QuickMoreBytes = 256 << 10
)

// ErrNothingMatches says no file on disk holds any of a request's terms: a quick pack would be empty.
var ErrNothingMatches = errors.New("no file matches the request's terms")

// QuickContext answers req while the workspace's index is not whole: the request's strong terms
// (stack frames' files, the names and messages it quotes, its rarer words, words of paths) are looked
// for in the files on disk (those the walk lists, by the same ignore rules), the QuickFiles that match
// best are read into an index of their own in memory, and that index makes the pack by the same route
// as the full one (Context). The pack says it is partial: from how many of how many files, with share
// of the full index built (the caller's figure). It returns what it read too.
func QuickContext(ctx context.Context, opts Options, req Resolved, share float64) (*Result, QuickRead, error) {
	q := NewQuick(opts)
	defer q.Close()
	return q.Context(ctx, req, share)
}

// Quick makes the quick packs of one build, one question at a time. The first walks the tree, sieves
// every file and reads the best into an index of their own (QuickContext); it keeps all three, so that
// the next question looks its terms up in what the sieve learned of every file's words and adds to
// that index only the few best files it lacks. Close frees them.
type Quick struct {
	opts   Options
	cfg    Config
	walked *walk.Result         // the walk
	files  map[string]walk.File // the files of a language it listed
	paths  []string             // their paths, in the walk's order
	words  *sieve.Words         // nil: each question sieves the files again
	ix     *Index               // the files read so far
	in     map[string]bool      // their paths
	reads  *quickReads          // what the quick index parsed, for the full build (Index.UseQuick)
}

// QuickRead is what a quick pack read of the files on disk.
type QuickRead struct {
	Sieved int      // files the sieve read: every file the first time, then those a phrase needs
	Parsed []string // files read into the quick index for this pack
}

// NewQuick prepares the quick packs of the workspace opts names; nothing is read until a question.
func NewQuick(opts Options) *Quick {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	return &Quick{opts: opts}
}

// Close frees what the quick packs kept.
func (q *Quick) Close() error {
	q.walked, q.files, q.paths, q.words, q.in, q.reads = nil, nil, nil, nil, nil, nil
	if q.ix == nil {
		return nil
	}
	ix := q.ix
	q.ix = nil
	return ix.Close()
}

// Files is how many files the quick index holds.
func (q *Quick) Files() int { return len(q.in) }

// Context answers req from the files it matches (see QuickContext and Quick).
func (q *Quick) Context(ctx context.Context, req Resolved, share float64) (*Result, QuickRead, error) {
	if q.ix == nil {
		return q.first(ctx, req, share)
	}
	start := time.Now()
	var read QuickRead
	terms := sieve.QueryOf(query.Analyze(req.req.Text, nil))
	var best []sieve.Match
	var err error
	if q.words != nil {
		best, read.Sieved, err = q.words.Best(ctx, terms, QuickFiles)
	} else {
		best, err = sieve.Best(ctx, q.opts.Root, q.paths, terms, QuickFiles, q.cfg.maxFileSize())
		read.Sieved = len(q.paths)
	}
	if err != nil {
		return nil, read, err
	}
	if len(best) == 0 {
		return nil, read, ErrNothingMatches
	}
	// the best files the index lacks, the first whatever its size
	var more []walk.File
	var bytes int64
	for _, m := range best {
		f := q.files[m.Path]
		if len(more) == QuickMore {
			break
		}
		if q.in[m.Path] || len(more) > 0 && bytes+f.Size > QuickMoreBytes {
			continue
		}
		bytes += f.Size
		more, read.Parsed = append(more, f), append(read.Parsed, m.Path)
	}
	sieved := time.Now()
	if err := q.add(ctx, more); err != nil {
		return nil, read, err
	}
	added := time.Now()
	res, err := q.answer(ctx, req, share)
	q.opts.Logf("quick pack again: sieve %.2fs (%d files read), %d files added %.2fs, pack %.2fs", sieved.Sub(start).Seconds(),
		read.Sieved, len(more), added.Sub(sieved).Seconds(), time.Since(added).Seconds())
	return res, read, err
}

// first is the first question's quick pack: the walk, the sieve of every file, the quick index.
func (q *Quick) first(ctx context.Context, req Resolved, share float64) (*Result, QuickRead, error) {
	var read QuickRead
	q.cfg = Config{}
	if q.opts.Config != nil {
		q.cfg = *q.opts.Config
	} else if c, err := LoadConfig(q.opts.Root); err == nil {
		q.cfg = c
	}
	start := time.Now()
	listed, err := walk.Walk(ctx, q.opts.Root, q.cfg.WalkOptions())
	if err != nil {
		return nil, read, fmt.Errorf("list %s: %w", q.opts.Root, err)
	}
	files := map[string]walk.File{}
	var paths []string
	for _, f := range listed.Files {
		if parse.LanguageOf(f.Path) != "" {
			paths = append(paths, f.Path)
			files[f.Path] = f
		}
	}
	walked := time.Now()
	best, words, err := sieve.Learn(ctx, q.opts.Root, paths, sieve.QueryOf(query.Analyze(req.req.Text, nil)), QuickFiles, q.cfg.maxFileSize())
	if err != nil {
		return nil, read, err
	}
	read.Sieved = len(paths)
	if len(best) == 0 {
		return nil, read, ErrNothingMatches
	}
	only := make([]walk.File, 0, len(best))
	// the best few whatever their size, then the next ones that fit
	var bytes int64
	for i, m := range best {
		f := files[m.Path]
		if i >= quickFirst && bytes+f.Size > QuickBytes {
			continue
		}
		bytes += f.Size
		only, read.Parsed = append(only, f), append(read.Parsed, m.Path)
	}
	sieved := time.Now()
	// the history's terms and the vectors come with the full index: git's log of a large tree and the
	// embeddings take seconds, and change no first file of the benchmark's issues
	quick := q.cfg
	quick.History = -1
	quick.Vectors = new(bool)
	ix, err := Open(ctx, Options{Root: q.opts.Root, Config: &quick, InMemory: true, Packs: true, Logf: q.opts.Logf})
	if err != nil {
		return nil, read, err
	}
	q.walked, q.files, q.paths, q.words, q.ix, q.in = listed, files, paths, words, ix, map[string]bool{}
	q.reads = &quickReads{files: map[string]loaded{}}
	ix.keep = q.reads
	if err := q.add(ctx, only); err != nil {
		return nil, read, err
	}
	built := time.Now()
	res, err := q.answer(ctx, req, share)
	postings := 0
	if words != nil {
		postings = words.Postings()
	}
	q.opts.Logf("quick pack: walk %.2fs, sieve %.2fs (%d file-word pairs kept), %d files read %.2fs, pack %.2fs", walked.Sub(start).Seconds(),
		sieved.Sub(walked).Seconds(), postings, len(only), built.Sub(sieved).Seconds(), time.Since(built).Seconds())
	return res, read, err
}

// add reads files into the quick index: its build reads only what it lacks.
func (q *Quick) add(ctx context.Context, files []walk.File) error {
	if len(files) == 0 {
		return nil
	}
	for _, f := range files {
		q.in[f.Path] = true
	}
	q.ix.only = append(q.ix.only, files...)
	_, err := q.ix.Build(ctx, nil)
	return err
}

// answer makes the pack from the quick index, said to be partial.
func (q *Quick) answer(ctx context.Context, req Resolved, share float64) (*Result, error) {
	q.ix.partial = &pack.Partial{Files: len(q.in), Total: len(q.paths), Built: share}
	return q.ix.Context(ctx, req)
}

// quickReads are the files a quick index parsed, each as the full build's loader would have it, kept
// for that build to take instead of reading and parsing the file again (Index.UseQuick). The quick
// index adds to them while the build takes from them.
type quickReads struct {
	mu    sync.Mutex
	files map[string]loaded
}

// put keeps a file's result.
func (r *quickReads) put(res loaded) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[res.path] = res
}

// take hands over f's result if the file's size and time are still those the quick pack saw; either
// way it keeps it no longer.
func (r *quickReads) take(f fileStat) (loaded, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.files[f.path]
	delete(r.files, f.path)
	if !ok || res.rec.Size != f.size || res.rec.ModTime != f.mod {
		return loaded{}, false
	}
	res.quick = true
	return res, true
}

// readsAs says whether a file is read and cut into chunks alike under c and o: a quick index's
// results serve only a build configured the same.
func (c Config) readsAs(o Config) bool {
	return slices.Equal(c.Mappings, o.Mappings) && c.maxFileSize() == o.maxFileSize()
}
