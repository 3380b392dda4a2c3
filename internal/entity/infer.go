package entity

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/internal/words"
)

// infer gives the files whose identifiers say nothing (most names without a meaningful word) the terms
// of the commits that touched them, attaches each file to the entity of its term, and makes entities of
// terms that the code never shows.
func (a *aggregation) infer() {
	if a.hist == nil {
		return
	}
	a.opaque = map[int32][]Inferred{}
	total := float64(len(a.hist.Commits))
	for fi, c := range a.files {
		if c.Names < 2 || c.Plain*4 < c.Names*3 {
			continue
		}
		n := a.hist.FileCommits(c.Path)
		if n == 0 {
			continue
		}
		var inf []Inferred
		for _, tc := range a.hist.FileTerms(c.Path) {
			if len(tc.Term) < 3 || noise[tc.Term] || words.Stopword(tc.Term) {
				continue
			}
			consistency := float64(tc.Count) / float64(n)
			share := float64(a.hist.TermCommits(tc.Term)) / math.Max(1, total)
			conf := consistency * float64(n) / float64(n+1) * (1 - share*share)
			if conf >= minInferredConf {
				inf = append(inf, Inferred{Term: tc.Term, Confidence: round(conf, 3)})
			}
		}
		sort.Slice(inf, func(i, j int) bool {
			if inf[i].Confidence != inf[j].Confidence {
				return inf[i].Confidence > inf[j].Confidence
			}
			return inf[i].Term < inf[j].Term
		})
		if len(inf) > 5 {
			inf = inf[:5]
		}
		if len(inf) > 0 {
			a.opaque[int32(fi)] = inf
		}
	}
	if len(a.opaque) == 0 {
		return
	}
	byWord := map[string]*stat{}
	inCompound := map[string]*stat{}
	for _, s := range a.chosen { // best first: the first compound holding a word is the best one
		if strings.IndexByte(s.words, ' ') < 0 {
			byWord[s.words] = s
			continue
		}
		for _, w := range strings.Fields(s.words) {
			if inCompound[w] == nil {
				inCompound[w] = s
			}
		}
	}
	fresh := map[string]*stat{}
	ids := make([]int32, 0, len(a.opaque))
	for fi := range a.opaque {
		ids = append(ids, fi)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, fi := range ids {
		for _, inf := range a.opaque[fi] {
			s := byWord[inf.Term]
			if s == nil {
				s = inCompound[inf.Term]
			}
			if s == nil {
				if inf.Confidence < inferEntityConf {
					continue
				}
				s = fresh[inf.Term]
				if s == nil {
					s = &stat{words: inf.Term}
					fresh[inf.Term] = s
				}
			}
			if k := len(s.inferred); k > 0 && s.inferred[k-1].file == fi || hasFile(s.post, fi) {
				continue // two terms of one file led to the same entity, or the code already names it
			}
			s.inferred = append(s.inferred, inferredFile{file: fi, conf: inf.Confidence})
		}
	}
	n := float64(len(a.files))
	for _, s := range fresh {
		df := float64(len(s.inferred))
		dirs := map[int32]bool{}
		sum := 0.0
		for _, f := range s.inferred {
			dirs[a.dirOf[f.file]] = true
			sum += f.conf
		}
		s.dirs = int32(len(dirs))
		s.raw = (math.Log2(1+df) + 0.5*math.Log2(1+float64(s.dirs))) * rarity(df, n) * sum / df
		a.chosen = append(a.chosen, s)
	}
	sortStats(a.chosen)
}

// business gives the most important entities the words of the commit messages of their main files:
// the words that are more frequent in those commits than in the whole history (lift), weighted by how
// often they occur, without the entity's own words and the noise.
func (a *aggregation) business(m *Map) {
	if a.hist == nil {
		return
	}
	n := float64(len(a.hist.Commits))
	type scored struct {
		term  string
		score float64
	}
	var cands []scored
	for i, e := range m.Entities {
		if i >= businessTop {
			break
		}
		terms, total := a.hist.Terms(e.Files[:min(len(e.Files), businessFiles)], 2)
		if total == 0 {
			continue
		}
		cands = cands[:0]
		for _, t := range terms {
			if t.Count < 2 || slices.Contains(e.Terms, t.Term) || len(t.Term) < 3 || noise[t.Term] || words.Stopword(t.Term) {
				continue
			}
			df := float64(max(1, a.hist.TermCommits(t.Term)))
			lift := float64(t.Count) / float64(total) / (df / n)
			if lift <= 1 {
				continue
			}
			cands = append(cands, scored{t.Term, float64(t.Count) * math.Log(1+lift)})
		}
		slices.SortFunc(cands, func(x, y scored) int {
			if c := cmp.Compare(y.score, x.score); c != 0 {
				return c
			}
			return strings.Compare(x.term, y.term)
		})
		for _, b := range cands[:min(len(cands), maxBusiness)] {
			e.BusinessTerms = append(e.BusinessTerms, b.term)
		}
	}
}
