// Package pack fits ranked candidates into a token budget and renders the context pack: the code an LLM
// needs for an issue, each piece with the reasons it is there.
package pack

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Candidate is a piece of code the ranking offers the pack, at up to three sizes, best first: the
// pack places candidates in their order, each at the largest size its bucket can still afford.
type Candidate struct {
	Kind      string   // "definition", "snippet", "file", "test", "caller", "import", "outline"
	Bucket    string   // "definitions", "snippets", "imports", "tests", "callers", "outlines"; "" derives it from Kind
	Path      string   // workspace-relative, slash-separated
	Symbol    string   // qualified name when the candidate is a definition ("Repo.Name"), else ""
	Language  string   // for the code fence
	StartLine int      // 1-based; 0 when unknown
	EndLine   int      // inclusive
	Score     float64  // informational: the order of the slice is the rank
	Why       []string // reasons, most important first
	Compact   string   // signature + doc
	Standard  string   // + members; "" when it would equal Compact
	Full      string   // the code lines StartLine..EndLine (possibly capped); "" when not available
	Spare     bool     // placed only with what the budget has left once every other candidate had its turn
	// Probability that the fix changes this piece of code, when a learned ranker gave one (0: none).
	Probability float64
	// Cap is the most tokens the item may take at any size but its card, 0 for no cap: a less likely
	// item is worth fewer tokens.
	Cap int
	// BodyOnly: the item is shown as code or not at all; its card would say less than its room.
	BodyOnly bool
	// Beside is a line of the definition this one is shown beside (its file's best; 0: none). In a
	// small pack that spends its budget on code it waits for it: alone it is a fragment that stands
	// next to nothing the pack shows.
	Beside int
	// Before and After are the source lines right above StartLine and below EndLine (at most
	// AroundLines each), shown around a whole body: where a sibling the fix adds would go, which a
	// diff of it touches.
	Before, After []string
	// Focus are the file's lines inside the body that the evidence lands on, best first: a cut keeps
	// them, each with the lines around it and the headers of the blocks that hold it, and elides the
	// rest; without them a cut keeps the body's first lines.
	Focus []int
}

// Intent is what the request asks for (bug fix, implementation, ...) and how sure the analysis is.
type Intent struct {
	Name       string  `json:"name"`
	Confidence float64 `json:"confidence"`
}

// Entity is a business term of the workspace as a pack names it: where it lives and what relates to it.
type Entity struct {
	Name       string   `json:"name"`
	Importance float64  `json:"importance"`
	Files      []string `json:"files"`
	Related    []string `json:"related"`
}

// Options shape a pack: its budget, how tokens are counted, how the budget is shared between buckets,
// the format it is rendered in.
type Options struct {
	Budget    int                // tokens for the whole rendered text; 0 means 8000; below 100 is an error
	Tokenizer *Tokenizer         // nil means the default encoding
	Shares    map[string]float64 // bucket -> fraction of the budget; nil means a balanced default
	Format    string             // "markdown" (default), "xml", "json"
	Partial   *Partial           // the pack is made from part of the workspace (said in its header)
	SetAside  string             // what the text's analysis set aside ("2 template answers ignored"), said in the header
	// BodiesFirst: what the buckets leave goes to more code before a card for each definition that
	// did not fit (a pack that spends its budget on code); else the cards come first
	BodiesFirst bool
}

// SmallBudget is the budget below which a pack that spends its budget on code (BodiesFirst) keeps no
// room aside: outlines, and the ranking's test and caller beside the code, take what the code leaves.
const SmallBudget = 4000

// Partial says a pack was made from some of the workspace's files, while its index is being built.
type Partial struct {
	Files int     `json:"files"` // the files the pack was made from
	Total int     `json:"total"` // the workspace's files
	Built float64 `json:"built"` // the share of the full index built when the pack was made, 0 to 1
}

// Item is a candidate placed in the pack: where it is, the size it got, its tokens and why it is there.
type Item struct {
	Kind      string   `json:"kind"`
	Path      string   `json:"path"`
	Symbol    string   `json:"symbol,omitempty"`
	StartLine int      `json:"startLine"`
	EndLine   int      `json:"endLine"`
	Tokens    int      `json:"tokens"`
	Score     float64  `json:"-"`    // the ranking's, for the tests: the JSON's order is the rank, probability the measure
	Size      string   `json:"size"` // compact, standard, truncated, full
	Why       []string `json:"why"`
	// Probability that the fix changes this code, from the learned ranker; absent otherwise.
	Probability float64 `json:"probability,omitempty"`
	// Code is what the rendering shows of the item, between its fences.
	Code string `json:"code"`
	// Shown are the file's line ranges the code shows verbatim, first and last inclusive; none for a
	// card or an outline, several for a body cut around its evidence.
	Shown []Lines `json:"shown,omitempty"`
}

// Request is the request a pack answers, every field settled: what a reader needs to ask for the
// same pack again.
type Request struct {
	Budget    int      `json:"-"`                // the pack's, which its JSON says once (Pack.Budget)
	Format    string   `json:"format"`           // markdown, xml or json
	Tokenizer string   `json:"-"`                // the pack's (Pack.Tokenizer)
	Intent    string   `json:"intent,omitempty"` // the intent asked for; "": the one the text says
	Ranker    string   `json:"ranker"`
	Fill      bool     `json:"fill,omitempty"`
	Tight     bool     `json:"tight,omitempty"`
	Without   []string `json:"without,omitempty"` // the signals switched off
}

// Lines is a range of a file's lines, first and last inclusive, 1-based.
type Lines [2]int

// Pack is the answer to a request: the items that fit the budget, in rank order, and their rendering.
// It marshals as the JSON format of a pack.
type Pack struct {
	Query     string         `json:"query"`
	Request   Request        `json:"request,omitzero"` // as resolved: what was asked, the configuration, the defaults
	Intent    Intent         `json:"intent"`
	Budget    int            `json:"budget"`
	Tokens    int            `json:"tokens"` // tokens of Text: never more than Budget
	Tokenizer string         `json:"tokenizer"`
	Entities  []Entity       `json:"entities"`
	Sections  map[string]int `json:"sections"` // tokens spent per bucket that holds any
	Items     []Item         `json:"items"`    // in rank order
	// the rendering, markdown when the format is "json"; a JSON pack carries it only where it is asked
	// for (the language server's, which the editors show), as its items hold the same code
	Text     string   `json:"text,omitempty"`
	Partial  *Partial `json:"partial,omitempty"`
	SetAside string   `json:"setAside,omitempty"` // the parts of the text ranking did not read
}

// The budgets of a pack, in tokens: the one used when none is given, and the smallest that holds anything.
const (
	DefaultBudget = 8000
	MinBudget     = 100
)

// buckets in the order their sections are rendered.
var buckets = []string{"definitions", "snippets", "imports", "tests", "callers", "outlines"}

// defaultShares is the profile used when Options.Shares is nil.
var defaultShares = map[string]float64{
	"definitions": 0.35, "snippets": 0.3, "imports": 0.1, "tests": 0.1, "callers": 0.15,
}

var bucketOfKind = map[string]string{
	"definition": "definitions",
	"snippet":    "snippets",
	"file":       "snippets",
	"test":       "tests",
	"caller":     "callers",
	"import":     "imports",
	"outline":    "outlines",
}

func knownBucket(b string) bool {
	for _, k := range buckets {
		if k == b {
			return true
		}
	}
	return false
}

// Assemble fits cands, given in rank order, into the budget and renders the pack. Errors are for bad
// options only; a candidate with nothing to show is left out, and one with an odd line range is
// shown without it, so a ranking mistake costs one item, not the pack.
func Assemble(query string, intent Intent, entities []Entity, cands []Candidate, opts Options) (p *Pack, err error) {
	defer func() {
		if r := recover(); r != nil { // a bug here must not take the server down with it
			p, err = nil, fmt.Errorf("assemble the pack: internal error: %v", r)
		}
	}()
	opts, err = checkOptions(opts)
	if err != nil {
		return nil, err
	}
	intent.Confidence = finite(intent.Confidence)
	ents := make([]Entity, len(entities))
	for i, e := range entities {
		e.Importance = finite(e.Importance)
		ents[i] = e
	}
	prepared := make([]*cand, 0, len(cands))
	for i, c := range cands {
		if pc := prepare(i, c); pc != nil {
			prepared = append(prepared, pc)
		}
	}
	p = &Pack{
		Query:     query,
		Intent:    intent,
		Budget:    opts.Budget,
		Tokenizer: opts.Tokenizer.Name(),
		Entities:  ents,
		Partial:   opts.Partial,
		SetAside:  opts.SetAside,
	}
	a := newAssembly(p, prepared, opts)
	a.run()
	a.finish()
	return p, nil
}

func checkOptions(o Options) (Options, error) {
	switch {
	case o.Budget == 0:
		o.Budget = DefaultBudget
	case o.Budget < MinBudget:
		return o, fmt.Errorf("budget %d is below the minimum of %d tokens", o.Budget, MinBudget)
	}
	switch o.Format {
	case "":
		o.Format = "markdown"
	case "markdown", "xml", "json":
	default:
		return o, fmt.Errorf("format %q is not one of markdown, xml, json", o.Format)
	}
	if o.Tokenizer == nil {
		t, err := NewTokenizer("")
		if err != nil {
			return o, err
		}
		o.Tokenizer = t
	} else if !o.Tokenizer.ready() {
		return o, fmt.Errorf("tokenizer not initialised: make it with NewTokenizer")
	}
	if o.Shares == nil {
		o.Shares = defaultShares
	}
	sum := 0.0
	for _, b := range slices.Sorted(maps.Keys(o.Shares)) { // sorted: the same error every time
		s := o.Shares[b]
		if !knownBucket(b) {
			return o, fmt.Errorf("share for unknown bucket %q (known: %s)", b, strings.Join(buckets, ", "))
		}
		if math.IsNaN(s) || s < 0 || s > 1 {
			return o, fmt.Errorf("share %v for bucket %s is not between 0 and 1", s, b)
		}
		sum += s
	}
	if sum > 1+1e-6 {
		return o, fmt.Errorf("shares add up to %.3f, more than the whole budget", sum)
	}
	return o, nil
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// cand is a candidate ready to be sized: texts normalised, lines split, bucket known.
type cand struct {
	Candidate
	rank   int
	bucket string
	full   []string // lines of Full
	more   int      // lines of the range that Full leaves out (a capped body)
	sig    int      // leading lines of Full that hold the signature
	order  []int    // the body's lines (indexes of full) in the order a cut keeps them; nil: from the top
	merged []int    // the ranks of the candidates a merged body came from
	memo   map[string]*piece
	floor  map[string]floor // lower bounds of tokens per size
}

// parts are the ranks of the candidates c stands for.
func (c *cand) parts() []int {
	if c.merged != nil {
		return c.merged
	}
	return []int{c.rank}
}

func prepare(rank int, c Candidate) *cand {
	// the path as on disk, a line break in it too: JSON carries it exactly, Markdown quotes it
	c.Symbol = oneLine(c.Symbol)
	c.Kind = oneLine(c.Kind)
	c.Language = strings.ToLower(strings.TrimSpace(c.Language))
	c.Score = finite(c.Score)
	c.Probability = finite(c.Probability)
	c.Cap = max(c.Cap, 0)
	c.Compact = cleanCode(c.Compact)
	c.Standard = cleanCode(c.Standard)
	c.Full = cleanCode(c.Full)
	if c.Standard == c.Compact {
		c.Standard = ""
	}
	if c.Path == "" || (c.Compact == "" && c.Standard == "" && c.Full == "") {
		return nil
	}
	if c.StartLine < 0 || c.EndLine < 0 {
		c.StartLine, c.EndLine = 0, 0
	}
	if c.EndLine < c.StartLine {
		c.EndLine = c.StartLine
	}
	if c.Kind == "" {
		c.Kind = "snippet"
	}
	pc := &cand{Candidate: c, rank: rank, memo: map[string]*piece{}}
	pc.bucket = c.Bucket
	if !knownBucket(pc.bucket) {
		pc.bucket = bucketOfKind[c.Kind]
	}
	if pc.bucket == "" {
		pc.bucket = "snippets"
	}
	var why []string
	for _, w := range c.Why {
		if w = oneLine(w); w != "" && !slices.Contains(why, w) {
			why = append(why, w)
		}
	}
	if len(why) == 0 {
		why = []string{fmt.Sprintf("rank %d", rank+1)}
	}
	pc.Why = capWhy(why)
	if c.Full != "" {
		pc.full = strings.Split(c.Full, "\n")
		if c.StartLine > 0 {
			if span := c.EndLine - c.StartLine + 1; span > len(pc.full) {
				pc.more = span - len(pc.full)
			}
		}
		pc.sig = signatureLines(pc.full, c.Compact)
		pc.order = cutOrder(pc.full, pc.sig, c.StartLine, c.Focus)
		if pc.Compact == "" { // a card is always possible: the body's opening lines
			pc.Compact = strings.Join(pc.full[:pc.sig], "\n")
		}
	}
	return pc
}

const maxWhy = 5

func capWhy(why []string) []string {
	if len(why) > maxWhy {
		why = why[:maxWhy]
	}
	return why
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.Join(strings.Fields(s), " ")
	}
	return s
}

// cleanCode unifies line ends and drops trailing blank lines, so sizes compare and render alike.
func cleanCode(s string) string {
	if strings.Contains(s, "\r") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	s = strings.TrimRight(s, " \t\n")
	for strings.HasPrefix(s, "\n") {
		s = s[1:]
	}
	return s
}

// signatureLines is how many leading lines of the body a cut must keep to still carry the signature:
// through the last line the compact card shares with the body, or as many lines as the card has.
func signatureLines(full []string, compact string) int {
	card := strings.Split(compact, "\n")
	want := len(card)
	last := 0
	j := 0
	for _, cl := range card {
		cl = strings.TrimSpace(cl)
		if cl == "" {
			continue
		}
		for k := j; k < len(full) && k < j+len(card)+8; k++ {
			fl := strings.TrimSpace(full[k])
			if fl != "" && (strings.HasPrefix(fl, cl) || strings.HasPrefix(cl, fl)) {
				last, j = k+1, k+1
				break
			}
		}
	}
	if last > 0 {
		want = last
	}
	if want > len(full) {
		want = len(full)
	}
	if want < 1 {
		want = 1
	}
	return want
}
