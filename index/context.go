package index

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctxmap/ctxmap/internal/lexicon"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/rank"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Signals that can be switched off (the benchmark's ablation, `--without`).
var Signals = rank.Signals

// Rankers: the learned model (the default) re-orders the fused ranking and says how likely each file
// is; fusion is the fused ranking alone.
const (
	RankerLearned = rank.Learned
	RankerFusion  = rank.Fusion
)

// Result is a pack with the ranking it came from.
type Result struct {
	Analysis *query.Analysis
	Files    []rank.RankedFile
	Pack     *Pack
	Took     time.Duration
}

// Pack is a context pack: the items that fit the budget, in rank order, and their rendering.
type Pack = pack.Pack

// Item is one piece of a pack: a file, a definition, a snippet or an outline, where it is, the size it
// got, its tokens and why it is there.
type Item = pack.Item

// Lines is a range of a file's lines, first and last inclusive: what an item shows verbatim.
type Lines = pack.Lines

// Tokenizer counts tokens as a model's tokenizer does; packs and outlines are measured with one.
type Tokenizer = pack.Tokenizer

// NewTokenizer returns the shared tokenizer of that name: o200k_base (also for "") or cl100k_base.
func NewTokenizer(name string) (*Tokenizer, error) { return pack.NewTokenizer(name) }

// Model is the learned ranker's model, which Request.Model replaces the shipped one with.
type Model = rank.Model

// ErrInvalid marks a request a person must fix (an empty text, a budget below MinBudget, an unknown format).
var ErrInvalid = errors.New("invalid request")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Context answers a resolved request from the current snapshot.
func (ix *Index) Context(ctx context.Context, req Resolved) (*Result, error) {
	start := time.Now()
	if req.text == "" {
		return nil, invalidf("the request was not resolved by Request.Resolve")
	}
	s := ix.Snapshot()
	var lex *lexicon.Lexicon
	if !req.without["lexicon"] {
		lex = ix.lexicon(s)
	}
	a := query.Analyze(req.text, lex)
	if req.intent != "" {
		a.Intent = query.Intent{Name: req.intent, Confidence: 1}
	}
	ranked, err := rank.Rank(ctx, ix.view(s), a, rank.Options{Without: req.without, Ranker: req.ranker, Fill: req.fill, Tight: req.tight, Budget: req.budget, Model: req.model})
	if err != nil {
		return nil, err
	}
	// the token counter last: a process that has just started loads it while the files are ranked
	tok, err := pack.NewTokenizer(req.tokenizer)
	if err != nil {
		return nil, err
	}
	prof := query.ProfileOf(a.Intent.Name)
	p, err := pack.Assemble(req.text, pack.Intent{Name: a.Intent.Name, Confidence: a.Intent.Confidence}, ranked.Entities, ranked.Candidates, pack.Options{
		Budget:      req.budget,
		Tokenizer:   tok,
		Format:      req.format,
		Partial:     ix.partial,
		BodiesFirst: ranked.BodiesFirst,
		SetAside:    a.SetAside.Note(),
		Shares: map[string]float64{
			"definitions": prof.Definitions, "snippets": prof.Snippets, "imports": prof.Imports,
			"tests": prof.Tests, "callers": prof.Callers,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("assemble the pack: %w", err)
	}
	p.Request = req.stated()
	return &Result{Analysis: a, Files: ranked.Files, Pack: p, Took: time.Since(start)}, nil
}

// Features ranks a text with every signal and describes the fused ranking's first n files; withDefs
// says for which of them the definitions are described too. It is what the learned ranker is trained
// on, mined from history.
func (ix *Index) Features(ctx context.Context, text string, n int, withDefs func(path string, rank int) bool) ([]CandidateFeatures, error) {
	s := ix.Snapshot()
	return rank.Features(ctx, ix.view(s), query.Analyze(text, ix.lexicon(s)), n, withDefs)
}

// CandidateFeatures is one candidate file of a query with its features, and those of its definitions.
type CandidateFeatures = rank.CandidateFeatures

// LearnedCandidates is how many of the fused ranking's files the learned ranker re-orders.
const LearnedCandidates = rank.LearnedCandidates

// IsCode tells the files a fix's code lives in from tests, prose, configuration, data, lock files and
// type declarations.
func IsCode(p string) bool { return records.IsCode(p) }

// lexicon is the workspace's lexicon for the entity map of s (see lexicon.Workspace).
func (ix *Index) lexicon(s *Snapshot) *lexicon.Lexicon {
	return ix.workspaceLexicon.Lexicon(s.Entities)
}
