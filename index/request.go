package index

import (
	"fmt"
	"slices"
	"strings"

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
)

// Resolved is a request with every unset field filled from a configuration, then from the defaults,
// and every field checked. Only Normalize makes one, and it is the only request Index.Context
// answers: defaults are decided in one place, once, by the front end that knows the settings.
type Resolved struct{ req Request }

// Request is the request as resolved: every default filled in.
func (r Resolved) Request() Request { return r.req }

// Normalize resolves a request against cfg (the workspace's configuration, with the editor's settings
// over it): unset fields take cfg's values, then the defaults, and every field is checked; the error
// wraps ErrInvalid.
func (r Request) Normalize(cfg Config) (Resolved, error) {
	if strings.TrimSpace(r.Text) == "" {
		return Resolved{}, invalidf("the text is empty: give an issue, a bug report or a comment")
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
