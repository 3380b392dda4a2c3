package index

import (
	"fmt"
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

// CheckText says what is wrong with a request's text, nil when nothing is: it is empty, or it is not
// text (a NUL byte, or mostly bytes that are not UTF-8: a binary file given by mistake). The error
// wraps ErrInvalid.
func CheckText(text string) error {
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

// Resolved is a request with every unset field filled from a configuration, then from the defaults,
// and every field checked. Only Normalize makes one, and it is the only request Index.Context
// answers: defaults are decided in one place, once, by the front end that knows the settings.
type Resolved struct{ req Request }

// Request is the request as resolved: every default filled in.
func (r Resolved) Request() Request { return r.req }

// Normalize resolves a request against cfg (the workspace's configuration, with the editor's settings
// over it): unset fields take cfg's values, then the defaults, the text is cut to MaxText, and every
// field is checked (CheckText for the text); the error wraps ErrInvalid.
func (r Request) Normalize(cfg Config) (Resolved, error) {
	r.Text, _ = CutText(r.Text)
	if err := CheckText(r.Text); err != nil {
		return Resolved{}, err
	}
	if r.Budget == 0 {
		r.Budget = cfg.Budget
	}
	if r.Budget == 0 {
		r.Budget = DefaultBudget
	}
	if r.Budget < MinBudget {
		return Resolved{}, invalidf("budget %d is below the minimum of %d tokens", r.Budget, MinBudget)
	}
	if r.Format == "" {
		r.Format = cfg.Format
	}
	switch r.Format {
	case "", "markdown", "xml", "json":
	default:
		return Resolved{}, invalidf("format %q is not one of markdown, xml, json", r.Format)
	}
	if r.Tokenizer == "" {
		r.Tokenizer = cfg.Tokenizer
	}
	if err := pack.CheckTokenizer(r.Tokenizer); err != nil {
		return Resolved{}, invalidf("%v", err)
	}
	if r.Ranker == "" {
		r.Ranker = cfg.Ranker
	}
	if err := checkRanker(r.Ranker); err != nil {
		return Resolved{}, invalidf("%v", err)
	}
	r.Fill = r.Fill || cfg.Fill
	for _, w := range r.Without {
		if !slices.Contains(Signals, w) {
			return Resolved{}, invalidf("unknown signal %q (known: %s)", w, strings.Join(Signals, ", "))
		}
	}
	if r.Intent != "" {
		if _, err := query.ParseIntent(r.Intent); err != nil {
			return Resolved{}, invalidf("%v", err)
		}
	}
	return Resolved{req: r}, nil
}

// CheckLimit checks a list request's size: 0 means the default, else 1 to MaxListed.
func CheckLimit(name string, n int) error {
	if n < 0 || n > MaxListed {
		return invalidf("%s must be between 1 and %d", name, MaxListed)
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
