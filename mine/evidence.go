package mine

import (
	"regexp"
	"strings"

	"github.com/ctxmap/ctxmap/internal/query"
)

// Evidence is what an issue text carries that points at a place, as counted on the dev set and on
// the synthetic texts mined for training, so the two can be compared.
type Evidence struct {
	Trace       bool `json:"trace"`        // a stack trace ctxmap reads
	CodeBlock   bool `json:"code_block"`   // a fenced or indented block of code
	Error       bool `json:"error"`        // a quoted error or exception message
	Path        bool `json:"path"`         // a file path
	ChangedName bool `json:"changed_name"` // the name of a definition the fix changed
	ParentName  bool `json:"parent_name"`  // the name of the type holding a changed method
}

var fence = regexp.MustCompile("(?m)^\\s*(```|~~~)")

// ReadEvidence tells what a text carries; goldDefs are `path::Qualified.name` of the changed definitions.
func ReadEvidence(text string, goldDefs []string) Evidence {
	a := query.Analyze(text, nil)
	ev := Evidence{
		Trace:     len(a.Frames) > 0,
		CodeBlock: fence.MatchString(text),
		Error:     len(a.Errors) > 0,
	}
	for _, an := range a.Anchors {
		if an.Kind == query.KindPath || an.Kind == query.KindFileLine {
			ev.Path = true
		}
	}
	for _, g := range goldDefs {
		_, q, ok := strings.Cut(g, "::")
		if !ok {
			continue
		}
		parts := strings.Split(q, ".")
		if name := parts[len(parts)-1]; len(name) >= 3 && query.HasName(text, name) {
			ev.ChangedName = true
		}
		if len(parts) > 1 && len(parts[len(parts)-2]) >= 3 && query.HasName(text, parts[len(parts)-2]) {
			ev.ParentName = true
		}
	}
	return ev
}

// EvidenceRates are the shares of texts carrying each kind of evidence.
type EvidenceRates struct {
	Texts       int     `json:"texts"`
	Trace       float64 `json:"trace"`
	CodeBlock   float64 `json:"code_block"`
	Error       float64 `json:"error"`
	Path        float64 `json:"path"`
	ChangedName float64 `json:"changed_name"`
	ParentName  float64 `json:"parent_name"`
}

// Rates sums evidence over texts.
func Rates(evs []Evidence) EvidenceRates {
	r := EvidenceRates{Texts: len(evs)}
	if len(evs) == 0 {
		return r
	}
	n := float64(len(evs))
	for _, e := range evs {
		r.Trace += boolRate(e.Trace, n)
		r.CodeBlock += boolRate(e.CodeBlock, n)
		r.Error += boolRate(e.Error, n)
		r.Path += boolRate(e.Path, n)
		r.ChangedName += boolRate(e.ChangedName, n)
		r.ParentName += boolRate(e.ParentName, n)
	}
	return r
}

func boolRate(b bool, n float64) float64 {
	if b {
		return 1 / n
	}
	return 0
}
