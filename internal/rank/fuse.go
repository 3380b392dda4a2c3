package rank

// The fusion: each signal's list of files, ranked, combined by weighted reciprocal rank, demoted by the
// kind of file, then spread over the reference graph (signals.go makes the lists).

import (
	"fmt"
	"math"
	"sort"

	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
)

// rrfK flattens the fusion: with a small k the first ranks dominate.
const rrfK = 8.0

// evidence is what one signal says about one file.
type evidence struct {
	score float64
	why   string
	defs  map[int]float64 // definitions of the file the signal points at, by index
	lines []int           // lines the signal points at (frames, error literals)
}

type signalList struct {
	name  string
	files map[string]*evidence
}

func (l *signalList) add(p string, score float64, why string) *evidence {
	e := l.files[p]
	if e == nil {
		e = &evidence{why: why, defs: map[int]float64{}}
		l.files[p] = e
	}
	if score > e.score {
		e.score = score
		if why != "" {
			e.why = why
		}
	}
	return e
}

// labelRanks gives each file of a search's list its place in it ("BM25 #2"), and how the search
// reached it where it says.
func (l *signalList) labelRanks(search string, via map[string]string) {
	for i, p := range l.ranked() {
		l.files[p].why = fmt.Sprintf("%s #%d", search, i+1)
		if v := via[p]; v != "" {
			l.files[p].why += ", " + v
		}
	}
}

// ranked orders a signal's files by score, ties by path.
func (l *signalList) ranked() []string {
	out := make([]string, 0, len(l.files))
	for p := range l.files {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := l.files[out[i]].score, l.files[out[j]].score
		if a != b {
			return a > b
		}
		return out[i] < out[j]
	})
	return out
}

// RankedFile is a file in the fused ranking with the reasons it is there.
type RankedFile struct {
	Path  string   `json:"path"`
	Score float64  `json:"score"`
	Why   []string `json:"why"`
	defs  map[int]float64
	lines []int
	graph float64 // what the reference graph added to Score
	// Prob is the learned ranker's probability that the fix touches the file (0 without it); the
	// fused rank and the fused ranking's best score are what its definitions' features read.
	Prob      float64 `json:"probability,omitempty"`
	fusedRank int
	fusedTop  float64
}

// fuse combines the lists by weighted reciprocal rank, then spreads the result over the graph.
func (r *ranker) fuse() []RankedFile {
	fused := map[string]*RankedFile{}
	for _, l := range r.lists {
		sig := signalNamed(l.name)
		w := sig.weight
		for i, p := range l.ranked() {
			ev := l.files[p]
			f := fused[p]
			if f == nil {
				f = &RankedFile{Path: p, defs: map[int]float64{}}
				fused[p] = f
			}
			conf := 1.0
			if sig.absolute {
				conf = math.Min(1, ev.score)
			}
			f.Score += w * conf / (rrfK + float64(i))
			if i < 20 && ev.why != "" {
				f.Why = append(f.Why, ev.why)
			}
			for d, s := range ev.defs {
				f.defs[d] += s * w
			}
			f.lines = append(f.lines, ev.lines...)
		}
	}
	// the lists rank by demoted scores, but a rank is a rank: a test first in BM25 would still lead
	for p, f := range fused {
		f.Score *= demote(p, r.a.Intent.Name)
	}
	if r.on("graph") && len(fused) > 0 {
		r.spread(fused)
	}
	out := make([]RankedFile, 0, len(fused))
	for _, f := range fused {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// graphSeeds and graphWeight: how many of the best files seed the personalised PageRank, and how much
// of the final score the graph may add.
const (
	graphSeeds  = 10
	graphWeight = 0.1
)

func (r *ranker) spread(fused map[string]*RankedFile) {
	order := make([]*RankedFile, 0, len(fused))
	for _, f := range fused {
		order = append(order, f)
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].Score != order[j].Score {
			return order[i].Score > order[j].Score
		}
		return order[i].Path < order[j].Path
	})
	seeds := map[string]float64{}
	for i, f := range order {
		if i >= graphSeeds {
			break
		}
		seeds[f.Path] = f.Score
	}
	pr := r.s.Graph.PageRank(seeds, 0.5, 12)
	top := order[0].Score
	var maxPR float64
	for p, v := range pr {
		if _, seed := seeds[p]; !seed && v > maxPR {
			maxPR = v
		}
	}
	if maxPR == 0 {
		return
	}
	for p, v := range pr {
		if _, seed := seeds[p]; seed {
			continue
		}
		add := graphWeight * top * v / maxPR * demote(p, r.a.Intent.Name)
		f := fused[p]
		if f == nil {
			f = &RankedFile{Path: p, defs: map[int]float64{}}
			fused[p] = f
		}
		f.Score += add
		f.graph = add
		if add > 0.05*top {
			f.Why = append(f.Why, "linked by references to the top files")
		}
	}
}

// demote keeps tests out of the way unless the task is writing them, code copied from other projects
// (a fix goes upstream), and prose and configuration behind code: an issue's words are often a
// document's words, but the fix is usually in the code.
func demote(p, intent string) float64 {
	if records.IsTest(p) {
		if intent == "test_writing" {
			return 1
		}
		return 0.35
	}
	if records.IsVendored(p) {
		return 0.35
	}
	switch {
	case parse.Document(p):
		return 0.5
	case parse.ProseOrData(p):
		return 0.6
	case records.IsDeclaration(p):
		return 0.75
	}
	return 1
}
