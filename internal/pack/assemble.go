package pack

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Sizes of an item, smallest first. A capped or cut body is labelled truncated.
const (
	sizeCompact   = "compact"
	sizeStandard  = "standard"
	sizeTruncated = "truncated"
	sizeFull      = "full"
)

var sizeLevel = map[string]int{sizeCompact: 0, sizeStandard: 1, sizeTruncated: 2, sizeFull: 3}

// Budget rules.
const (
	topFull      = 3 // the first items of a bucket may take all of its room; later ones are capped
	minBodyLines = 3 // a cut body keeps at least this many lines after its signature
)

// piece is a candidate rendered at one size.
type piece struct {
	c      *cand
	rank   int
	bucket string
	kind   string
	path   string
	symbol string
	lang   string
	start  int
	end    int
	shownA int // the extent of the lines shown verbatim, shownA..shownB; shownA == 0 when none (a card)
	shownB int
	shown  []Lines // the lines shown verbatim, within the extent
	size   string  // the label
	level  string  // the size it was cut to (full or truncated) or the card it is
	keep   int     // lines kept when cut
	code   string
	why    []string
	score  float64
	prob   float64
	text   string
	tokens int    // -1 until counted
	before int    // the lines of Before shown above a whole body (before start, which is the range's)
	after  int    // the lines of After shown below it (past end)
	body   string // the code without them
}

// plan is a piece to add and the chosen pieces it replaces (ones it contains or was merged with).
type plan struct {
	p       *piece
	remove  []*piece
	upgrade bool
}

type state int

const (
	pending state = iota
	chosen
	duplicate // its lines were already in the pack
	absorbed  // merged into, or replaced by, a bigger item
	dropped   // removed at the end to meet the budget
)

type assembly struct {
	p      *Pack
	tok    *Tokenizer
	format string // of the items: "markdown" or "xml"
	cands  []*cand
	state  map[int]state
	shares map[string]float64

	detail    headerDetail
	avail     int
	alloc     map[string]int
	spent     map[string]int
	total     int
	placed    map[string]int
	itemCap   int
	chosen    []*piece
	lineToks  map[*cand][]int
	hasBucket map[string]bool
	// bodiesFirst skips the cards of the definitions that did not fit (Options.BodiesFirst)
	bodiesFirst bool
}

func newAssembly(p *Pack, cands []*cand, o Options) *assembly {
	a := &assembly{
		p:           p,
		tok:         o.Tokenizer,
		format:      "markdown",
		cands:       cands,
		state:       map[int]state{},
		shares:      o.Shares,
		alloc:       map[string]int{},
		spent:       map[string]int{},
		placed:      map[string]int{},
		lineToks:    map[*cand][]int{},
		hasBucket:   map[string]bool{},
		bodiesFirst: o.BodiesFirst,
	}
	if o.Format == "xml" {
		a.format = "xml"
	}
	for _, c := range cands {
		a.hasBucket[c.bucket] = true
	}
	a.reserve()
	return a
}

// reserve sets aside the header, the footer and (in XML) the section tags, with the widest numbers
// they can show, and splits the rest among the buckets.
func (a *assembly) reserve() {
	budget := a.p.Budget
	var wide []spend
	wrappers := 0
	for _, b := range buckets {
		if a.hasBucket[b] {
			wide = append(wide, spend{b, budget})
			if a.format == "xml" {
				wrappers += a.tok.Count(sectionOpen(b)) + a.tok.Count(sectionClose(b))
			}
		}
	}
	headCap := max(budget/5, 40)
	a.p.Tokens = budget // the widest total the header can state
	var head int
	for i, d := range headerDetails {
		a.detail = d
		head = a.tok.Count(renderHeader(a.format, a.p, d, wide, a.tok))
		if head <= headCap || i == len(headerDetails)-1 {
			break
		}
	}
	foot := a.tok.Count(renderFooter(a.format, len(a.cands)))
	a.avail = max(budget-head-foot-wrappers, 0)
	a.itemCap = max(a.avail/8, 150)
	// outlines name the files where the pack stops in a few tokens each: they keep their room (at
	// most a fifth) whatever the bodies before them would take, but in a small pack that spends its
	// budget on code, where a fifth is the room of a likely body, they take what the code leaves
	rest := a.avail
	if a.hasBucket["outlines"] && !(a.bodiesFirst && a.p.Budget < SmallBudget) {
		out := 0
		for _, c := range a.cands {
			if c.bucket == "outlines" && available(c, sizeCompact) {
				out += a.count(a.build(c, sizeCompact, 0, c.Why))
			}
		}
		a.alloc["outlines"] = min(out, a.avail/5)
		rest -= a.alloc["outlines"]
	}
	for _, b := range buckets {
		if b != "outlines" {
			a.alloc[b] = int(a.shares[b] * float64(rest))
		}
	}
}

// run fills the pack: each bucket within its share, in rank order; then what buckets left unused
// goes first to whole bodies for the best few items, then to a card for each file's best definition
// that did not fit, then to the other candidates that did not fit, then to bigger sizes for chosen
// items in rank order, and last to anything that still fits, spares included.
func (a *assembly) run() {
	// The best candidate goes first, as big as its bucket allows or else as a card in what the whole
	// pack has: at a small budget one bucket's share may not hold even its card, and smaller, lesser
	// items must not take its place.
	if len(a.cands) > 0 {
		best := a.cands[0]
		a.place(best, inBucket)
		if a.state[best.rank] == pending {
			a.applyFit(best, sizeCompact, a.room(best.bucket, true), true, nil)
		}
	}
	for _, c := range a.cands {
		if a.state[c.rank] == pending && !c.Spare {
			a.place(c, inBucket)
		}
	}
	for i, x := range a.byRank() {
		if i == topFull {
			break
		}
		if a.isChosen(x) {
			a.upgrade(x)
		}
	}
	// Then every ranked file the definitions' share could not hold shows its best definition's card
	// before any other grows: a file's place and signature is worth more than more of a lesser one.
	for _, c := range a.cands {
		if a.bodiesFirst {
			break
		}
		if a.state[c.rank] == pending && !c.Spare && c.bucket == "definitions" && !a.duplicate(c) {
			a.applyFit(c, sizeCompact, a.room(c.bucket, true), true, nil)
		}
	}
	for _, c := range a.cands {
		if a.state[c.rank] == pending && !c.Spare {
			a.place(c, leftCapped)
		}
	}
	for _, x := range a.byRank() {
		if a.isChosen(x) {
			a.upgrade(x)
		}
	}
	for _, c := range a.cands {
		if a.state[c.rank] == pending {
			a.place(c, leftOver)
		}
	}
}

func (a *assembly) isChosen(x *piece) bool {
	for _, y := range a.chosen {
		if y == x {
			return true
		}
	}
	return false
}

func (a *assembly) byRank() []*piece {
	out := append([]*piece(nil), a.chosen...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].rank < out[j].rank })
	return out
}

// room is what an item of bucket b may spend: its bucket's rest, or in the shared phases all that is
// left.
func (a *assembly) room(b string, shared bool) int {
	if shared {
		return a.avail - a.total
	}
	return a.alloc[b] - a.spent[b]
}

// phase is a stage of placing: an item spends its bucket's share, or (shared) what the whole pack has
// left; capped holds the items of a bucket past its first topFull to the item cap.
type phase struct{ shared, capped bool }

var (
	inBucket   = phase{capped: true}               // each bucket within its share
	leftCapped = phase{shared: true, capped: true} // what the buckets left, items capped
	leftOver   = phase{shared: true}               // anything that still fits
)

// place puts c in the pack at the biggest size its phase's room holds.
func (a *assembly) place(c *cand, ph phase) {
	if a.duplicate(c) {
		a.state[c.rank] = duplicate
		return
	}
	if !a.besideShown(c) {
		return // placed, if at all, once what it stands beside is
	}
	room := a.room(c.bucket, ph.shared)
	if room <= 0 {
		return
	}
	limit := room
	if ph.capped && a.placed[c.bucket] >= topFull {
		limit = min(room, a.itemCap)
	}
	for _, size := range []string{sizeFull, sizeTruncated, sizeStandard, sizeCompact} {
		most := limit
		if size == sizeCompact {
			most = room
		}
		if a.applyFit(c, size, most, ph.shared, nil) {
			return
		}
	}
}

// upgrade gives a chosen item the biggest size the remaining budget allows.
func (a *assembly) upgrade(x *piece) {
	room := a.room(x.bucket, true)
	for _, size := range []string{sizeFull, sizeTruncated, sizeStandard} {
		if sizeLevel[size] < sizeLevel[x.level] || (size == x.level && size != sizeTruncated) {
			continue
		}
		if a.applyFit(x.c, size, room, true, x) {
			return
		}
	}
}

// duplicate reports whether c's lines are already in the pack: the same range, or inside lines shown.
func (a *assembly) duplicate(c *cand) bool {
	if c.StartLine == 0 {
		return false
	}
	for _, x := range a.chosen {
		if x.path != c.Path {
			continue
		}
		if x.start == c.StartLine && x.end == c.EndLine {
			return true
		}
		for _, r := range x.shown {
			if r[0] <= c.StartLine && c.EndLine <= r[1] {
				return true
			}
		}
	}
	return false
}

// applyFit applies fit's plan when there is one, and says whether there was.
func (a *assembly) applyFit(c *cand, size string, limit int, shared bool, self *piece) bool {
	pl := a.fit(c, size, limit, shared, self)
	if pl != nil {
		a.apply(pl)
	}
	return pl != nil
}

// fit plans c at one size within limit tokens (plus what the pieces it replaces give back), or nil.
// self is the chosen piece being upgraded, if any.
func (a *assembly) fit(c *cand, size string, limit int, shared bool, self *piece) *plan {
	if !available(c, size) {
		return nil
	}
	// Only pieces of the same file can be replaced and give tokens back.
	most := limit
	for _, x := range a.chosen {
		if x.path == c.Path {
			most += x.tokens
		}
	}
	if c.over(size, most) {
		return nil // too long to fit, known without counting
	}
	remove := self.asList()
	if a1, b1 := shownRange(c, size); a1 > 0 {
		inside, partial := a.conflicts(c.Path, a1, b1, self)
		switch {
		case len(partial) == 0:
			remove = append(remove, inside...)
		case len(partial) == 1 && size == sizeFull && mergeable(partial[0].c) && mergeable(c):
			m := merge(partial[0].c, c)
			if !shared && m.bucket != c.bucket {
				return nil // limit is c's bucket's room; the merge would spend another's
			}
			c = m
			inside2, partial2 := a.conflicts(c.Path, c.StartLine, c.EndLine, self, partial[0])
			if len(partial2) > 0 {
				return nil
			}
			remove = append(remove, partial[0])
			remove = append(remove, inside2...)
		default:
			return nil
		}
	}
	refund := 0
	for _, r := range remove {
		if shared || r.bucket == c.bucket {
			refund += r.tokens
		}
	}
	allowed := limit + refund
	if c.Cap > 0 && size != sizeCompact {
		allowed = min(allowed, c.Cap)
	}
	if allowed <= 0 {
		return nil
	}
	why := c.Why
	if self != nil {
		why = self.why // an upgrade keeps the reasons a merge gave it
	}
	if replaced := len(remove) - len(self.asList()); replaced > 0 {
		why = mergeWhy(c, remove)
	}
	if c.over(size, allowed) {
		return nil
	}
	var p *piece
	if size == sizeTruncated {
		minKeep := 0
		if self != nil && self.level == sizeTruncated {
			minKeep = self.keep + 1
		}
		p = a.cut(c, allowed, why, minKeep)
	} else {
		p = a.build(c, size, 0, why)
		if a.count(p) > allowed {
			p = nil
		}
	}
	if p == nil {
		return nil
	}
	cp := *p // the memoised piece stays as built
	p = &cp
	if self != nil && c == self.c {
		p.rank, p.kind, p.bucket = self.rank, self.kind, self.bucket
	}
	for _, r := range remove {
		p.rank = min(p.rank, r.rank)
		p.score = max(p.score, r.score)
		p.prob = max(p.prob, r.prob)
	}
	return &plan{p: p, remove: remove, upgrade: self != nil}
}

func (x *piece) asList() []*piece {
	if x == nil {
		return nil
	}
	return []*piece{x}
}

func (a *assembly) count(p *piece) int {
	if p.tokens < 0 {
		p.tokens = a.tok.Count(p.text)
	}
	return p.tokens
}

func (a *assembly) apply(pl *plan) {
	for _, r := range pl.remove {
		for i, x := range a.chosen {
			if x == r {
				a.chosen = append(a.chosen[:i], a.chosen[i+1:]...)
				break
			}
		}
		a.spent[r.bucket] -= r.tokens
		a.total -= r.tokens
		for _, k := range r.c.parts() {
			a.state[k] = absorbed
		}
	}
	p := pl.p
	a.chosen = append(a.chosen, p)
	a.spent[p.bucket] += p.tokens
	a.total += p.tokens
	if !pl.upgrade {
		a.placed[p.bucket]++
	}
	for _, k := range p.c.parts() {
		a.state[k] = chosen
	}
}

// conflicts are the chosen pieces of path whose lines the range a..b would contain, and those whose
// shown lines it would only partly overlap. Cards (no shown lines) only conflict when contained.
func (a *assembly) conflicts(path string, from, to int, skip ...*piece) (inside, partial []*piece) {
next:
	for _, x := range a.chosen {
		if x.path != path || x.start == 0 {
			continue
		}
		for _, s := range skip {
			if x == s {
				continue next
			}
		}
		switch {
		case from <= x.start && x.end <= to:
			inside = append(inside, x)
		case x.shownA > 0 && x.shownA <= to && from <= x.shownB:
			partial = append(partial, x)
		}
	}
	return inside, partial
}

func available(c *cand, size string) bool {
	switch size {
	case sizeFull:
		return len(c.full) > 0
	case sizeTruncated:
		return len(c.full) > c.sig+minBodyLines
	case sizeStandard:
		return c.Standard != "" && !c.BodyOnly
	case sizeCompact:
		return c.Compact != "" && !c.BodyOnly
	}
	return false
}

// shownRange is the file lines a size shows verbatim, or 0, 0 for a card. A cut is judged by its
// widest extent.
func shownRange(c *cand, size string) (int, int) {
	if c.StartLine == 0 || (size != sizeFull && size != sizeTruncated) {
		return 0, 0
	}
	return c.StartLine, c.StartLine + len(c.full) - 1
}

// mergeable: the body is complete and matches the line range, so lines can be lined up.
func mergeable(c *cand) bool {
	return c.StartLine > 0 && c.more == 0 && len(c.full) == c.EndLine-c.StartLine+1
}

// merge joins two overlapping bodies of one file into one, under the better-ranked one's name.
func merge(x, y *cand) *cand {
	hi, lo := x, y
	if lo.rank < hi.rank {
		hi, lo = lo, hi
	}
	m := &cand{Candidate: hi.Candidate, rank: hi.rank, bucket: hi.bucket, memo: map[string]*piece{}}
	m.StartLine = min(x.StartLine, y.StartLine)
	m.EndLine = max(x.EndLine, y.EndLine)
	m.Score = max(x.Score, y.Score)
	m.Before, m.After = y.Before, y.After // the lines around the merged range: its outer pieces'
	if x.StartLine < y.StartLine {
		m.Before = x.Before
	}
	if x.EndLine > y.EndLine {
		m.After = x.After
	}
	m.Spare = x.Spare && y.Spare
	lines := make([]string, m.EndLine-m.StartLine+1)
	for _, c := range []*cand{lo, hi} { // the better-ranked text wins where both have a line
		copy(lines[c.StartLine-m.StartLine:], c.full)
	}
	m.full = lines
	m.Full = strings.Join(lines, "\n")
	if hi.StartLine == m.StartLine {
		m.sig = hi.sig
	} else {
		m.sig = lo.sig
	}
	m.Why = unionWhy(hi.Why, lo.Why)
	m.merged = append(append([]int{}, hi.parts()...), lo.parts()...)
	return m
}

func mergeWhy(c *cand, removed []*piece) []string {
	all := []*piece{}
	for _, r := range removed {
		if r.c != c {
			all = append(all, r)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank < all[j].rank })
	why := c.Why
	for _, r := range all {
		if r.rank < c.rank {
			why = unionWhy(r.why, why)
		} else {
			why = unionWhy(why, r.why)
		}
	}
	return why
}

func unionWhy(first, second []string) []string {
	out := append([]string{}, first...)
	for _, w := range second {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return capWhy(out)
}

// build renders c at a size; keep is the number of body lines a cut keeps.
func (a *assembly) build(c *cand, size string, keep int, why []string) *piece {
	key := ""
	if sameWhy(why, c.Why) {
		key = size + ":" + strconv.Itoa(keep)
		if p, ok := c.memo[key]; ok {
			return p
		}
	}
	p := &piece{
		c: c, rank: c.rank, bucket: c.bucket, kind: c.Kind, path: c.Path, symbol: c.Symbol,
		lang: fenceLang(c.Language), start: c.StartLine, end: c.EndLine, size: size, level: size,
		why: why, score: c.Score, prob: c.Probability, tokens: -1,
	}
	switch size {
	case sizeFull:
		p.code = c.Full
		if c.more > 0 {
			p.code += "\n" + moreLines(c.more)
			p.size = sizeTruncated
		}
		p.shownA, p.shownB = shownRange(c, size)
		if p.shownA > 0 {
			p.shown = []Lines{{p.shownA, p.shownB}}
			if c.more == 0 && p.shownA == c.StartLine && p.shownB == c.EndLine {
				p.body = p.code
				p.before, p.after = min(len(c.Before), AroundLines), min(len(c.After), AroundLines)
				p.code = p.around(p.before, p.after)
				p.shown[0] = Lines{p.shownA - p.before, p.shownB + p.after}
			}
		}
	case sizeTruncated:
		p.keep = keep
		if c.order != nil && keep > 0 {
			p.code, p.shown = cutAround(c, keep)
			p.shownA, p.shownB = p.shown[0][0], p.shown[len(p.shown)-1][1]
			break
		}
		p.code = strings.Join(c.full[:keep], "\n")
		if keep > 0 {
			p.code += "\n"
		}
		p.code += moreLines(len(c.full) - keep + c.more)
		if c.StartLine > 0 && keep > 0 {
			p.shownA, p.shownB = c.StartLine, c.StartLine+keep-1
			p.shown = []Lines{{p.shownA, p.shownB}}
		}
	case sizeStandard:
		p.code = c.Standard
	default:
		p.code = c.Compact
	}
	p.text = renderItem(a.format, p)
	if key != "" {
		c.memo[key] = p
	}
	return p
}

func moreLines(n int) string {
	if n == 1 {
		return "... (1 more line)"
	}
	return "... (" + strconv.Itoa(n) + " more lines)"
}

// over reports whether c at a size surely takes more than limit tokens, known without counting.
func (c *cand) over(size string, limit int) bool {
	f := c.floor[size]
	if f.n > limit || f.exact {
		return f.n > limit
	}
	var parts []string
	switch size {
	case sizeFull:
		parts = []string{c.Full}
	case sizeTruncated:
		parts = c.full[:c.sig+minBodyLines]
	case sizeStandard:
		parts = []string{c.Standard}
	default:
		parts = []string{c.Compact}
	}
	n, size0 := 0, 0
	for _, p := range parts {
		size0 += len(p)
	}
	if size0 <= limit {
		return false // the bound never exceeds the bytes
	}
	for _, p := range parts {
		n += minTokens(p, limit-n)
	}
	if c.floor == nil {
		c.floor = map[string]floor{}
	}
	c.floor[size] = floor{n: n, exact: n <= limit}
	return n > limit
}

// floor is a lower bound on a size's tokens; exact when the count ran to the end.
type floor struct {
	n     int
	exact bool
}

func sameWhy(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func fenceLang(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("+#-_.", r) {
			return r
		}
		return -1
	}, s)
}

// AroundLines is the most lines a whole body shows above and below its range (Candidate.Before and
// After).
const AroundLines = 2

// around is a whole body's code with the last before lines of Before above it and the first after
// lines of After below it.
func (x *piece) around(before, after int) string {
	lines := slices.Clone(x.c.Before[len(x.c.Before)-before:])
	lines = append(lines, x.body)
	return strings.Join(append(lines, x.c.After[:after]...), "\n")
}

// besideShown says whether what c stands beside is in the pack, as a body or a card, or need not be:
// in a small pack that spends its budget on code (on the dev set at 2,000 tokens, line recall 0.297
// to 0.306; at 4,000 it cost 0.010, so a larger pack does not wait).
func (a *assembly) besideShown(c *cand) bool {
	if c.Beside == 0 || !a.bodiesFirst || a.p.Budget >= SmallBudget {
		return true
	}
	for _, x := range a.chosen {
		if x.path == c.Path && x.start <= c.Beside && c.Beside <= x.end {
			return true
		}
	}
	return false
}
