package rank

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
)

// The lines of a body that a cut keeps: where the evidence lands (a frame's line, a quoted message's
// literal), then the lines that carry the names the text states and its words, the words rarer in the
// body weighing more, as code search ranks the lines of a hit.

// Weights of the names a line may carry (the evidence's lines come first whatever they carry), and
// how many lines a body keeps in focus.
const (
	focusName     = 3.0 // a name the text states (backticks, CamelCase, snake_case, a call)
	focusCodeName = 1.5 // a name in the reporter's code block
	maxFocus      = 8
	// a body this short needs no cut to guide; a longer one may be cut whatever its room (the pack's
	// budget may run out before it), and a cut without focus would keep only its head
	minFocusBytes = 400
)

// focus gives each candidate that shows a body the lines of it the evidence and the text point at.
func (r *ranker) focus(cands []pack.Candidate, files []RankedFile) {
	evidence := map[string][]int{}
	for _, f := range files {
		if len(f.lines) > 0 && evidence[f.Path] == nil {
			evidence[f.Path] = f.lines
		}
	}
	names := r.focusNames()
	terms := map[string]float64{}
	for _, t := range r.a.Terms {
		terms[t.Word] = max(terms[t.Word], t.Weight)
	}
	byPath := map[string]*focusFile{}
	for i := range cands {
		c := &cands[i]
		if c.Full == "" || c.StartLine <= 0 || c.Kind == "outline" || c.Kind == "import" {
			continue
		}
		if len(c.Full) < minFocusBytes {
			continue // a few lines: a cut would not keep fewer
		}
		ff, ok := byPath[c.Path]
		if !ok {
			ff = r.focusFile(c.Path)
			byPath[c.Path] = ff
		}
		if ff != nil {
			end := c.StartLine + strings.Count(c.Full, "\n")
			c.Focus = ff.lines(c.StartLine, end, evidence[c.Path], names, terms)
		}
	}
}

// focusFile is what scoring a file's lines reads: its words by line and its lines' text.
type focusFile struct {
	bw  *bodyWords
	raw [][]byte
}

func (r *ranker) focusFile(path string) *focusFile {
	rec := r.s.Record(path)
	if rec == nil {
		return nil
	}
	src := r.source(path)
	return &focusFile{bw: wordsOf(rec.Hash, src), raw: parse.SplitLines(src)}
}

// focusNames are the names the text states, each with its weight.
func (r *ranker) focusNames() map[string]float64 {
	out := map[string]float64{}
	for _, a := range r.a.Anchors {
		w := focusName
		switch a.Kind {
		case query.KindPath, query.KindFileLine:
			continue
		case query.KindCode:
			w = focusCodeName
		}
		name := a.Text
		if i := strings.LastIndexAny(name, ".:"); i >= 0 {
			name = name[i+1:]
		}
		if len(name) > 2 {
			out[name] = max(out[name], w)
		}
	}
	return out
}

// lines scores the lines from..to of the file and returns the best, best first: evidence lines in
// the evidence's order, then by the names and words they carry.
func (ff *focusFile) lines(from, to int, evidence []int, names, terms map[string]float64) []int {
	bw, raw := ff.bw, ff.raw
	to = min(to, len(bw.lines))
	if from > to {
		return nil
	}
	var out []int
	for _, l := range evidence {
		if from <= l && l <= to && len(out) < maxFocus {
			out = append(out, l)
		}
	}
	// the text's words in this file's vocabulary, and on how many of the body's lines each is
	ids := map[int32]float64{}
	for w, wt := range terms {
		if id, ok := bw.vocab[w]; ok {
			ids[id] = wt
		}
	}
	lines := to - from + 1
	count := map[int32]int{}
	seen := map[int32]bool{} // a word counts once a line
	for _, ws := range bw.lines[from-1 : to] {
		clear(seen)
		for _, id := range ws {
			if _, ok := ids[id]; ok && !seen[id] {
				seen[id] = true
				count[id]++
			}
		}
	}
	order := slices.Sorted(maps.Keys(names)) // summed in one order: the same scores every time
	type scored struct {
		line  int
		score float64
	}
	var ss []scored
	for k, ws := range bw.lines[from-1 : to] {
		s := 0.0
		clear(seen)
		for _, id := range ws {
			if wt, ok := ids[id]; ok && !seen[id] {
				seen[id] = true
				s += wt * math.Log(1+float64(lines)/float64(count[id]))
			}
		}
		if len(order) > 0 && from-1+k < len(raw) {
			text := string(raw[from-1+k]) // once a line, not once a name
			for _, name := range order {
				if query.HasName(text, name) {
					s += names[name] * math.Log(1+float64(lines))
				}
			}
		}
		if s > 0 {
			ss = append(ss, scored{from + k, s})
		}
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].score > ss[j].score })
	for _, s := range ss {
		if len(out) == maxFocus {
			break
		}
		if !slices.Contains(out, s.line) {
			out = append(out, s.line)
		}
	}
	return out
}
