package index

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/sieve"
	"github.com/ctxmap/ctxmap/internal/walk"
	"github.com/ctxmap/ctxmap/internal/words"
)

// A quick pack is made from at most QuickFiles files of QuickBytes in all: what parses in about a
// second on two cores.
const (
	QuickFiles = 240
	QuickBytes = 3 << 20
	quickFirst = 5 // the best files, read whatever their size
)

// ErrNothingMatches says no file on disk holds any of a request's terms: a quick pack would be empty.
var ErrNothingMatches = errors.New("no file matches the request's terms")

// QuickContext answers req while the workspace's index is not whole: the request's strong terms
// (stack frames' files, the names and messages it quotes, its rarer words, words of paths) are looked
// for in the files on disk (those the walk lists, by the same ignore rules), the QuickFiles that match
// best are read into an index of their own in memory, and that index makes the pack by the same route
// as the full one (Context). The pack says it is partial: from how many of how many files, with share
// of the full index built (the caller's figure). It returns the files read too.
func QuickContext(ctx context.Context, opts Options, req Resolved, share float64) (*Result, []string, error) {
	cfg := Config{}
	if opts.Config != nil {
		cfg = *opts.Config
	} else if c, err := LoadConfig(opts.Root); err == nil {
		cfg = c
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	start := time.Now()
	listed, err := walk.Walk(ctx, opts.Root, cfg.WalkOptions())
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", opts.Root, err)
	}
	var paths []string
	byPath := map[string]walk.File{}
	for _, f := range listed.Files {
		if parse.LanguageOf(f.Path) != "" {
			paths = append(paths, f.Path)
			byPath[f.Path] = f
		}
	}
	maxSize := cfg.MaxFileSize
	if maxSize <= 0 {
		maxSize = 1 << 20
	}
	walked := time.Now()
	best, err := sieve.Best(ctx, opts.Root, paths, strongTerms(query.Analyze(req.req.Text, nil)), QuickFiles, maxSize)
	if err != nil {
		return nil, nil, err
	}
	if len(best) == 0 {
		return nil, nil, ErrNothingMatches
	}
	only := make([]walk.File, 0, len(best))
	read := make([]string, 0, len(best))
	// the best few whatever their size, then the next ones that fit
	var bytes int64
	for i, m := range best {
		f := byPath[m.Path]
		if i >= quickFirst && bytes+f.Size > QuickBytes {
			continue
		}
		bytes += f.Size
		only, read = append(only, f), append(read, m.Path)
	}
	sieved := time.Now()
	// the history's terms and the vectors come with the full index: git's log of a large tree and the
	// embeddings take seconds, and change no first file of the benchmark's issues
	quick := cfg
	quick.History = -1
	quick.Vectors = new(bool)
	ix, err := Open(ctx, Options{Root: opts.Root, Config: &quick, InMemory: true, Packs: true, Logf: opts.Logf, only: only})
	if err != nil {
		return nil, nil, err
	}
	defer ix.Close()
	if _, err := ix.Build(ctx, nil); err != nil {
		return nil, nil, err
	}
	built := time.Now()
	ix.partial = &pack.Partial{Files: len(only), Total: len(paths), Built: share}
	res, err := ix.Context(ctx, req)
	logf("quick pack: walk %.2fs, sieve %.2fs, %d files read %.2fs, pack %.2fs", walked.Sub(start).Seconds(),
		sieved.Sub(walked).Seconds(), len(only), built.Sub(sieved).Seconds(), time.Since(built).Seconds())
	return res, read, err
}

// strongTerms are what the sieve looks for: the files of stack frames and paths the text names, the
// names it quotes (whole and by their parts), its error messages, and its own words, rarer ones
// counting more by the sieve's own measure of rarity.
func strongTerms(a *query.Analysis) sieve.Query {
	var q sieve.Query
	seen := map[string]bool{}
	word := func(w string, weight float64) {
		w = strings.ToLower(w)
		if len(w) < 3 || seen[w] || words.Stopword(w) {
			return
		}
		seen[w] = true
		q.Words = append(q.Words, sieve.Term{Text: w, Weight: weight})
	}
	filePath := func(p string) {
		p = strings.ToLower(strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, "\\", "/")), "/"))
		if p != "." && !seen["path:"+p] {
			seen["path:"+p] = true
			q.Paths = append(q.Paths, sieve.Term{Text: p, Weight: 4})
		}
	}
	for _, f := range a.Frames {
		if f.Path != "" {
			filePath(f.Path)
		}
		if f.Function != "" {
			fn := f.Function
			if i := strings.LastIndexAny(fn, ".:"); i >= 0 {
				fn = fn[i+1:]
			}
			word(fn, 3)
		}
	}
	for _, an := range a.Anchors {
		switch an.Kind {
		case query.KindPath, query.KindFileLine:
			filePath(an.Path)
		default:
			parts := strings.FieldsFunc(an.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
			for _, p := range parts {
				word(p, 3)
			}
		}
	}
	for _, e := range a.Errors {
		if p := longestLiteral(e); len(p) >= 8 && !seen["msg:"+p] {
			seen["msg:"+p] = true
			q.Phrases = append(q.Phrases, sieve.Term{Text: p, Weight: 3})
		}
	}
	for _, id := range a.Identifiers {
		word(id, 1.5)
	}
	for _, w := range strings.FieldsFunc(a.Text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		if !words.Common(words.Stem(strings.ToLower(w))) {
			word(w, 1)
		}
	}
	return q
}

// longestLiteral is the longest piece of an error message a string literal in code would hold as it
// is: the message cut at format verbs, quotes and interpolations, lower case.
func longestLiteral(msg string) string {
	best := ""
	for _, p := range strings.FieldsFunc(strings.ToLower(msg), func(r rune) bool { return strings.ContainsRune("%{}\"'`\n", r) }) {
		if p = strings.TrimSpace(p); len(p) > len(best) {
			best = p
		}
	}
	return best
}
