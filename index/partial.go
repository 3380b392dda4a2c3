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
	"github.com/ctxmap/ctxmap/internal/scan"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// A partial pack is made from at most partialFiles files of partialBytes in all: what parses in about a
// second on two cores. The questions after it add at most partialMore files of partialMoreBytes to
// those: what parses in a tenth of a second.
const (
	partialFiles     = 240
	partialBytes     = 3 << 20
	partialFirst     = 5 // the best files, read whatever their size
	partialMore      = 16
	partialMoreBytes = 256 << 10
)

// ErrNothingMatches says no file on disk holds any of a request's terms: a partial pack would be empty.
var ErrNothingMatches = errors.New("no file matches the request's terms")

// Partial makes the partial packs of one build, one question at a time, while the workspace's index is
// not whole: the request's strong terms (stack frames' files, the names and messages it quotes, its
// rarer words, words of paths) are looked for in the files on disk (those the walk lists, by the same
// ignore rules), the files that match best (partialFiles at most) are read into an index of their own
// in memory, and that index makes the pack by the same route as the full one (Answer, Index.Context),
// the pack saying it is partial. The first question walks the tree, scans every file and reads the best;
// it keeps all three, so that the next question looks its terms up in what the scan learned of every
// file's words and adds to that index only the few best files it lacks. Close frees them.
type Partial struct {
	opts   Options
	cfg    Config
	walked *walk.Result         // the walk
	files  map[string]walk.File // the files of a language it listed
	paths  []string             // their paths, in the walk's order
	words  *scan.Words          // nil: each question scans the files again
	ix     *Index               // the files read so far
	in     map[string]bool      // their paths
	reads  *partialReads        // what the partial index parsed, for the full build (Index.UsePartial)
}

// PartialRead is what a partial pack read of the files on disk.
type PartialRead struct {
	Scanned int      // files the scan read: every file the first time, then those a phrase needs
	Parsed  []string // files read into the partial index for this pack
}

// NewPartial prepares the partial packs of the workspace opts names; nothing is read until a question.
func NewPartial(opts Options) *Partial {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	return &Partial{opts: opts}
}

// Close frees what the partial packs kept.
func (q *Partial) Close() error {
	q.walked, q.files, q.paths, q.words, q.in, q.reads = nil, nil, nil, nil, nil, nil
	if q.ix == nil {
		return nil
	}
	ix := q.ix
	q.ix = nil
	return ix.Close()
}

// Files is how many files the partial index holds.
func (q *Partial) Files() int { return len(q.in) }

// Config is the configuration its files are read and its requests resolved with: the options', else
// the workspace's file.
func (q *Partial) Config() Config {
	if q.ix != nil {
		return q.cfg
	}
	if q.opts.Config != nil {
		return *q.opts.Config
	}
	if c, err := LoadConfig(q.opts.Root); err == nil {
		return c
	}
	return Config{}
}

// Ready is the partial index for req, as Source: see Prepare (the pack says no share of a full build).
func (q *Partial) Ready(ctx context.Context, req Resolved) (*Index, func() bool, error) {
	ix, _, err := q.Prepare(ctx, req, 0)
	return ix, func() bool { return false }, err
}

// ReadAgain reads nothing: the partial index is made for the question, and no record of it is kept.
func (q *Partial) ReadAgain(context.Context) error { return nil }

// Prepare readies the partial index for req: the files req matches best read into it, what it read
// returned, its packs said to come from so many of the files with share of the full index built (the
// caller's figure).
func (q *Partial) Prepare(ctx context.Context, req Resolved, share float64) (*Index, PartialRead, error) {
	if q.ix == nil {
		return q.first(ctx, req, share)
	}
	start := time.Now()
	var read PartialRead
	terms := scan.QueryOf(query.Analyze(req.text, nil))
	var best []scan.Match
	var err error
	if q.words != nil {
		best, read.Scanned, err = q.words.Best(ctx, terms, partialFiles)
	} else {
		best, err = scan.Best(ctx, q.opts.Root, q.paths, terms, partialFiles, q.cfg.FileSizeLimit())
		read.Scanned = len(q.paths)
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
		if len(more) == partialMore {
			break
		}
		if q.in[m.Path] || len(more) > 0 && bytes+f.Size > partialMoreBytes {
			continue
		}
		bytes += f.Size
		more, read.Parsed = append(more, f), append(read.Parsed, m.Path)
	}
	scanned := time.Now()
	if err := q.add(ctx, more); err != nil {
		return nil, read, err
	}
	q.opts.Logf("partial pack again: scan %.2fs (%d files read), %d files added %.2fs", scanned.Sub(start).Seconds(),
		read.Scanned, len(more), time.Since(scanned).Seconds())
	return q.ready(share), read, nil
}

// first is the first question's partial pack: the walk, the scan of every file, the partial index.
func (q *Partial) first(ctx context.Context, req Resolved, share float64) (*Index, PartialRead, error) {
	var read PartialRead
	q.cfg = q.Config()
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
	best, words, err := scan.Learn(ctx, q.opts.Root, paths, scan.QueryOf(query.Analyze(req.text, nil)), partialFiles, q.cfg.FileSizeLimit())
	if err != nil {
		return nil, read, err
	}
	read.Scanned = len(paths)
	if len(best) == 0 {
		return nil, read, ErrNothingMatches
	}
	only := make([]walk.File, 0, len(best))
	// the best few whatever their size, then the next ones that fit
	var bytes int64
	for i, m := range best {
		f := files[m.Path]
		if i >= partialFirst && bytes+f.Size > partialBytes {
			continue
		}
		bytes += f.Size
		only, read.Parsed = append(only, f), append(read.Parsed, m.Path)
	}
	scanned := time.Now()
	// the history's terms and the vectors come with the full index: git's log of a large tree and the
	// embeddings take seconds, and change no first file of the benchmark's issues
	partial := q.cfg
	partial.History = -1
	partial.Vectors = new(bool)
	ix, err := Open(ctx, Options{Root: q.opts.Root, Config: &partial, InMemory: true, Packs: true, Logf: q.opts.Logf})
	if err != nil {
		return nil, read, err
	}
	q.walked, q.files, q.paths, q.words, q.ix, q.in = listed, files, paths, words, ix, map[string]bool{}
	q.reads = &partialReads{files: map[string]loaded{}}
	ix.keep = q.reads
	if err := q.add(ctx, only); err != nil {
		return nil, read, err
	}
	postings := 0
	if words != nil {
		postings = words.Postings()
	}
	q.opts.Logf("partial pack: walk %.2fs, scan %.2fs (%d file-word pairs kept), %d files read %.2fs", walked.Sub(start).Seconds(),
		scanned.Sub(walked).Seconds(), postings, len(only), time.Since(scanned).Seconds())
	return q.ready(share), read, nil
}

// add reads files into the partial index: its build reads only what it lacks.
func (q *Partial) add(ctx context.Context, files []walk.File) error {
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

// ready is the partial index, its packs said to be partial.
func (q *Partial) ready(share float64) *Index {
	q.ix.partial = &pack.Partial{Files: len(q.in), Total: len(q.paths), Built: share}
	return q.ix
}

// partialReads are the files a partial index parsed, each as the full build's loader would have it, kept
// for that build to take instead of reading and parsing the file again (Index.UsePartial). The partial
// index adds to them while the build takes from them.
type partialReads struct {
	mu    sync.Mutex
	files map[string]loaded
}

// put keeps a file's result.
func (r *partialReads) put(res loaded) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[res.path] = res
}

// take hands over f's result if the file's size and time are still those the partial pack saw; either
// way it keeps it no longer.
func (r *partialReads) take(f fileStat) (loaded, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.files[f.path]
	delete(r.files, f.path)
	if !ok || res.rec.Size != f.size || res.rec.ModTime != f.mod {
		return loaded{}, false
	}
	res.partial = true
	return res, true
}

// readsAs says whether a file is read and cut into chunks alike under c and o: a partial index's
// results serve only a build configured the same.
func readsAs(c, o Config) bool {
	return slices.Equal(c.Mappings, o.Mappings) && c.FileSizeLimit() == o.FileSizeLimit()
}
