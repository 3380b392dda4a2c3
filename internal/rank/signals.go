package rank

// The signals: every signal turns the query into a ranked list of files (with the chunks that earned
// each file its place), the lists are fused by weighted reciprocal rank and the fused scores are spread
// over the reference graph (fuse.go); the best files' definitions then become the candidates of the
// pack (candidates.go, tight.go).

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sahilm/fuzzy"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/vector"
	"github.com/ctxmap/ctxmap/internal/words"
)

// signal is one ranking signal: one row of the table below.
type signal struct {
	name   string  // the signal's list, and what `--without` switches it off by
	weight float64 // how much a rank in the signal's list counts in the fusion
	// absolute lists score on a fixed scale (1 = certain: an exact, unique identifier), so a weak first
	// place (a common name from pasted code) earns less than a strong one; the others only rank.
	absolute bool
	// run fills the signal's list; search, for a signal that asks an index search, starts the search
	// before any signal runs and returns what fills the list once the search is in
	run    func(r *ranker)
	search func(r *ranker, ctx context.Context) func()
	// switchedBy is the signal that switches this one off, when it has no name of its own in Signals
	switchedBy string
}

// signals are every signal, in the order they run and their lists are fused. An exact identifier or a
// stack frame names a file; BM25 and vectors only suggest one. A signal without a list (lexicon, graph)
// is only switched: the lexicon's expansions of the text's words, the spread over the reference graph.
var signals = []signal{
	{name: "symbols", weight: 1.6, absolute: true, run: (*ranker).symbols},
	{name: "paths", weight: 1.2, absolute: true, run: (*ranker).paths, switchedBy: "symbols"},
	{name: "frames", weight: 2.0, absolute: true, run: (*ranker).frames},
	{name: "errors", weight: 1.6, absolute: true, run: (*ranker).errors},
	{name: "fuzzy", weight: 0.6, absolute: true, run: (*ranker).fuzzy},
	{name: "bm25", weight: 1.0, search: (*ranker).searchLexical},
	{name: "vectors", weight: 0.35, search: (*ranker).searchVectors},
	{name: "entities", weight: 0.5, run: (*ranker).entities},
	{name: "history", weight: 0.35, run: (*ranker).history},
	{name: "lexicon"},
	{name: "graph"},
}

// Signals that can be switched off (the benchmark's ablation, `--without`).
var Signals = signalNames()

func signalNames() []string {
	var out []string
	for _, s := range signals {
		if s.switchedBy == "" {
			out = append(out, s.name)
		}
	}
	return out
}

// signalNamed is the signal of a name, or none.
func signalNamed(name string) signal {
	for _, s := range signals {
		if s.name == name {
			return s
		}
	}
	return signal{}
}

type ranker struct {
	s        *View
	a        *query.Analysis
	without  map[string]bool
	lists    []*signalList
	matches  []entity.Match      // computed once: entities and the pack header use them
	resolved map[string][]string // resolvePath's answers: paths, frames and BM25's terms ask alike
	callees  map[string]bool     // calledByNamed's answer
	pinned   []pin               // pins' answer
	names    map[string]bool     // projectNames' answer
	quoted   [][]records.Literal // per error message of the text, the literals that hold it (errors)
	srcs     map[string][]byte   // the files read for this request, each once
	split    map[string][][]byte // and split into lines
	plan     plan                // how far a pack goes past its likeliest file
	// generated judges files for this request alone when the view shares no judgements
	generated Generated
}

func (r *ranker) on(signal string) bool { return !r.without[signal] }

func (r *ranker) list(name string) *signalList {
	l := &signalList{name: name, files: map[string]*evidence{}}
	r.lists = append(r.lists, l)
	return l
}

// rank runs every signal and fuses them.
func (r *ranker) rank(ctx context.Context) []RankedFile {
	// The index searches take most of a query's time: they run while the other signals work.
	done := make([]func(), len(signals))
	for i, s := range signals {
		if s.search != nil && r.on(s.offBy()) {
			done[i] = s.search(r, ctx)
		}
	}
	for i, s := range signals {
		switch {
		case !r.on(s.offBy()):
		case done[i] != nil:
			done[i]()
		case s.run != nil:
			s.run(r)
		}
	}
	return r.fuse()
}

// offBy is the name that switches the signal off.
func (s signal) offBy() string {
	if s.switchedBy != "" {
		return s.switchedBy
	}
	return s.name
}

// searchLexical starts BM25's search; the list is filled from its hits.
func (r *ranker) searchLexical(ctx context.Context) func() {
	terms := r.queryTerms()
	hits := async(func() []bm25.Hit { return r.s.SearchLexical(ctx, terms, bm25Chunks) })
	return func() { r.bm25(hits()) }
}

// searchVectors starts the search for the chunks nearest to the text; the list is filled from its hits.
func (r *ranker) searchVectors(ctx context.Context) func() {
	hits := async(func() []vector.Hit { return r.s.SearchVectors(ctx, words.Clip(r.a.Words(), 4096), 100) })
	return func() { r.vectors(hits()) }
}

// async runs f on its own goroutine; the function it returns waits for f's result, and panics with
// f's panic, so that the request that asked, and its recovery, sees it.
func async[T any](f func() T) func() T {
	type result struct {
		v     T
		panic any
	}
	ch := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			res.panic = recover()
			ch <- res
		}()
		res.v = f()
	}()
	return func() T {
		res := <-ch
		if res.panic != nil {
			panic(res.panic)
		}
		return res.v
	}
}

// symbolNames are the names an anchor may stand for, its parts split as the languages write them
// (parse.NameParts): `a.b.Name` -> Name (parent b), `Outer$Inner` -> Inner (parent Outer).
func symbolNames(anchor string) (name, parent string) {
	parts := parse.NameParts(anchor)
	if len(parts) == 0 {
		return strings.TrimSpace(anchor), ""
	}
	name = parts[len(parts)-1]
	if len(parts) > 1 {
		parent = parts[len(parts)-2]
	}
	return name, parent
}

// nameOf is the name an anchor stands for, the type that holds it, and for a Go name qualified by its
// import path (example.com/app/pkg/a/view.(*T).run) the package's path, whose folder holds it.
func (r *ranker) nameOf(anchor string) (name, parent, pkg string) {
	if strings.Contains(anchor, "/") {
		pkg, anchor = goPackage(anchor)
	}
	name, parent = symbolNames(anchor)
	return name, parent, pkg
}

var anchorWeight = map[string]float64{
	"backtick": 1, "macro": 1, "camel": 0.9, "snake": 0.8, "dotted": 0.9, "call": 0.8, "file_line": 1, "path": 1, "code": 0.4,
}

// kindWeight is how much an anchor of a kind counts; kinds not listed count half.
func kindWeight(kind string) float64 {
	if w, ok := anchorWeight[kind]; ok {
		return w
	}
	return 0.5
}

// symbols: files that define the identifiers the text names.
func (r *ranker) symbols() {
	l := r.list("symbols")
	for i, an := range r.a.Anchors {
		if an.Kind == "path" || an.Kind == "file_line" || an.Kind == query.KindFlag {
			continue
		}
		name, parent, pkg := r.nameOf(an.Text)
		refs := r.s.Symbols[name]
		if len(refs) == 0 {
			for _, n := range r.s.Folded(strings.ToLower(name)) {
				refs = append(refs, r.s.Symbols[n]...)
			}
		}
		if len(refs) == 0 || len(name) < 3 {
			continue
		}
		w := kindWeight(an.Kind)
		w *= 1 / (1 + 0.15*float64(i)) // earlier anchors, usually in the title, say more
		spread := 1 / math.Log2(1+float64(len(refs)))
		for _, ref := range refs {
			d, _ := r.s.Definition(ref)
			if an.Kind == query.KindMacro && d.Kind != "macro" || pkg != "" && !r.inGoPackage(ref.Path, pkg) {
				continue // name! is the macro, not a function of its name; a Go package's name is in its folder
			}
			sc := w * spread
			if parent != "" && d.Parent == parent {
				sc *= 2
			}
			if isTypeKind(d.Kind) {
				sc *= 1.2
			}
			sc *= demote(ref.Path, r.a.Intent.Name)
			e := l.add(ref.Path, sc, fmt.Sprintf("defines `%s`", d.Qualified()))
			e.defs[ref.Def] = math.Max(e.defs[ref.Def], sc)
		}
	}
}

// errors: string literals in the code that the text's error messages quote. A message is matched
// whole: of the literals that hold it, those that cover the most of it count (a format string's verbs
// match anything, so "%s already exists" holds any message that ends so, but covers little of "a
// release with tag v1 already exists"); a match of a few words is kept in the list, weakly, and pins
// nothing.
func (r *ranker) errors() {
	if len(r.a.Errors) == 0 {
		return
	}
	l := r.list("errors")
	msgs := make([]string, len(r.a.Errors))
	for i, m := range r.a.Errors {
		msgs[i] = strings.ToLower(m)
	}
	type match struct {
		lit   records.Literal
		cover float64
	}
	found := make([][]match, len(msgs))
	for _, lit := range r.s.Literals() {
		for i, m := range msgs {
			if matchesLiteral(m, lit.Pieces) {
				found[i] = append(found[i], match{lit, coverage(m, lit.Pieces)})
			}
		}
	}
	r.quoted = make([][]records.Literal, len(msgs))
	for i, ms := range found {
		best := 0.0
		for _, m := range ms {
			best = max(best, m.cover)
		}
		for _, m := range ms {
			if m.cover < bestShare*best {
				continue // another literal holds more of the message
			}
			lit, sc := m.lit, demote(m.lit.Path, r.a.Intent.Name)
			if strong(m.cover, lit.Pieces) {
				r.quoted[i] = append(r.quoted[i], lit)
			} else {
				sc *= 0.3
			}
			e := l.add(lit.Path, sc, fmt.Sprintf("error message %q at line %d", words.Clip(lit.Text, 60), lit.Line))
			e.lines = append(e.lines, lit.Line)
			if d := r.enclosing(lit.Path, lit.Line); d >= 0 {
				e.defs[d] = max(e.defs[d], sc)
			}
		}
	}
}

// bestShare: a literal covering less than this share of what the best covers of a message is another
// message that ends alike.
const bestShare = 0.8

// coverage is the share of a message a literal's fixed parts show.
func coverage(msg string, pieces []string) float64 {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if len(msg) == 0 {
		return 0
	}
	return min(1, float64(n)/float64(len(msg)))
}

// strong tells a match that names its place: three words or more of the message, or most of it.
func strong(cover float64, pieces []string) bool {
	n := 0
	for _, p := range pieces {
		n += len(strings.Fields(p))
	}
	return n >= 3 || cover >= 0.8
}

func matchesLiteral(msg string, pieces []string) bool {
	for _, p := range pieces {
		if !strings.Contains(msg, p) {
			return false
		}
	}
	return true
}

// fuzzy: identifiers made from the text's words ("build tree" -> buildTree) matched to symbols.
func (r *ranker) fuzzy() {
	if len(r.a.Identifiers) == 0 {
		return
	}
	l := r.list("fuzzy")
	for i, cand := range r.a.Identifiers {
		if i >= 24 {
			break
		}
		w := 1 / (1 + 0.1*float64(i))
		if exact := r.s.Folded(strings.ToLower(cand)); len(exact) > 0 {
			for _, n := range exact {
				r.addSymbol(l, n, w, fmt.Sprintf("identifier `%s` from the text's words", n))
			}
			continue
		}
		if len(cand) < 6 || i >= 8 {
			continue
		}
		ms := fuzzy.Find(cand, r.s.NamesWithLetters(cand))
		for j, m := range ms {
			if j >= 3 || len(m.Str) > 2*len(cand) || m.Score <= 0 {
				break
			}
			r.addSymbol(l, m.Str, 0.5*w, fmt.Sprintf("identifier `%s` like `%s`", m.Str, cand))
		}
	}
}

func (r *ranker) addSymbol(l *signalList, name string, w float64, why string) {
	refs := r.s.Symbols[name]
	if len(refs) == 0 || len(refs) > 20 {
		return
	}
	spread := 1 / math.Log2(1+float64(len(refs)))
	for _, ref := range refs {
		sc := w * spread * demote(ref.Path, r.a.Intent.Name)
		e := l.add(ref.Path, sc, why)
		e.defs[ref.Def] = math.Max(e.defs[ref.Def], sc)
	}
}

// queryTerms are the weighted, normalised words for BM25: the text's terms (and the lexicon's
// expansions unless switched off) plus the words of its identifiers.
func (r *ranker) queryTerms() []bm25.Term {
	weights := map[string]float64{}
	for _, t := range r.a.Terms {
		w := t.Weight
		if t.Source != "query" {
			if !r.on("lexicon") {
				continue
			}
			// a synonym widens recall; it must not outvote the words the reporter wrote
			w *= expansionWeight
		}
		if w > weights[t.Word] {
			weights[t.Word] = w
		}
	}
	// An identifier's words count as much as its kind of anchor says; a path's only when it is a
	// workspace file (a reporter's /Users/me/envs/... names nothing here).
	for _, an := range r.a.Anchors {
		aw := kindWeight(an.Kind)
		if (an.Kind == "path" || an.Kind == "file_line") && len(r.resolvePath(an.Path)) == 0 {
			continue
		}
		for _, w := range words.Terms(an.Text) {
			if weights[w] < aw {
				weights[w] = aw
			}
		}
	}
	terms := make([]bm25.Term, 0, len(weights))
	for w, x := range weights {
		terms = append(terms, bm25.Term{Word: w, Weight: x})
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i].Word < terms[j].Word })
	return terms
}

const bm25Chunks = 300

// expansionWeight scales lexicon expansions against the query's own words.
const expansionWeight = 0.35

// bm25: chunks by BM25; a file scores by its best chunk plus a little for each other one.
func (r *ranker) bm25(hits []bm25.Hit) {
	if len(hits) == 0 {
		return
	}
	l := r.list("bm25")
	files := map[string]float64{}
	places := make([]place, len(hits))
	for i, h := range hits {
		pl := r.place(h.Path, h.ID)
		places[i] = pl
		if pl.path == "" {
			continue
		}
		sc := h.Score * demote(pl.path, r.a.Intent.Name)
		if files[pl.path] == 0 {
			files[pl.path] = sc
		} else {
			files[pl.path] += 0.1 * sc
		}
	}
	via := map[string]string{}
	for rank, pl := range places {
		if pl.path == "" {
			continue
		}
		e := l.add(pl.path, files[pl.path], "")
		if pl.def >= 0 {
			e.defs[pl.def] = math.Max(e.defs[pl.def], 1/(1+float64(rank)/10))
		}
		if pl.via != "" && via[pl.path] == "" {
			via[pl.path] = pl.via
		}
	}
	l.labelRanks("BM25", via)
}

// place is where a search hit points: its file and definition, or, for a mapping, its source.
type place struct {
	path string // "" for a hit on nothing the snapshot holds
	def  int
	via  string // how a mapping led there
}

func (r *ranker) place(p, id string) place {
	rec := r.s.Record(p)
	if rec == nil {
		return place{def: -1}
	}
	for _, c := range rec.Chunks {
		if c.ID != id || c.Kind != "mapping" {
			continue
		}
		tp, sym, _ := strings.Cut(c.Target, "::")
		target := r.s.Record(tp)
		if target == nil || target.File == nil {
			return place{def: -1} // a mapping whose source is gone
		}
		def := -1
		for i, d := range target.File.Definitions {
			if sym != "" && (d.Qualified() == sym || d.Name == sym) {
				def = i
				break
			}
		}
		return place{path: tp, def: def, via: fmt.Sprintf("matched via %s at %s:%d", c.Symbol, p, c.StartLine)}
	}
	return place{path: p, def: r.chunkDef(rec, id)}
}

// chunkDef maps a chunk ID to the definition it holds, or -1 for a file header.
func (r *ranker) chunkDef(rec *records.Record, id string) int {
	for _, c := range rec.Chunks {
		if c.ID != id || c.Kind == "file" {
			continue
		}
		for i, d := range rec.File.Definitions {
			if d.StartLine == c.StartLine && d.Qualified() == c.Symbol {
				return i
			}
		}
		for i, d := range rec.File.Definitions { // a window further into a long definition
			if d.StartLine < c.StartLine && c.StartLine <= d.EndLine && d.Qualified() == c.Symbol {
				return i
			}
		}
	}
	return -1
}

// vectors: chunks nearest to the text in the embedding space.
func (r *ranker) vectors(hits []vector.Hit) {
	if len(hits) == 0 {
		return
	}
	l := r.list("vectors")
	via := map[string]string{}
	for _, h := range hits {
		pl := r.place(h.Path, h.ID)
		if pl.path == "" {
			continue
		}
		sc := float64(h.Score) * demote(pl.path, r.a.Intent.Name)
		e := l.add(pl.path, sc, "")
		if pl.def >= 0 {
			e.defs[pl.def] = math.Max(e.defs[pl.def], sc)
		}
		if pl.via != "" && via[pl.path] == "" {
			via[pl.path] = pl.via
		}
	}
	l.labelRanks("embedding", via)
}

const maxEntityShare = 0.25

// entityMatches are the entities the text names, but for those named only by the reporter's chatter
// ("this version and before").
func (r *ranker) entityMatches() []entity.Match {
	if r.matches == nil {
		r.matches = []entity.Match{}
		for _, m := range r.s.Entities.Match(r.a.Words()) {
			if !slices.ContainsFunc(m.Words, func(w string) bool { return !query.Chatter(w) }) {
				continue
			}
			r.matches = append(r.matches, m)
		}
	}
	return r.matches
}

// entities: files of the entities the text is about; a file holding several of them ranks higher.
func (r *ranker) entities() {
	if r.s.Entities == nil {
		return
	}
	l := r.list("entities")
	for i, m := range r.entityMatches() {
		if i >= 8 {
			break
		}
		e := m.Entity
		if float64(len(e.Files)) > maxEntityShare*float64(len(r.s.Paths)) {
			continue // in a quarter of the files: it names the project, not the place
		}
		for j, f := range e.Files {
			if j >= 40 {
				break
			}
			if !r.s.HasFile(f) {
				continue
			}
			sc := m.Score * (0.5 + e.Importance) / (1 + 0.05*float64(j)) * demote(f, r.a.Intent.Name)
			ev := l.files[f]
			if ev == nil {
				l.add(f, sc, "entity "+e.Name)
				continue
			}
			ev.score += sc
			if !strings.Contains(ev.why, e.Name) {
				ev.why += ", " + e.Name
			}
		}
	}
}

// history: files whose commit messages share the text's words.
func (r *ranker) history() {
	if r.s.History == nil || !r.s.History.Available {
		return
	}
	var ws []string
	for _, t := range r.a.Terms {
		if t.Source == "query" {
			ws = append(ws, t.Word)
		}
	}
	l := r.list("history")
	for _, fs := range r.s.History.Search(ws, 50) {
		if !r.s.HasFile(fs.Path) {
			continue
		}
		why := "history"
		if len(fs.Commits) > 0 {
			why = fmt.Sprintf("history: %q", words.Clip(fs.Commits[0], 70))
		}
		l.add(fs.Path, fs.Score*demote(fs.Path, r.a.Intent.Name), why)
	}
}

func isTypeKind(k string) bool {
	switch k {
	case "class", "struct", "interface", "trait", "enum", "type":
		return true
	}
	return false
}
