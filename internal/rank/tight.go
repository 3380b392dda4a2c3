package rank

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Rankers: the learned model (the default) re-orders the fused ranking and says how likely each file
// is; fusion is the fused ranking alone.
const (
	Learned = "learned"
	Fusion  = "fusion"
)

// learned re-orders the fused ranking's first files by the model and gives each its probability;
// the files past them follow in the fused order.
func (r *ranker) learned(files []RankedFile, m *Model) []RankedFile {
	if len(files) == 0 {
		return files
	}
	n := min(LearnedCandidates, len(files))
	out := make([]RankedFile, 0, len(files))
	for _, s := range m.Files(r.fileFeatures(files, n)) {
		f := files[s.Index]
		f.Prob = s.Prob
		f.fusedRank = s.Index
		f.fusedTop = files[0].Score
		out = append(out, f)
	}
	return append(out, files[n:]...)
}

// A pack shows the likeliest files, in each its likeliest definitions, or the whole file when it is
// small enough, and outlines the next likely files where it stops. An item may spend tokens in
// proportion to the probability that the fix changes it: it is shown whole while it brings at least
// 1/perProb expected changes a token, and cut around its evidence past that. A plan says how far a
// pack goes past its likeliest file.
type plan struct {
	files   int     // the most files shown
	fileMin float64 // the least probability of a shown file past the first; < 0: the model's threshold
	defs    int     // a file's likeliest definitions shown, down to defMin
	defMin  float64
	itemMin float64 // the least probability (the file's times the definition's) an item is worth
	perProb float64 // what an item that is certain to change may spend
	related bool    // a bug fix's pack shows a test and a caller of the code it shows, where there are some
	budget  int     // the pack's tokens, past which regions are not worth scoring (covered); 0: no bound
}

// The default plan spends the budget while the regions it adds are likely enough to hold a changed
// line (missing code, not noise, is what stops a fix); the tight one stops with the evidence: at most
// five files past the model's threshold (a sixth was not the fix's in any of the 23 dev-set packs
// that had one).
var (
	recallPlan = plan{files: 40, fileMin: 0.012, defs: 60, defMin: 0.005, itemMin: 0.005, perProb: 30000, related: true}
	tightPlan  = plan{files: TightFiles, fileMin: -1, defs: 8, defMin: 0.08, perProb: 5000}
)

const (
	tokensPerFile = 250 // past minPlanFiles, a budget shows at most one file for this many of its tokens
	minPlanFiles  = 20
	minCap        = 250 // the least an item may take: a body this size costs less than a wrong guess
	moreMinCap    = 90  // the least a definition past a file's best may take: its opening lines
	alsoFiles     = 20  // files outlined where the pack stops
	alsoMinProb   = 0.01
	outlineDefs   = 1  // signatures an outline shows: its likeliest
	outlineCap    = 70 // tokens an outline may take
	parentCard    = 80 // a method's class wider than this many lines is shown as a card, not whole
)

func (r *ranker) tight(files []RankedFile, m *Model) []pack.Candidate {
	out := r.pinnedCandidates(files)
	var outlines []pack.Candidate
	var prims []primary
	qw := r.queryWords()
	show, also := r.tightFiles(files, m)
	var shown []valued
	sources := sourceDefs{} // each shown file's best definition, which a generated copy shows first too
	for i, t := range show {
		shown = append(shown, r.showFile(t, m, qw, &prims, sources)...)
		if i+1 >= minScoredFiles && i+1 < len(show) && r.plan.covered(shown, show[i+1].f.Prob) {
			also = append(show[i+1:], also...) // outlined where the pack stops
			break
		}
	}
	// the regions of every shown file, likeliest first: a file's fifth definition is worth less than
	// the next file's best
	slices.SortStableFunc(shown, func(a, b valued) int { return cmp.Compare(b.q, a.q) })
	for _, v := range shown {
		out = append(out, v.Candidate)
	}
	for _, t := range also {
		if len(outlines) == alsoFiles {
			break
		}
		if c, ok := r.outline(t.f, t.k, m, qw); ok {
			if t.with != "" {
				c.Why = []string{fmt.Sprintf("file #%d, p=%.2f: %s; where the pack stops", t.k+1, t.f.Prob, t.with)}
			}
			outlines = append(outlines, c)
		}
	}
	out = append(out, r.asked(prims, files)...)
	return append(out, outlines...)
}

// valued is a region of a shown file with the probability that the fix changes it, which orders the
// regions of all shown files.
type valued struct {
	pack.Candidate
	q float64
}

// tightFile is a file a tight pack shows or outlines: its place in the ranking and, for a companion
// of a shown file, what it changed with.
type tightFile struct {
	f    RankedFile
	k    int
	with string
	copy bool // a generated amalgamation, which comes after the sources that raise it
}

// tightFiles are the files a pack shows (the likeliest, then every file as likely as the plan asks,
// at most its count) and those it outlines where it stops, likeliest first. The files that changed
// together with the likeliest ones in the workspace's history have their probability raised by it
// (noisy-or with that file's probability times the pair's confidence, discounted when few commits
// say so), whether a signal found them or not, before the files are chosen: a file shown is never
// less likely than one outlined. A generated amalgamation comes after the sources it copies.
func (r *ranker) tightFiles(files []RankedFile, m *Model) (show, rest []tightFile) {
	var all []tightFile
	for k, f := range files {
		if rec := r.s.Record(f.Path); rec != nil && rec.File != nil {
			t := tightFile{f: f, k: k}
			if k < amalgamRanks && r.amalgamated(f.Path) {
				t.f.Prob *= amalgamDiscount
				t.with = "generated from other files of the workspace, which a fix edits"
				t.copy = true
			}
			all = append(all, t)
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	all, next := r.withReferenced(all, len(files))
	slices.SortStableFunc(all, func(a, b tightFile) int { return cmp.Compare(b.f.Prob, a.f.Prob) })
	fileMin := r.plan.fileMin
	if fileMin < 0 {
		fileMin = m.FileThreshold
	}
	var likely []tightFile // the files whose companions count: the likeliest, and those past the threshold
	for i, t := range all {
		if i > 0 && (t.f.Prob < m.FileThreshold || len(likely) >= tightPlan.files) {
			break
		}
		likely = append(likely, t)
	}
	all = r.withCompanions(likely, all, next)
	for i, t := range all {
		if i == 0 || t.f.Prob >= fileMin && len(show) < r.plan.files {
			show = append(show, t)
			continue
		}
		rest = append(rest, t)
	}
	rest = slices.DeleteFunc(rest, func(t tightFile) bool { return t.f.Prob < alsoMinProb || r.hasPins(t.f.Path) })
	return show, rest
}

// Companions: the files the history says change with a shown one.
const (
	companionsPer = 8   // companions of each likely file
	companionMin  = 2   // commits a pair must share
	companionHalf = 3   // the commits at which a pair's confidence counts half: two shared commits are weak
	copyUnder     = 0.9 // a copy's probability at most, of the likeliest source that raised it (its own: a tenth)
)

// withCompanions raises the probability of the files that changed with the likely ones and adds
// those no signal found, then orders the files by probability. The sources' raises are joined as
// independent (noisy-or), which they are not: files that change with a file change with each other,
// and four sources that each name a file would put it above them all. So a file raised is never
// likelier than the likeliest source that raised it (unless it was on its own), and a generated copy
// stays under it.
func (r *ranker) withCompanions(likely, all []tightFile, next int) []tightFile {
	if r.s.History == nil || !r.on("history") {
		return all
	}
	x := byPath(all, next)
	raisedBy, own := map[int]float64{}, map[int]float64{} // each raised file's likeliest source, and its own probability
	for _, s := range likely {
		p := max(s.f.Prob, alsoMinProb)
		for _, c := range r.s.History.Companions(s.f.Path, companionMin, companionsPer) {
			// a file of the history may be gone, or kept without its parse (too large, minified)
			if c.Path == s.f.Path || !records.IsCode(c.Path) || r.parsed(c.Path) == nil {
				continue
			}
			q := p * c.Confidence * float64(c.Commits) / float64(c.Commits+companionHalf)
			i := x.index(c.Path, s.f.fusedTop)
			t := &x.all[i]
			if _, ok := raisedBy[i]; !ok {
				own[i] = t.f.Prob
			}
			t.f.Prob = 1 - (1-t.f.Prob)*(1-q)
			if t.with == "" {
				t.with = fmt.Sprintf("changed with %s in %d commits", s.f.Path, c.Commits)
			}
			raisedBy[i] = max(raisedBy[i], s.f.Prob)
		}
	}
	for i, b := range raisedBy {
		bound := max(own[i], b)
		if x.all[i].copy {
			bound = copyUnder * b
		}
		x.all[i].f.Prob = min(x.all[i].f.Prob, bound)
	}
	slices.SortStableFunc(x.all, func(a, b tightFile) int { return cmp.Compare(b.f.Prob, a.f.Prob) })
	return x.all
}

// filesByPath finds a pack's files by path, and adds those a raise finds that no signal did, ranked
// past every ranked file in the order they come.
type filesByPath struct {
	all  []tightFile
	at   map[string]int
	next int // the rank of the next file added
}

func byPath(all []tightFile, next int) *filesByPath {
	x := &filesByPath{all: all, at: make(map[string]int, len(all)), next: next}
	for i, t := range all {
		x.at[t.f.Path] = i
	}
	return x
}

// index is where path is in x.all, once added if it was not.
func (x *filesByPath) index(path string, top float64) int {
	if i, ok := x.at[path]; ok {
		return i
	}
	x.all = append(x.all, tightFile{f: RankedFile{Path: path, fusedRank: x.next, fusedTop: top}, k: x.next})
	x.next++
	x.at[path] = len(x.all) - 1
	return len(x.all) - 1
}

// Referenced issues: the code files the commits that name an earlier issue the text names changed.
const (
	referencedWeight = 0.5 // what a referenced issue's commits say of the code they changed, shared among its files
	referencedFiles  = 20  // an issue whose commits changed more code files than this says nothing of any one
)

// withReferenced raises the probability of the code files changed by the commits whose message names an
// issue or pull request the text names ("a follow up to #3112"), each by referencedWeight shared among
// that files (noisy-or), and adds those no signal found, ranked from next on; it returns the
// rank a file added after them takes.
func (r *ranker) withReferenced(all []tightFile, next int) ([]tightFile, int) {
	if r.s.History == nil || !r.on("history") || len(r.a.Refs) == 0 {
		return all, next
	}
	x := byPath(all, next)
	for _, ref := range r.a.Refs {
		var files []string
		by := map[string]string{} // each file's newest commit that names the issue
		for _, c := range r.s.History.Naming(ref) {
			for _, p := range c.Files {
				if _, ok := by[p]; !ok && records.IsCode(p) && !records.IsTest(p) && r.parsed(p) != nil {
					by[p] = c.Hash
					files = append(files, p)
				}
			}
		}
		if len(files) == 0 || len(files) > referencedFiles {
			continue
		}
		q := referencedWeight / float64(len(files))
		for _, p := range files {
			i := x.index(p, x.all[0].f.fusedTop)
			t := &x.all[i]
			t.f.Prob = 1 - (1-t.f.Prob)*(1-q)
			if t.with == "" {
				t.with = fmt.Sprintf("changed by %.7s, which names #%d as the text does", by[p], ref)
			}
		}
	}
	return x.all, x.next
}

// showFile is one shown file's candidates: its likeliest definitions, the best as itself (a method's
// class as a card), the others as their opening lines.
func (r *ranker) showFile(t tightFile, m *Model, qw map[string]bool, prims *[]primary, sources sourceDefs) []valued {
	f, k := t.f, t.k
	rec := r.parsed(f.Path)
	if rec == nil {
		r.leftOut(f.Path, "the index holds no parse of it")
		return nil
	}
	src := r.source(f.Path)
	why := []string{fmt.Sprintf("file #%d, p=%.2f", k+1, f.Prob)}
	if t.with != "" {
		why = append(why, t.with)
	}
	why = append(why, r.fileWhy(f)...)
	defs := rec.File.Definitions
	scored := m.Defs(r.defFeatures(f, f.fusedRank, f.fusedTop, qw))
	if t.copy {
		sources.follow(defs, scored)
	}
	if c, ok := r.wholeFile(rec, src, f, why); ok {
		if !t.copy && len(scored) > 0 {
			sources.add(defs[scored[0].Index], scored[0].Prob)
		}
		if len(scored) > 0 && len(*prims) < 3 && !records.IsTest(f.Path) { // its callers and tests are its best definition's
			*prims = append(*prims, primary{path: f.Path, def: defs[scored[0].Index]})
		}
		return []valued{{c, f.Prob}}
	}
	if len(scored) == 0 {
		c := outlineCandidate(rec, src, f, why)
		c.Probability, c.Cap = f.Prob, r.plan.cap(f.Prob)
		return []valued{{c, f.Prob}}
	}
	var out []valued
	cards := map[string]bool{}
	first := -1 // the file's best definition that is not pinned
	wide := 0   // namespaces passed over before the first definition taken
	for j, s := range scored {
		if j >= r.plan.defs || j > wide && (s.Prob < r.plan.defMin || f.Prob*s.Prob < r.plan.itemMin) {
			break
		}
		d := defs[s.Index]
		if wideScope(defs, s.Index) {
			if j == wide {
				wide++
			}
			continue // shown, it would be the list of what it holds: its members are the picks
		}
		holds := r.holdsPin(f.Path, d)
		if r.isPinned(f.Path, s.Index) || first >= 0 && holds {
			continue // shown with its evidence; a class around it would hide it
		}
		if first >= 0 && d.Kind == "field" {
			continue // a field beside the best says little on its own
		}
		q := f.Prob * s.Prob
		if j == wide {
			q = f.Prob * max(s.Prob, 0.5) // a likely file's best guess is worth its room
		}
		c := defCandidate(rec, r.lines(f.Path), d, q, why)
		c.Kind, c.Bucket = "definition", "definitions"
		if holds {
			c.Full = "" // its card: whole, it would hide the pinned definition
		}
		if first >= 0 || r.hasPins(f.Path) { // the file's evidence is said once, with its best definition
			c.Kind, c.Bucket = "snippet", "snippets"
			c.Why = []string{fmt.Sprintf("file #%d, p=%.2f, beside the evidence", k+1, f.Prob)}
			if first >= 0 {
				c.Why = []string{fmt.Sprintf("file #%d, beside `%s`", k+1, defs[first].Qualified())}
			}
		}
		if first < 0 {
			first = s.Index
			if !t.copy {
				sources.add(d, s.Prob)
			}
		}
		c.Probability, c.Cap = q, r.plan.cap(q)
		if first != s.Index { // past the file's best, a body or nothing
			c.Cap = max(moreMinCap, int(q*r.plan.perProb))
			c.BodyOnly = true
			c.Probability = 0 // it is here beside the best, whose probability the pack states
			c.Beside = defs[first].StartLine
		}
		out = append(out, valued{c, q})
		if len(*prims) < 3 && !records.IsTest(f.Path) && c.Kind == "definition" {
			*prims = append(*prims, primary{path: f.Path, def: d})
		}
		// a method is shown as itself, its class as a card (for the file's best: the others are
		// the class's too, or their own)
		if p := parentOf(defs, d); p >= 0 && !cards[defs[p].Name] && first == s.Index {
			cards[defs[p].Name] = true
			pd := defs[p]
			card := defCandidate(rec, r.lines(f.Path), pd, q*0.9, []string{fmt.Sprintf("the class of `%s`", d.Qualified())})
			card.Kind, card.Bucket = "snippet", "snippets"
			if pd.EndLine-pd.StartLine+1 > parentCard || r.holdsPin(f.Path, pd) {
				card.Full, card.Standard = "", ""
			}
			card.Probability, card.Cap = q, r.plan.cap(q*0.5)
			out = append(out, valued{card, q * 0.9})
		}
	}
	return out
}

// sourceDefs are the best definitions of the files a pack shows, by name and signature, with the
// probability that the fix changes each. A generated copy holds them with the same text, and the fix
// changes them there too when the copy is generated again, where its own ranking of its thousands of
// definitions is weak (nlohmann/json's single header: the changed one ranked 12th to 1,429th where
// its source ranks it 2nd to 5th). Each shown file's best alone: following every region a source
// shows spends the copy's room on repeats.
type sourceDefs map[string]float64

func defKey(d parse.Definition) string { return d.Name + "\x00" + d.Signature }

func (s sourceDefs) add(d parse.Definition, p float64) {
	if k := defKey(d); p > s[k] {
		s[k] = p
	}
}

// follow gives each of a copy's definitions that a source shows the source's probability, when higher
// than its own, and orders them again.
func (s sourceDefs) follow(defs []parse.Definition, scored []Scored) {
	if len(s) == 0 {
		return
	}
	for i := range scored {
		if p, ok := s[defKey(defs[scored[i].Index])]; ok && p > scored[i].Prob {
			scored[i].Prob = p
		}
	}
	slices.SortStableFunc(scored, func(a, b Scored) int { return cmp.Compare(b.Prob, a.Prob) })
}

// outline is a likely file the pack stops before, as its path and the signatures of its likeliest
// definitions: a few tokens that tell the reader where else to look.
func (r *ranker) outline(f RankedFile, k int, m *Model, qw map[string]bool) (pack.Candidate, bool) {
	rec := r.s.Record(f.Path)
	if rec == nil || rec.File == nil || len(rec.File.Definitions) == 0 {
		return pack.Candidate{}, false
	}
	defs := rec.File.Definitions
	// the likeliest functions and types (a field or a variable says little of a file): those the
	// evidence points at, strongest first, which on issues do as well as the model and cost nothing
	// more; the model's order where the evidence names none
	choose := func(order []int) (chosen []int) {
		for _, i := range order {
			if len(chosen) == outlineDefs {
				break
			}
			if k := defs[i].Kind; k != "field" && k != "variable" && k != "constant" && k != "section" {
				chosen = append(chosen, i)
			}
		}
		return chosen
	}
	chosen := choose(r.pickDefsAll(rec, f))
	if len(chosen) == 0 {
		var order []int
		for _, s := range m.Defs(r.defFeatures(f, f.fusedRank, f.fusedTop, qw)) {
			order = append(order, s.Index)
		}
		if chosen = choose(order); len(chosen) == 0 {
			return pack.Candidate{}, false
		}
	}
	slices.Sort(chosen) // in the file's order
	var lines []string
	first, last := 0, 0
	for _, i := range chosen {
		d := defs[i]
		sig := d.SignatureOr(d.Qualified())
		lines = append(lines, fmt.Sprintf("%s  %sline %d", sig, commentPrefix(rec.Language), d.StartLine))
		if first == 0 {
			first = d.StartLine
		}
		last = max(last, d.EndLine)
	}
	return pack.Candidate{
		Kind: "outline", Bucket: "outlines", Path: f.Path, Language: rec.Language, StartLine: first, EndLine: last,
		Score: f.Prob, Probability: f.Prob, Cap: outlineCap,
		Why:     []string{fmt.Sprintf("file #%d, p=%.2f: where the pack stops", k+1, f.Prob)},
		Compact: strings.Join(lines, "\n"),
	}, true
}

// fileWhy is a file's reasons, less those its pinned definitions say themselves.
func (r *ranker) fileWhy(f RankedFile) []string {
	if !r.hasPins(f.Path) {
		return f.Why
	}
	var out []string
	for _, w := range f.Why {
		if !strings.HasPrefix(w, "stack frame") && !strings.HasPrefix(w, "error message") {
			out = append(out, w)
		}
	}
	return out
}

// asked are the callers or the tests of the best definitions when the text asks for them (usage
// exploration, test writing): what the task is about, though no fix changes them. The model learned
// what fixes change, never tests, so the tests the ranking found come too. A bug fix's pack, when its
// plan says so, shows the first test and the first caller of the code it shows: how the code is
// reached and checked, which a fix must keep true.
func (r *ranker) asked(prims []primary, files []RankedFile) []pack.Candidate {
	want := map[string]string{query.UsageExploration: "caller", query.TestWriting: "test"}[r.a.Intent.Name]
	if want == "" && r.plan.related && r.a.Intent.Name == query.BugFix {
		return r.beside(prims, files)
	}
	if want == "" || len(files) == 0 {
		return nil
	}
	var out []pack.Candidate
	if want == "test" { // the test file the fused ranking puts first
		best := -1
		for k, f := range files {
			if rec := r.s.Record(f.Path); records.IsTest(f.Path) && rec != nil && rec.File != nil && (best < 0 || f.Score > files[best].Score) {
				best = k
			}
		}
		if best >= 0 && files[best].Score >= minScoreShare*files[0].fusedTop {
			f := files[best]
			rec := r.s.Record(f.Path)
			why := append([]string{"the test file the signals found first"}, f.Why...)
			defs := r.pickDefs(rec, f)
			if len(defs) == 0 {
				c := outlineCandidate(rec, r.source(f.Path), f, why)
				c.Cap = minCap
				out = append(out, c)
			}
			for _, d := range defs {
				c := defCandidate(rec, r.lines(f.Path), rec.File.Definitions[d], f.Score, why)
				c.Kind, c.Bucket, c.Cap = "test", "tests", minCap
				out = append(out, c)
			}
		}
	}
	for _, c := range r.related(prims, files, files[0].Score) {
		if c.Kind == want {
			c.Cap = minCap
			out = append(out, c)
		}
	}
	return out
}

// beside is a bug fix's test and caller of the code it shows: the first of each, as a body of its
// least room.
func (r *ranker) beside(prims []primary, files []RankedFile) []pack.Candidate {
	if len(files) == 0 {
		return nil
	}
	var out []pack.Candidate
	took := map[string]bool{}
	for _, c := range r.related(prims, files, files[0].Score) {
		if took[c.Kind] {
			continue
		}
		took[c.Kind] = true
		c.Cap = minCap
		c.Spare = r.plan.budget > 0 && r.plan.budget < pack.SmallBudget // a small pack: the code to change first
		out = append(out, c)
	}
	return out
}

// Scoring a file's definitions is most of a query's time; a file whose regions would all come after
// regions filling the budget coveredTimes over is outlined instead, once minScoredFiles are scored
// (three budgets lost 0.003 of the dev set's line recall at 8,000 tokens).
const (
	coveredTimes   = 5
	minScoredFiles = 8
)

// covered says whether the regions at least as likely as prob would fill the budget coveredTimes over.
func (p plan) covered(shown []valued, prob float64) bool {
	if p.budget == 0 {
		return false
	}
	total := 0
	for _, v := range shown {
		if v.q >= prob {
			total += min(len(v.Full)/bytesPerToken, max(v.Cap, minCap))
		}
	}
	return total > coveredTimes*p.budget
}

// cap is the tokens an item of probability q may take.
func (p plan) cap(q float64) int { return max(minCap, int(q*p.perProb)) }

// wideScope says whether the definition at i is too long to be shown and holds what should be shown
// instead: a namespace or module that holds others of its file's definitions, or a function whose
// range holds its siblings or the members of other scopes (a declaration read past its end, across a
// class's body), whose members or neighbours are the picks.
func wideScope(defs []parse.Definition, i int) bool {
	d := defs[i]
	if d.EndLine-d.StartLine+1 <= parentCard {
		return false
	}
	function := d.Kind == "function" || d.Kind == "method" || d.Kind == "constructor"
	if d.Kind != "namespace" && d.Kind != "module" && !function {
		return false
	}
	others := 0
	for j, o := range defs {
		if j != i && d.StartLine <= o.StartLine && o.EndLine <= d.EndLine && o.EndLine-o.StartLine < d.EndLine-d.StartLine {
			if !function {
				return true
			}
			if o.Parent != "" && (o.Parent != d.Name || o.Parent == d.Parent) {
				others++ // a member of another scope or a sibling; a closure (no parent) is the function's own
			}
		}
	}
	return others >= foreignDefs
}

// foreignDefs is how many definitions of others a function's range must hold to be read as wider than
// the function: a closure or two is a function's own.
const foreignDefs = 3

// parentOf is the index of the type that holds d in the same file, or -1.
func parentOf(defs []parse.Definition, d parse.Definition) int {
	if d.Parent == "" {
		return -1
	}
	return slices.IndexFunc(defs, func(p parse.Definition) bool {
		return p.Name == d.Parent && isTypeKind(p.Kind) && p.StartLine <= d.StartLine && d.EndLine <= p.EndLine
	})
}

// wholeFile is a likely file small enough to be shown whole within its item's room: the lines between
// and around its definitions (imports, a module's constants, where a new function goes) come with it.
func (r *ranker) wholeFile(rec *records.Record, src []byte, f RankedFile, why []string) (pack.Candidate, bool) {
	cap := r.plan.cap(f.Prob)
	if f.Prob < wholeFileProb || r.hasPins(f.Path) || rec.Lines > maxBodyLines || int(rec.Size)/bytesPerToken > cap {
		return pack.Candidate{}, false
	}
	c := outlineCandidate(rec, src, f, why)
	c.Kind, c.Bucket = "file", "definitions"
	c.Probability, c.Cap = f.Prob, cap
	return c, true
}

// A file this likely is shown whole when its tokens (bytes over bytesPerToken) fit its room.
const (
	wholeFileProb = 0.1
	bytesPerToken = 4
)
