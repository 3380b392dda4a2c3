package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/mine"
)

// System names in reports.
const (
	SystemCtxmap = "ctxmap"
	SystemFusion = "ctxmap-fusion-fill" // the fused ranking and budget-filling packs, as before the learned ranker
	SystemBM25   = "bm25-files"
)

// CurveName names a system run at another budget than the report's.
func CurveName(system string, budget int) string { return fmt.Sprintf("%s@%d", system, budget) }

// AblationName names ctxmap with some signals switched off.
func AblationName(without []string) string { return "ctxmap-no-" + strings.Join(without, "+") }

// Options configure a quality run.
type Options struct {
	Dataset   string
	Changed   string // the lines each fix changed (JSONL); "": the dataset's -lines.jsonl beside it, if any
	Worktrees string
	Budget    int // tokens; 0: 8000
	// Budgets are more budgets to run every system at, for a curve: each answer is reported as its
	// system at that budget (CurveName).
	Budgets   []int
	Selection Selection
	Without   [][]string   // ctxmap configurations to run besides the full one, each with these signals off
	Baseline  bool         // run the whole-file BM25 baseline too
	Fusion    bool         // run the fused ranking with budget-filling packs too
	Ranker    string       // ctxmap's ranker: learned (default) or fusion
	Fill      bool         // ctxmap's packs fill the budget
	Tight     bool         // ctxmap's packs stop with the evidence
	Model     *index.Model // the learned ranker's model; nil: the shipped one
	CacheDir  string       // per-repository caches go under it; "": a temporary folder removed at the end
	// CachePerTree keeps a cache per work tree instead of one per repository updated from tree to
	// tree: more disk, and a second run over the same cache folder indexes nothing again.
	CachePerTree bool
	Features     io.Writer // when set, each instance's candidates and their features, as mined pairs are
	Logf         func(format string, args ...any)
}

// Report is a run's outcome: one row per selected instance and the aggregates.
type Report struct {
	Dataset          string                          `json:"dataset"`
	Changed          string                          `json:"changed_lines,omitempty"` // the file of the lines each fix changed
	Worktrees        string                          `json:"worktrees"`
	Budget           int                             `json:"budget"`
	Tokenizer        string                          `json:"tokenizer"`
	Systems          []string                        `json:"systems"`
	Selected         int                             `json:"selected"`
	Scored           int                             `json:"scored"`
	Missing          int                             `json:"missing"`
	Failed           int                             `json:"failed"`
	NoGold           int                             `json:"no_gold"`
	BudgetViolations int                             `json:"budget_violations"`
	BadLines         []LineError                     `json:"bad_lines"`
	Evidence         mine.EvidenceRates              `json:"evidence"` // what the selected issues carry (ReadEvidence)
	Overall          map[string]Aggregate            `json:"overall"`
	ByLanguage       map[string]map[string]Aggregate `json:"by_language"`
	ByRepo           map[string]map[string]Aggregate `json:"by_repo"`
	IndexTimes       IndexTimes                      `json:"index_times"`
	Instances        []InstanceResult                `json:"instances"`
}

// Instance statuses.
const (
	StatusOK      = "ok"
	StatusMissing = "missing" // no finished work tree
	StatusFailed  = "failed"  // the index or a query failed
	StatusNoGold  = "no_gold" // nothing to score against
)

// InstanceResult is one instance's row.
type InstanceResult struct {
	ID             string                   `json:"instance_id"`
	Repo           string                   `json:"repo"`
	Language       string                   `json:"language"`
	Status         string                   `json:"status"`
	Error          string                   `json:"error,omitempty"`
	Worktree       string                   `json:"worktree,omitempty"`
	GoldFiles      []string                 `json:"gold_files"`
	GoldNotIndexed []string                 `json:"gold_not_indexed,omitempty"`
	Index          *IndexRun                `json:"index,omitempty"`
	Systems        map[string]*SystemResult `json:"systems,omitempty"`
}

// IndexRun is how one work tree was indexed.
type IndexRun struct {
	Kind          string   `json:"kind"` // cold: first tree of its repository; incremental: over that repository's cache
	Seconds       float64  `json:"seconds"`
	VectorSeconds float64  `json:"vector_seconds"` // waiting for the background embeddings after Build
	Files         int      `json:"files"`
	Parsed        int      `json:"parsed"`
	Warnings      []string `json:"warnings,omitempty"`
}

// SystemResult is one system's answer to one instance.
type SystemResult struct {
	Metrics         map[string]float64 `json:"metrics"`
	LatencyMS       float64            `json:"latency_ms"`
	Ranked          []string           `json:"ranked"` // the first ten files
	PackFiles       []string           `json:"pack_files"`
	BudgetViolation bool               `json:"budget_violation,omitempty"`
	Error           string             `json:"error,omitempty"`
	// Probabilities are the learned ranker's, for the files it scored, with whether each is gold.
	Probabilities []Calibrated `json:"probabilities,omitempty"`
	// Items are the pack's items in rank order, without their code: what it showed where (ctxmap at
	// the main budget only, for reading a pack against its fix).
	Items []ShownItem `json:"items,omitempty"`
}

// ShownItem is a pack item as a reader of the benchmark needs it.
type ShownItem struct {
	Kind   string        `json:"kind"`
	Path   string        `json:"path"`
	Symbol string        `json:"symbol,omitempty"`
	Prob   float64       `json:"p,omitempty"`
	Tokens int           `json:"tokens"`
	Shown  []index.Lines `json:"shown,omitempty"`
}

// Calibrated is a probability and what came true.
type Calibrated struct {
	P    float64 `json:"p"`
	Gold bool    `json:"gold"`
}

// warmup is a query run once per index before the measured ones, so that what a snapshot derives on
// first use is not charged to the first instance's latency.
const warmup = "where is the configuration read and validated"

// Run scores every selected instance with ctxmap, its ablations and the baseline. Instances whose work
// tree is missing or whose index fails are reported and skipped; the error is for what stops the run.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Budget == 0 {
		opts.Budget = index.DefaultBudget
	}
	for _, b := range append([]int{opts.Budget}, opts.Budgets...) {
		if b < index.MinBudget {
			return nil, fmt.Errorf("budget %d is below the minimum of %d tokens", b, index.MinBudget)
		}
	}
	for _, w := range opts.Without {
		if err := checkSignals(w); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Stat(opts.Worktrees); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("work trees folder %s: not a folder", opts.Worktrees)
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	rows, bad, err := LoadDataset(opts.Dataset)
	if err != nil {
		return nil, err
	}
	for _, b := range bad {
		logf("%s:%d: skipped: %s", opts.Dataset, b.Line, b.Err)
	}
	selected := Select(rows, opts.Selection)
	tok, err := index.NewTokenizer("")
	if err != nil {
		return nil, err
	}
	cache := opts.CacheDir
	if cache == "" {
		if cache, err = os.MkdirTemp("", "ctxmap-bench-"); err != nil {
			return nil, fmt.Errorf("create a cache folder: %w", err)
		}
		defer os.RemoveAll(cache)
	}
	changedFile := opts.Changed
	if changedFile == "" {
		changedFile = changedBeside(opts.Dataset)
	}
	var changed map[string]Changed
	if changedFile != "" {
		if changed, err = LoadChanged(changedFile); err != nil {
			return nil, err
		}
	}
	rep := &Report{Dataset: opts.Dataset, Changed: changedFile, Worktrees: opts.Worktrees, Budget: opts.Budget, Tokenizer: tok.Name(),
		Selected: len(selected), BadLines: bad, Systems: []string{SystemCtxmap}}
	evs := make([]mine.Evidence, len(selected))
	for i, in := range selected {
		evs[i] = mine.ReadEvidence(in.ProblemStatement, in.GoldSymbols())
	}
	rep.Evidence = mine.Rates(evs)
	for _, w := range opts.Without {
		rep.Systems = append(rep.Systems, AblationName(w))
	}
	if opts.Fusion {
		rep.Systems = append(rep.Systems, SystemFusion)
	}
	if opts.Baseline {
		rep.Systems = append(rep.Systems, SystemBM25)
	}
	for _, b := range opts.Budgets {
		for _, name := range []string{SystemCtxmap, SystemFusion, SystemBM25} {
			if name == SystemCtxmap || name == SystemFusion && opts.Fusion || name == SystemBM25 && opts.Baseline {
				rep.Systems = append(rep.Systems, CurveName(name, b))
			}
		}
	}
	indexed := map[string]bool{}
	for i, in := range selected {
		if err := ctx.Err(); err != nil {
			rep.aggregate()
			return rep, err
		}
		res := runInstance(ctx, in, opts, cache, indexed, tok, changed[in.ID])
		logf("[%d/%d] %s: %s%s", i+1, len(selected), in.ID, res.Status, summary(res))
		rep.Instances = append(rep.Instances, res)
	}
	rep.aggregate()
	return rep, nil
}

func checkSignals(without []string) error {
	if len(without) == 0 {
		return fmt.Errorf("an ablation needs at least one signal")
	}
	for _, w := range without {
		known := false
		for _, s := range index.Signals {
			known = known || s == w
		}
		if !known {
			return fmt.Errorf("unknown signal %q (known: %s)", w, strings.Join(index.Signals, ", "))
		}
	}
	return nil
}

func summary(r InstanceResult) string {
	if r.Error != "" {
		return ": " + r.Error
	}
	var parts []string
	if r.Index != nil {
		parts = append(parts, fmt.Sprintf("%s index %.1fs, %d files", r.Index.Kind, r.Index.Seconds, r.Index.Files))
	}
	for _, name := range []string{SystemCtxmap, SystemBM25} {
		if s := r.Systems[name]; s != nil && s.Error == "" {
			parts = append(parts, fmt.Sprintf("%s pack_recall %.2f hit@5 %.0f", name, s.Metrics[PackRecall], s.Metrics[Hit5]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// runInstance indexes one work tree and asks every system; a panic inside costs the instance only.
func runInstance(ctx context.Context, in Instance, opts Options, cache string, indexed map[string]bool, tok *index.Tokenizer, changed Changed) (res InstanceResult) {
	res = InstanceResult{ID: in.ID, Repo: in.Repo, Language: in.Language, GoldFiles: in.GoldFiles, Systems: map[string]*SystemResult{}}
	defer func() {
		if r := recover(); r != nil {
			res.Status, res.Error = StatusFailed, fmt.Sprintf("internal error: %v", r)
		}
	}()
	if len(distinct(in.GoldFiles)) == 0 {
		res.Status, res.Error = StatusNoGold, "no gold files"
		return res
	}
	wt, err := FindWorktree(opts.Worktrees, in)
	if err != nil {
		res.Status, res.Error = StatusMissing, err.Error()
		return res
	}
	res.Worktree = wt
	repoKey := strings.ToLower(strings.ReplaceAll(in.Repo, "/", "+"))
	if opts.CachePerTree {
		repoKey = filepath.Base(wt)
	}
	kind := "cold"
	if indexed[repoKey] {
		kind = "incremental"
	}
	start := time.Now()
	ix, err := index.Open(ctx, index.Options{Root: wt, CacheDir: filepath.Join(cache, repoKey), Config: &index.Config{}})
	if err != nil {
		res.Status, res.Error = StatusFailed, fmt.Sprintf("open the index: %v", err)
		return res
	}
	defer ix.Close()
	st, err := ix.Build(ctx, nil)
	if err != nil {
		res.Status, res.Error = StatusFailed, fmt.Sprintf("index %s: %v", wt, err)
		return res
	}
	built := time.Since(start)
	ix.WaitVectors()
	res.Index = &IndexRun{Kind: kind, Seconds: built.Seconds(), VectorSeconds: (time.Since(start) - built).Seconds(),
		Files: st.Files, Parsed: st.Parsed, Warnings: st.Warnings}
	indexed[repoKey] = true

	snap := ix.Snapshot()
	for _, g := range distinct(in.GoldFiles) {
		if rec := snap.Record(g); rec == nil || rec.File == nil {
			res.GoldNotIndexed = append(res.GoldNotIndexed, g)
		}
	}
	defs := func(p string) []index.Definition {
		if rec := snap.Record(p); rec != nil && rec.File != nil {
			return rec.File.Definitions
		}
		return nil
	}
	if _, err := ask(ctx, ix, index.Request{Text: warmup, Budget: opts.Budget}); err != nil {
		res.Status, res.Error = StatusFailed, fmt.Sprintf("warm-up query: %v", err)
		return res
	}
	if opts.Features != nil {
		if err := writeFeatures(ctx, ix, in, opts.Features); err != nil {
			res.Status, res.Error = StatusFailed, fmt.Sprintf("features: %v", err)
			return res
		}
	}
	configs := append([][]string{nil}, opts.Without...)
	for _, without := range configs {
		name := SystemCtxmap
		if without != nil {
			name = AblationName(without)
		}
		req := index.Request{Text: in.ProblemStatement, Budget: opts.Budget, Format: "markdown", Without: without,
			Ranker: opts.Ranker, Fill: opts.Fill, Tight: opts.Tight, Model: opts.Model}
		res.Systems[name] = askCtxmap(ctx, ix, in, req, tok, defs, changed)
	}
	for i, b := range append([]int{opts.Budget}, opts.Budgets...) {
		name := func(system string) string {
			if i == 0 {
				return system
			}
			return CurveName(system, b)
		}
		if i > 0 {
			req := index.Request{Text: in.ProblemStatement, Budget: b, Format: "markdown", Ranker: opts.Ranker, Fill: opts.Fill, Tight: opts.Tight, Model: opts.Model}
			res.Systems[name(SystemCtxmap)] = askCtxmap(ctx, ix, in, req, tok, defs, changed)
		}
		if opts.Fusion {
			req := index.Request{Text: in.ProblemStatement, Budget: b, Format: "markdown", Ranker: index.RankerFusion, Fill: true}
			res.Systems[name(SystemFusion)] = askCtxmap(ctx, ix, in, req, tok, defs, changed)
		}
		if opts.Baseline {
			res.Systems[name(SystemBM25)] = askBaseline(ctx, wt, snap.Paths, in, b, tok, defs, changed)
		}
	}
	res.Status = StatusOK
	for name, s := range res.Systems {
		if name != SystemCtxmap {
			s.Items = nil // the main pack's are enough to read it against its fix
		}
		if s.Error != "" {
			res.Status = StatusFailed
			res.Error = s.Error
		}
	}
	return res
}

// ask answers req from the index as a command answering alone does (index.Answer).
func ask(ctx context.Context, ix *index.Index, req index.Request) (*index.Result, error) {
	return index.Answer(ctx, index.Own{Index: ix}, req)
}

func askCtxmap(ctx context.Context, ix *index.Index, in Instance, req index.Request, tok *index.Tokenizer, defs Definitions, changed Changed) *SystemResult {
	start := time.Now()
	r, err := ask(ctx, ix, req)
	took := time.Since(start)
	if err != nil {
		if errors.Is(err, index.ErrInvalid) {
			err = fmt.Errorf("the issue text was refused: %w", err)
		}
		return &SystemResult{Error: err.Error()}
	}
	ranked := make([]string, len(r.Files))
	gold := map[string]bool{}
	for _, g := range in.GoldFiles {
		gold[g] = true
	}
	var probs []Calibrated
	for i, f := range r.Files {
		ranked[i] = f.Path
		if f.Prob > 0 {
			probs = append(probs, Calibrated{P: f.Prob, Gold: gold[f.Path]})
		}
	}
	over := r.Pack.Tokens > req.Budget || tok.Count(r.Pack.Text) > req.Budget
	res := score(in, ranked, r.Pack.Items, r.Pack.Tokens, took, over, defs, changed)
	for _, it := range r.Pack.Items {
		res.Items = append(res.Items, ShownItem{Kind: it.Kind, Path: it.Path, Symbol: it.Symbol, Prob: it.Probability, Tokens: it.Tokens, Shown: it.Shown})
	}
	if len(probs) > 0 {
		res.Probabilities = probs
		sum := 0.0
		for _, c := range probs {
			sum += (c.P - boolf(c.Gold)) * (c.P - boolf(c.Gold))
		}
		res.Metrics[Brier] = sum / float64(len(probs))
	}
	return res
}

func askBaseline(ctx context.Context, root string, paths []string, in Instance, budget int, tok *index.Tokenizer, defs Definitions, changed Changed) *SystemResult {
	fs, err := NewFileSearch(root, paths)
	if err != nil {
		return &SystemResult{Error: err.Error()}
	}
	defer fs.Close()
	start := time.Now()
	ranked, err := fs.Rank(ctx, in.ProblemStatement, 200)
	if err != nil {
		return &SystemResult{Error: err.Error()}
	}
	items, text, tokens := fs.WholeFiles(ranked, budget, tok)
	took := time.Since(start)
	over := tokens > budget || tok.Count(text) > budget
	return score(in, ranked, items, tokens, took, over, defs, changed)
}

func score(in Instance, ranked []string, items []index.Item, tokens int, took time.Duration, over bool, defs Definitions, changed Changed) *SystemResult {
	m := FileMetrics(ranked, in.GoldFiles)
	for k, v := range PackMetrics(items, tokens, in.GoldFiles, in.GoldSymbols(), defs) {
		m[k] = v
	}
	for k, v := range LineMetrics(items, tokens, changed) {
		m[k] = v
	}
	var code []string
	for _, g := range in.GoldFiles {
		if index.IsCode(g) {
			code = append(code, g)
		}
	}
	if len(code) > 0 {
		fm, pm := FileMetrics(ranked, code), PackMetrics(items, tokens, code, nil, nil)
		m[CodeHit1], m[CodeHit5] = fm[Hit1], fm[Hit5]
		m[CodePackRecall], m[CodePackAll] = pm[PackRecall], pm[PackAll]
		m[CodeNamedAll] = boolf(foundIn(namedFiles(items), distinct(code)) == len(distinct(code)))
	}
	files := packFiles(items)
	if files == nil {
		files = []string{}
	}
	top := append([]string{}, head(ranked, 10)...)
	return &SystemResult{Metrics: m, LatencyMS: float64(took.Microseconds()) / 1000, Ranked: top, PackFiles: files, BudgetViolation: over}
}

// writeFeatures writes an instance as a mined pair: its text, its code gold files and functions and
// the candidates' features, for choosing among models on a dataset (never for training on it).
func writeFeatures(ctx context.Context, ix *index.Index, in Instance, w io.Writer) error {
	var gold []string
	isGold := map[string]bool{}
	for _, g := range distinct(in.GoldFiles) {
		if index.IsCode(g) {
			gold = append(gold, g)
			isGold[g] = true
		}
	}
	cands, err := ix.Features(ctx, in.ProblemStatement, mine.PairCandidates, func(p string, rank int) bool { return isGold[p] || rank < 3 })
	if err != nil {
		return err
	}
	mine.RoundFeatures(cands)
	p := mine.Pair{Repo: in.Repo, Language: in.Language, Snapshot: in.BaseCommit, Commit: in.ID, Shape: "dataset",
		Text: in.ProblemStatement, GoldFiles: gold, GoldDefs: in.GoldSymbols(), Candidates: cands}
	return json.NewEncoder(w).Encode(&p)
}
