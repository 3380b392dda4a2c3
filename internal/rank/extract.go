package rank

import (
	"context"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/words"
)

// What the learned ranker reads of a query's candidates: every signal's verdict on a file, the file's
// kind, size, history and links, and how much of the text its path and names repeat. Mining from
// history and answering a query call the same functions, so the model sees at run time what it saw
// when it learned.

var (
	fileFeature = Index(FileFeatures)
	defFeature  = Index(DefFeatures)
)

// featureSignals are the lists whose rank and score are features, in FileFeatures' order.
var featureSignals = []string{"symbols", "paths", "frames", "errors", "fuzzy", "bm25", "vectors", "entities", "history"}

// listView is a signal's list as ranks and scores scaled to its own best.
type listView struct {
	rank  map[string]int
	score map[string]float64
}

func (r *ranker) views() map[string]listView {
	out := map[string]listView{}
	for _, l := range r.lists {
		v := listView{rank: map[string]int{}, score: map[string]float64{}}
		ranked := l.ranked()
		absolute := signalNamed(l.name).absolute
		top := 0.0
		if len(ranked) > 0 {
			top = l.files[ranked[0]].score
		}
		for i, p := range ranked {
			v.rank[p] = i
			s := l.files[p].score
			switch {
			case absolute:
				s = math.Min(1, s)
			case l.name == "vectors": // cosine similarity has a scale of its own
			case top > 0:
				s /= top
			}
			v.score[p] = s
		}
		out[l.name] = v
	}
	return out
}

// queryWords are the text's own words (no expansions), for matching paths and names.
func (r *ranker) queryWords() map[string]bool {
	out := map[string]bool{}
	for _, t := range r.a.Terms {
		if t.Source == "query" {
			out[t.Word] = true
		}
	}
	return out
}

// fileFeatures describes the fused ranking's first n files, one vector each.
func (r *ranker) fileFeatures(files []RankedFile, n int) [][]float64 {
	files = files[:min(n, len(files))]
	views := r.views()
	qw := r.queryWords()
	top := 0.0
	if len(files) > 0 {
		top = files[0].Score
	}
	hist := r.s.History
	histLen := 0
	if hist != nil {
		histLen = len(hist.Commits)
	}
	// co-change: how many of the best three files each commit touched
	best := map[int32]int{}
	for i := 0; i < len(files) && i < 3; i++ {
		for _, c := range hist.FileHistory(files[i].Path) {
			best[c]++
		}
	}
	qx := r.queryFeatures(qw)
	pairs := pairedRel(files, top)
	out := make([][]float64, len(files))
	for i, f := range files {
		x := make([]float64, len(FileFeatures))
		copy(x, qx)
		set := func(name string, v float64) { x[fileFeature[name]] = v }
		inTop := 0
		for _, s := range featureSignals {
			v, ok := views[s]
			if !ok {
				continue
			}
			if k, ok := v.rank[f.Path]; ok {
				set(s+"_rr", 1/(1+float64(k)))
				set(s+"_score", v.score[f.Path])
				if k < 10 {
					inTop++
				}
			}
		}
		set("signals_top10", float64(inTop))
		set("fused_rr", 1/(1+float64(i)))
		if top > 0 {
			set("fused_rel", f.Score/top)
			set("graph_rel", f.graph/top)
		}
		p := f.Path
		set("is_test", boolf(records.IsTest(p)))
		set("is_vendored", boolf(records.IsVendored(p)))
		set("is_markdown", boolf(parse.Document(p)))
		set("is_prose", boolf(parse.ProseOrData(p)))
		set("is_declaration", boolf(records.IsDeclaration(p)))
		set("is_aux", boolf(isAux(p)))
		set("is_code", boolf(parse.Tagged(p)))
		if rec := r.s.Record(p); rec != nil {
			set("log_lines", math.Log1p(float64(rec.Lines)))
			if rec.File != nil {
				set("log_defs", math.Log1p(float64(len(rec.File.Definitions))))
				set("name_terms_share", nameShare(rec.File.Definitions, qw))
			}
		}
		set("depth", float64(strings.Count(p, "/")))
		commits := hist.FileHistory(p)
		set("log_churn", math.Log1p(float64(len(commits))))
		set("recency", 1)
		if len(commits) > 0 && histLen > 0 {
			set("recency", math.Log1p(float64(commits[0]))/math.Log1p(float64(histLen)))
		}
		own := 0 // one of the best three is the file itself
		if i < 3 {
			own = 1
		}
		shared := 0
		for _, c := range commits {
			if best[c] > own {
				shared++
			}
		}
		set("co_change", float64(shared)/float64(1+len(commits)))
		if g := r.s.Graph; g != nil {
			if k, ok := g.Node(p); ok {
				set("log_degree", math.Log1p(float64(len(g.Edges[k]))))
			}
		}
		pt, share := pathMatch(p, qw)
		set("path_terms", float64(pt))
		set("path_terms_share", share)
		set("sibling_rel", pairs[i].sibling)
		set("folder_rel", pairs[i].folder)
		out[i] = x
	}
	return out
}

// paired is how likely the fused ranking finds the files an engineer edits together with a candidate:
// its sibling (the header beside the source, the -inl beside the declaration, the test beside the
// code: the same stem) and its folder's other files, each as the best such file's score over the top.
type paired struct{ sibling, folder float64 }

func pairedRel(files []RankedFile, top float64) []paired {
	out := make([]paired, len(files))
	if top <= 0 {
		return out
	}
	stems, dirs := make([]string, len(files)), make([]string, len(files))
	for i, f := range files {
		stems[i], dirs[i] = fileStem(f.Path), path.Dir(f.Path)
	}
	for i := range files {
		for j, g := range files {
			if i == j {
				continue
			}
			rel := g.Score / top
			if stems[j] == stems[i] {
				out[i].sibling = max(out[i].sibling, rel)
			}
			if dirs[j] == dirs[i] {
				out[i].folder = max(out[i].folder, rel)
			}
		}
	}
	return out
}

// fileStem is a file's name as its pairs share it: without extensions, case, and the suffixes that
// mark an implementation, an inline part or a test.
func fileStem(p string) string {
	b := strings.ToLower(path.Base(p))
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	for _, suf := range []string{"_test", "-test", "_tests", "test", "_spec", "-spec", "-inl", "_inl", "_impl", "-impl", "_internal", "_private"} {
		if t, ok := strings.CutSuffix(b, suf); ok && t != "" {
			return t
		}
	}
	if t, ok := strings.CutPrefix(b, "test_"); ok && t != "" {
		return t
	}
	return b
}

// queryFeatures are the features every candidate of a query shares.
func (r *ranker) queryFeatures(qw map[string]bool) []float64 {
	x := make([]float64, len(FileFeatures))
	set := func(name string, v float64) { x[fileFeature[name]] = v }
	set("q_terms", math.Log1p(float64(len(qw))))
	set("q_anchors", math.Log1p(float64(len(r.a.Anchors))))
	set("q_frames", math.Log1p(float64(len(r.a.Frames))))
	set("q_errors", float64(len(r.a.Errors)))
	set("q_bytes", math.Log1p(float64(len(r.a.Text))))
	set("q_bugfix", boolf(r.a.Intent.Name == query.BugFix))
	return x
}

// pathMatch counts the text's words among a path's words, and their share of the path's words.
func pathMatch(p string, qw map[string]bool) (int, float64) {
	ws := words.Terms(strings.TrimSuffix(p, path.Ext(p)))
	n := 0
	for _, w := range ws {
		if qw[w] {
			n++
		}
	}
	if len(ws) == 0 {
		return 0, 0
	}
	return n, float64(n) / float64(len(ws))
}

// nameShare is the largest share of a definition name's words that the text uses.
func nameShare(defs []parse.Definition, qw map[string]bool) float64 {
	best := 0.0
	for _, d := range defs {
		if s := termShare(d.Name, qw); s > best {
			best = s
		}
	}
	return best
}

// termShare is the part of s's words that the text uses.
func termShare(s string, qw map[string]bool) float64 { return share(words.Terms(s), qw) }

// isAux tells examples, docs, benchmarks and scripts: code beside the product rather than in it.
func isAux(p string) bool {
	for _, seg := range strings.Split(path.Dir(strings.ToLower(p)), "/") {
		switch seg {
		case "example", "examples", "docs", "doc", "benchmark", "benchmarks", "bench", "scripts", "script",
			"tools", "samples", "sample", "demo", "demos", "dist", "build", "website", "site":
			return true
		}
	}
	return false
}

// defFeatures describes the definitions of one candidate file (fused rank i) for the learned ranker.
func (r *ranker) defFeatures(f RankedFile, i int, top float64, qw map[string]bool) [][]float64 {
	rec := r.s.Record(f.Path)
	if rec == nil || rec.File == nil {
		return nil
	}
	defs := rec.File.Definitions
	named, parents := r.namedSymbols()
	perList := map[string]map[int]float64{}
	for _, l := range r.lists {
		if ev := l.files[f.Path]; ev != nil {
			perList[l.name] = ev.defs
		}
	}
	lineRR := map[int]float64{} // the first line the evidence points at in a definition, by its order
	for j, line := range f.lines {
		if d := r.enclosing(f.Path, line); d >= 0 && lineRR[d] == 0 {
			lineRR[d] = 1 / (1 + float64(j))
		}
	}
	calls := map[int]map[string]bool{} // the named identifiers each definition's body refers to
	for _, ref := range rec.File.References {
		if n := strings.ToLower(ref.Name); ref.Enclosing >= 0 && named[n] {
			if calls[ref.Enclosing] == nil {
				calls[ref.Enclosing] = map[string]bool{}
			}
			calls[ref.Enclosing][n] = true
		}
	}
	calledByNamed := r.calledByNamed()
	src := r.source(f.Path)
	bw := wordsOf(rec.Hash, src)
	qwID := bw.ids(qw)
	dw := bw.defWordsOf(defs)
	lits := literalsByLine(rec.File.Literals)
	members := map[string]int{}
	for _, d := range defs {
		if d.Parent != "" {
			members[d.Parent]++
		}
	}
	// the order the fused evidence gives, for def_rank
	order := map[int]int{}
	picks := r.pickDefsAll(rec, f)
	for k, d := range picks {
		order[d] = k
	}
	near := nearDefs(defs, rec.File.References, picks)
	out := make([][]float64, len(defs))
	for k, d := range defs {
		x := make([]float64, len(DefFeatures))
		set := func(name string, v float64) { x[defFeature[name]] = v }
		for _, s := range []string{"symbols", "fuzzy", "frames", "errors", "bm25", "vectors"} {
			set(s, perList[s][k])
		}
		set("line_hit", boolf(lineRR[k] > 0))
		set("line_rr", lineRR[k])
		switch {
		case d.Kind == "function" || d.Kind == "method" || d.Kind == "constructor" || d.Kind == "macro":
			set("kind_function", 1)
		case isTypeKind(d.Kind):
			set("kind_type", 1)
		case d.Kind == "variable" || d.Kind == "constant" || d.Kind == "field":
			set("kind_data", 1)
		case d.Kind == "module" || d.Kind == "namespace" || d.Kind == "section":
			set("kind_module", 1)
		}
		set("log_len", math.Log1p(float64(d.EndLine-d.StartLine+1)))
		set("top_level", boolf(d.Parent == ""))
		set("log_members", math.Log1p(float64(members[d.Name])))
		set("name_named", boolf(named[strings.ToLower(d.Name)]))
		set("parent_named", boolf(d.Parent != "" && (named[strings.ToLower(d.Parent)] || parents[strings.ToLower(d.Parent)])))
		set("name_terms_share", share(dw[k].name, qw))
		set("doc_terms_share", share(dw[k].doc, qw))
		if rec.Lines > 0 {
			set("position", float64(d.StartLine)/float64(rec.Lines))
		}
		set("log_file_defs", math.Log1p(float64(len(defs))))
		set("sig_terms_share", share(dw[k].sig, qw))
		if n := bw.count(d, qwID); n > 0 {
			set("body_terms", float64(n)/float64(len(qw)))
			set("log_body_terms", math.Log1p(float64(n)))
		}
		set("calls_named", math.Log1p(float64(len(calls[k]))))
		set("called_by_named", boolf(calledByNamed[strings.ToLower(d.Name)]))
		set("literal_terms", literalTerms(lits, d, qw))
		if top > 0 {
			set("file_rel", f.Score/top)
		}
		set("file_rr", 1/(1+float64(i)))
		if o, ok := order[k]; ok {
			set("def_rank", 1/(1+float64(o)))
		}
		set("near_pick", boolf(near[k]))
		out[k] = x
	}
	return out
}

// nearDefs are the definitions one call away from the one the evidence points at first, either way:
// a fix's other changes sit beside the code it was found at.
func nearDefs(defs []parse.Definition, refs []parse.Reference, picks []int) map[int]bool {
	near := map[int]bool{}
	if len(picks) == 0 {
		return near
	}
	best := picks[0]
	byName := map[string][]int{}
	for i, d := range defs {
		byName[d.Name] = append(byName[d.Name], i)
	}
	for _, ref := range refs {
		switch {
		case ref.Enclosing == best:
			for _, i := range byName[ref.Name] {
				if i != best {
					near[i] = true
				}
			}
		case ref.Enclosing >= 0 && ref.Name == defs[best].Name:
			near[ref.Enclosing] = true
		}
	}
	return near
}

// literalTerms is the largest share of a string literal's words, among a definition's literals, that
// the text uses: a message the reporter paraphrased rather than pasted. lits are sorted by line.
func literalTerms(lits []parse.Literal, d parse.Definition, qw map[string]bool) float64 {
	best := 0.0
	i := sort.Search(len(lits), func(i int) bool { return lits[i].Line >= d.StartLine })
	for ; i < len(lits) && lits[i].Line <= d.EndLine; i++ {
		if ws := words.Terms(lits[i].Text); len(ws) >= 2 {
			best = max(best, termShare(lits[i].Text, qw))
		}
	}
	return best
}

// literalsByLine are a file's string literals sorted by line.
func literalsByLine(lits []parse.Literal) []parse.Literal {
	out := slices.Clone(lits)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// calledByNamed are the names (lower-cased) that the bodies of the definitions the text names refer
// to: what lies one step down the reference path from what the reporter named.
func (r *ranker) calledByNamed() map[string]bool {
	if r.callees != nil {
		return r.callees
	}
	r.callees = map[string]bool{}
	names, _ := r.namedSymbols()
	for n := range names {
		for _, real := range r.s.Folded(n) {
			refs := r.s.Symbols[real]
			if len(refs) > records.MaxDefiners {
				continue
			}
			for _, ref := range refs {
				rec := r.s.Record(ref.Path)
				if rec == nil || rec.File == nil {
					continue
				}
				for _, x := range rec.File.References {
					if x.Enclosing == ref.Def {
						r.callees[strings.ToLower(x.Name)] = true
					}
				}
			}
		}
	}
	return r.callees
}

// namedSymbols are the identifiers the text names (lower-cased), and the parents they name (`a.B`).
func (r *ranker) namedSymbols() (names, parents map[string]bool) {
	names, parents = map[string]bool{}, map[string]bool{}
	for _, an := range r.a.Anchors {
		if an.Kind == "path" || an.Kind == "file_line" {
			continue
		}
		n, p := symbolNames(an.Text)
		names[strings.ToLower(n)] = true
		if p != "" {
			parents[strings.ToLower(p)] = true
		}
	}
	for _, fr := range r.a.Frames {
		if fr.Function != "" {
			n, p := symbolNames(fr.Function)
			names[strings.ToLower(n)] = true
			if p != "" {
				parents[strings.ToLower(p)] = true
			}
		}
	}
	return names, parents
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// CandidateFeatures is one candidate file of a query with its features, and those of its definitions
// when they were asked for.
type CandidateFeatures struct {
	Path string      `json:"path"`
	X    []float64   `json:"x"`
	Defs []DefVector `json:"defs,omitempty"`
}

// DefVector is one definition of a candidate file with its features.
type DefVector struct {
	Symbol    string    `json:"symbol"`
	StartLine int       `json:"start"`
	EndLine   int       `json:"end"`
	X         []float64 `json:"x"`
}

// Features ranks an analysed text with every signal and describes the fused ranking's first n files;
// withDefs says for which of them the definitions are described too. It is what the learned ranker is
// trained on, mined from history.
func Features(ctx context.Context, v *View, a *query.Analysis, n int, withDefs func(path string, rank int) bool) ([]CandidateFeatures, error) {
	r := &ranker{s: v, a: a, without: map[string]bool{}}
	files := r.rank(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	xs := r.fileFeatures(files, n)
	qw := r.queryWords()
	out := make([]CandidateFeatures, len(xs))
	for i, x := range xs {
		f := files[i]
		out[i] = CandidateFeatures{Path: f.Path, X: x}
		if withDefs == nil || !withDefs(f.Path, i) {
			continue
		}
		rec := r.parsed(f.Path)
		if rec == nil {
			continue
		}
		defs := rec.File.Definitions
		for k, dx := range r.defFeatures(f, i, files[0].Score, qw) {
			d := defs[k]
			out[i].Defs = append(out[i].Defs, DefVector{Symbol: d.Qualified(), StartLine: d.StartLine, EndLine: d.EndLine, X: dx})
		}
	}
	return out, nil
}

// LearnedCandidates is how many of the fused ranking's files the learned ranker re-orders.
const LearnedCandidates = 50
