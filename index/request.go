package index

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/query"
)

// The defaults and bounds of requests, whatever front end they come from.
const (
	DefaultBudget  = pack.DefaultBudget // tokens of a pack when neither the request nor the configuration says
	MinBudget      = pack.MinBudget     // the smallest pack that holds anything
	DefaultExplore = 20                 // chunks Explore lists
	DefaultTop     = 40                 // entities TopEntities lists
	maxListed      = 1000               // the most any list request may ask for
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

// Resolve settles a request against cfg (the workspace's configuration, with the editor's settings
// over it): unset fields take cfg's values, then the defaults, the text is cut to MaxText, and every
// field is checked (checkText for the text); the error wraps ErrInvalid.
func (r Request) Resolve(cfg Config) (Resolved, error) {
	text, _ := CutText(r.Text)
	if err := checkText(text); err != nil {
		return Resolved{}, err
	}
	res := Resolved{text: text, budget: cmp.Or(r.Budget, cfg.Budget, DefaultBudget),
		format: cmp.Or(r.Format, cfg.Format, "markdown"), tokenizer: cmp.Or(r.Tokenizer, cfg.Tokenizer, pack.DefaultTokenizer),
		ranker: cmp.Or(r.Ranker, cfg.Ranker, RankerLearned), fill: r.Fill || cfg.Fill, tight: r.Tight || cfg.Tight, model: r.Model}
	if res.budget < MinBudget {
		return Resolved{}, invalidf("budget %d is below the minimum of %d tokens", res.budget, MinBudget)
	}
	switch res.format {
	case "markdown", "xml", "json":
	default:
		return Resolved{}, invalidf("format %q is not one of markdown, xml, json", res.format)
	}
	if err := pack.CheckTokenizer(res.tokenizer); err != nil {
		return Resolved{}, invalidf("%v", err)
	}
	if err := checkRanker(res.ranker); err != nil {
		return Resolved{}, invalidf("%v", err)
	}
	for _, w := range r.Without {
		if !slices.Contains(Signals, w) {
			return Resolved{}, invalidf("unknown signal %q (known: %s)", w, strings.Join(Signals, ", "))
		}
		if res.without == nil {
			res.without = map[string]bool{}
		}
		res.without[w] = true
	}
	if r.Intent != "" {
		name, err := query.ParseIntent(r.Intent)
		if err != nil {
			return Resolved{}, invalidf("%v", err)
		}
		res.intent = name
	}
	return res, nil
}

// stated is the request as a pack states it.
func (r Resolved) stated() pack.Request {
	return pack.Request{Budget: r.budget, Format: r.format, Tokenizer: r.tokenizer, Intent: r.intent,
		Ranker: r.ranker, Fill: r.fill, Tight: r.tight, Without: slices.Sorted(maps.Keys(r.without))}
}

// CheckLimit checks a list request's size: 0 means the default, else 1 to maxListed.
func CheckLimit(name string, n int) error {
	if n < 0 || n > maxListed {
		return invalidf("%s must be between 1 and %d", name, maxListed)
	}
	return nil
}

func checkRanker(name string) error {
	switch name {
	case "", RankerLearned, RankerFusion:
		return nil
	}
	return fmt.Errorf("ranker %q is not one of learned, fusion", name)
}
