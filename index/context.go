package index

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/ctxmap/ctxmap/internal/lexicon"
	"github.com/ctxmap/ctxmap/internal/model"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/rank"
)

// Request asks for a context pack, as a user gives it to any front end: the command line's flags, the
// language server's ctxmap.context arguments, MCP's get_context input and the query socket's request
// are this type, decoded as it is. Validate checks it where a front end takes it; Resolve settles it
// where it is answered (Answer).
type Request struct {
	Text      string   `json:"text" jsonschema:"the issue, bug report, stack trace or code comment to find the code for"`
	Budget    int      `json:"budget,omitempty" jsonschema:"token budget of the pack (default 8000, or the workspace's; at least 100)"`
	Format    string   `json:"format,omitempty" jsonschema:"markdown (default), xml or json"`
	Intent    string   `json:"intent,omitempty" jsonschema:"override the detected intent"`
	Tokenizer string   `json:"tokenizer,omitempty" jsonschema:"the tokenizer that counts the budget: o200k_base (default) or cl100k_base"`
	Ranker    string   `json:"ranker,omitempty" jsonschema:"learned (default) or fusion"`
	Fill      bool     `json:"fill,omitempty" jsonschema:"fill the budget instead of stopping when the evidence does (default false: only the code likely to change)"`
	Without   []string `json:"without,omitempty" jsonschema:"signals to switch off, for experiments"`
	// Model replaces the learned ranker's shipped model (the benchmark's); no front end takes one
	Model *Model `json:"-"`
}

// RequestChoices are the values a request's fields take, by their JSON names: what a schema lists
// and what Validate accepts.
var RequestChoices = map[string][]string{
	"format":    {"markdown", "xml", "json"},
	"intent":    query.IntentNames(),
	"tokenizer": {pack.DefaultTokenizer, "cl100k_base"},
	"ranker":    {RankerLearned, RankerFusion},
	"without":   Signals,
}

// RequestFields are the JSON names of Request's fields, text first: what every front end takes.
func RequestFields() []string {
	var names []string
	t := reflect.TypeFor[Request]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "-" {
			names = append(names, name)
		}
	}
	return names
}

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
	ranked, err := rank.Rank(ctx, ix.view(s), a, rank.Options{Without: req.without, Ranker: req.ranker, Fill: req.fill, Model: req.model})
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
		Budget:    req.budget,
		Tokenizer: tok,
		Format:    req.format,
		Partial:   ix.partial,
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
func IsCode(p string) bool { return model.IsCode(p) }

// lexicon is the workspace's lexicon for the entity map of s (see lexicon.Workspace).
func (ix *Index) lexicon(s *Snapshot) *lexicon.Lexicon {
	return ix.workspaceLexicon.Lexicon(s.Entities)
}
