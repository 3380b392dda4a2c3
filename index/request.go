package index

import (
	"cmp"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/config"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/query"
)

// Request asks for a context pack, as a user gives it to any front end: the command line's flags, the
// language server's ctxmap.context arguments, MCP's get_context input and the query socket's request
// are this type, decoded as it is. Validate checks it where a front end takes it; Resolve settles it
// where it is answered (Answer).
type Request struct {
	Text      string   `json:"text" jsonschema:"the issue, bug report, stack trace or code comment to find the code for"`
	Budget    int      `json:"budget,omitempty" jsonschema:"token budget of the pack (default 8000, or the workspace's; at least 100)"`
	Format    string   `json:"format,omitempty" jsonschema:"markdown (default), xml or json"`
	Intent    string   `json:"intent,omitempty" jsonschema:"override the detected intent"`
	Tokenizer string   `json:"tokenizer,omitempty" jsonschema:"the tokenizer that counts the budget: o200k_base (default) or cl100k_base"`
	Ranker    string   `json:"ranker,omitempty" jsonschema:"learned (default) or fusion"`
	Fill      bool     `json:"fill,omitempty" jsonschema:"fill the budget in the fused ranking's order (default false: the likeliest code of the likeliest files)"`
	Tight     bool     `json:"tight,omitempty" jsonschema:"a short pack that stops with the evidence, at most five files (default false: the budget is spent on likely code)"`
	Without   []string `json:"without,omitempty" jsonschema:"signals to switch off, for experiments"`
	// Model replaces the learned ranker's shipped model (the benchmark's); no front end takes one
	Model *Model `json:"-"`
}

// RequestChoices are the values a request's fields take, by their JSON names: what a schema lists
// and what Validate accepts.
var RequestChoices = map[string][]string{
	"format":    {"markdown", "xml", "json"},
	"intent":    query.IntentNames(),
	"tokenizer": {pack.DefaultTokenizer, "cl100k_base"},
	"ranker":    {RankerLearned, RankerFusion},
	"without":   Signals,
}

// RequestFields are the JSON names of Request's fields, text first: what every front end takes.
func RequestFields() []string {
	var names []string
	t := reflect.TypeFor[Request]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// The defaults and bounds of requests, whatever front end they come from.
const (
	DefaultBudget  = pack.DefaultBudget // tokens of a pack when neither the request nor the configuration says
	MinBudget      = pack.MinBudget     // the smallest pack that holds anything
	MaxBudget      = 1_000_000          // the largest: more than any model reads at once
	DefaultExplore = 20                 // chunks Explore lists
	DefaultTop     = 40                 // entities TopEntities lists
	MaxListed      = 1000               // the most any list request may ask for
	MaxSymbols     = 100                // definitions FindSymbols returns at most
	// MaxText is the longest text a request reads, in bytes: an issue with its logs fits many times
	// over; a longer one is cut to it (the front ends say so), as reading it all costs seconds and
	// hundreds of megabytes for nothing a pack could show
	MaxText = 256 << 10
)

// CutText is text cut to MaxText bytes at a character's boundary; cut says whether it was.
func CutText(text string) (_ string, cut bool) {
	if len(text) <= MaxText {
		return text, false
	}
	end := MaxText
	for end > MaxText-utf8.UTFMax && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[:end], true
}

// Quote is s quoted for an error, at most its first 200 bytes, with its length when cut.
func Quote(s string) string { return config.Quote(s) }

// checkText says what is wrong with a request's text, nil when nothing is: it is empty, or it is not
// text (a NUL byte, or mostly bytes that are not UTF-8: a binary file given by mistake). The error
// wraps ErrInvalid.
func checkText(text string) error {
	if strings.TrimSpace(text) == "" {
		return invalidf("the text is empty: give an issue, a bug report or a comment")
	}
	if strings.IndexByte(text, 0) >= 0 {
		return invalidf("the text is binary (it holds NUL bytes): give an issue, a bug report or a comment")
	}
	bad := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 {
			bad++
		}
		i += n
	}
	if 2*bad > len(text) {
		return invalidf("the text is binary (%d of its %d bytes are not UTF-8): give an issue, a bug report or a comment", bad, len(text))
	}
	return nil
}

// Resolved is a request settled where it enters the engine: every unset field filled from the
// workspace's configuration, then from the defaults, every field checked and parsed (the intent named
// as the query knows it, the signals switched off as a set). Only Request.Resolve makes one, and it
// is the only request Index.Context answers, which parses nothing again.
type Resolved struct {
	text      string
	budget    int
	format    string // markdown, xml or json
	tokenizer string // o200k_base or cl100k_base
	intent    string // a query intent's name; "": the one the text says
	without   map[string]bool
	ranker    string // learned or fusion
	fill      bool
	tight     bool
	model     *Model
}

// Validate checks a request as a front end takes it, with no configuration: its text (checkText, on
// the text cut to MaxText), and each field it sets (a budget of at least MinBudget, a format,
// tokenizer, ranker, intent and signals among RequestChoices, the intent by any name ParseIntent
// knows). The error wraps ErrInvalid. The answer resolves the request again with the configuration of
// where it is answered (Resolve), so a front end need not.
func (r Request) Validate() error {
	text, _ := CutText(r.Text)
	if err := checkText(text); err != nil {
		return err
	}
	if err := checkSettled(r.Budget, r.Format, r.Tokenizer, r.Ranker, r.Budget != 0); err != nil {
		return err
	}
	for _, w := range r.Without {
		if !slices.Contains(Signals, w) {
			return invalidf("unknown signal %q (known: %s)", w, strings.Join(Signals, ", "))
		}
	}
	if r.Intent != "" {
		if _, err := query.ParseIntent(r.Intent); err != nil {
			return invalidf("%v", err)
		}
	}
	return nil
}

// checkSettled checks the fields a request may leave to the configuration, each when it is set
// ("" is unset; the budget when budgetSet).
func checkSettled(budget int, format, tokenizer, ranker string, budgetSet bool) error {
	if budgetSet && budget < MinBudget {
		return invalidf("budget %d is below the minimum of %d tokens", budget, MinBudget)
	}
	if budget > MaxBudget {
		return invalidf("budget %d is above the maximum of %s tokens", budget, Thousands(MaxBudget))
	}
	if format != "" && !slices.Contains(RequestChoices["format"], format) {
		return invalidf("format %q is not one of %s", format, strings.Join(RequestChoices["format"], ", "))
	}
	if err := pack.CheckTokenizer(tokenizer); err != nil {
		return invalidf("%v", err)
	}
	if err := config.CheckRanker(ranker); err != nil {
		return invalidf("%v", err)
	}
	return nil
}

// Resolve settles a request against cfg (the workspace's configuration, with the editor's settings
// over it): the request checked (Validate), its unset fields filled with cfg's values, then the
// defaults, the text cut to MaxText, what came from cfg checked too; the error wraps ErrInvalid.
// Answer is its one caller outside tests.
func (r Request) Resolve(cfg Config) (Resolved, error) {
	if err := r.Validate(); err != nil {
		return Resolved{}, err
	}
	text, _ := CutText(r.Text)
	res := Resolved{text: trimBlank(text), budget: cmp.Or(r.Budget, cfg.Budget, DefaultBudget),
		format: cmp.Or(r.Format, cfg.Format, "markdown"), tokenizer: cmp.Or(r.Tokenizer, cfg.Tokenizer, pack.DefaultTokenizer),
		ranker: cmp.Or(r.Ranker, cfg.Ranker, RankerLearned), fill: r.Fill || cfg.Fill, tight: r.Tight || cfg.Tight, model: r.Model}
	if err := checkSettled(res.budget, res.format, res.tokenizer, res.ranker, true); err != nil {
		return Resolved{}, err
	}
	for _, w := range r.Without {
		if res.without == nil {
			res.without = map[string]bool{}
		}
		res.without[w] = true
	}
	if r.Intent != "" {
		res.intent, _ = query.ParseIntent(r.Intent)
	}
	return res, nil
}

// trimBlank is text without the blank lines and spaces around it, which say nothing and would make
// a piped text's pack differ from the same words given as arguments; the first line keeps its indent.
func trimBlank(text string) string {
	text = strings.TrimRightFunc(text, unicode.IsSpace)
	if i := strings.LastIndexByte(text[:len(text)-len(strings.TrimLeftFunc(text, unicode.IsSpace))], '\n'); i >= 0 {
		text = text[i+1:]
	}
	return text
}

// stated is the request as a pack states it.
func (r Resolved) stated() pack.Request {
	return pack.Request{Budget: r.budget, Format: r.format, Tokenizer: r.tokenizer, Intent: r.intent,
		Ranker: r.ranker, Fill: r.fill, Tight: r.tight, Without: slices.Sorted(maps.Keys(r.without))}
}

// CheckLimit checks a list request's size: 0 means the default, else 1 to MaxListed.
func CheckLimit(name string, n int) error {
	if n < 0 || n > MaxListed {
		return invalidf("%s must be between 1 and %d", name, MaxListed)
	}
	return nil
}
