package rank

import (
	"context"
	"fmt"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/query"
)

// Options say how a text is ranked.
type Options struct {
	Without map[string]bool // signals switched off (see Signals)
	Ranker  string          // Learned (also ""), Fusion
	Fill    bool            // fill the budget with the fused ranking's order (the learned ranker)
	Tight   bool            // stop with the evidence: at most five files past the model's threshold
	Budget  int             // the pack's tokens, which bound how many files are worth ranking definitions in; 0: no bound
	Model   *Model          // the learned ranker's model; nil: the one shipped in the binary
}

// Ranking is what a pack is made of: the ranked files, the candidates for the pack's items, the files
// outlined where it stops and the entities for its header.
type Ranking struct {
	Files      []RankedFile
	Candidates []pack.Candidate
	Entities   []pack.Entity
	// BodiesFirst: the pack spends what its buckets leave on more code before cards (the default
	// plan's packs)
	BodiesFirst bool
}

// Rank runs every signal on an analysed text, fuses them, re-orders the files by the model (unless
// the ranker is Fusion) and chooses the candidates of the pack.
func Rank(ctx context.Context, v *View, a *query.Analysis, opts Options) (*Ranking, error) {
	without := opts.Without
	if without == nil {
		without = map[string]bool{}
	}
	r := &ranker{s: v, a: a, without: without, plan: recallPlan}
	if opts.Tight {
		r.plan = tightPlan
	}
	if opts.Budget > 0 {
		r.plan.files = min(r.plan.files, max(minPlanFiles, opts.Budget/tokensPerFile))
		r.plan.budget = opts.Budget
	}
	files := r.rank(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var cands []pack.Candidate
	if opts.Ranker == Fusion {
		cands = r.candidates(files)
	} else {
		m := opts.Model
		if m == nil {
			var err error
			if m, err = Default(); err != nil {
				return nil, fmt.Errorf("the learned ranker: %w", err)
			}
		}
		files = r.learned(files, m)
		if opts.Fill {
			cands = r.candidates(files)
		} else {
			cands = r.tight(files, m)
		}
	}
	r.focus(cands, files)
	bodies := opts.Ranker != Fusion && !opts.Fill && !opts.Tight
	return &Ranking{Files: files, Candidates: cands, Entities: r.packEntities(cands), BodiesFirst: bodies}, nil
}

// TightFiles is the most files a tight pack shows.
const TightFiles = 5

// OutlineCap is the most tokens an outline of a file where a tight pack stops may take.
const OutlineCap = outlineCap
