package rank

import (
	"sync"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// A generated amalgamation (a single-header library, an amalgamated source) is the concatenation of
// files the workspace also holds: a fix is made in those sources and the copy generated again from
// them, so the sources are what a reader needs first: the copy comes after them (its probability
// discounted), as a companion of a shown source when the history says they change together.
const (
	amalgamMinNames = 40  // the least selective names a file must define to be judged
	amalgamShare    = 0.6 // the share of them that another file defines with the same text
	amalgamSources  = 4   // the least number of other files those are spread over
	namesSelective  = 4   // a name is selective when at most this many definitions have it
	amalgamRanks    = 40  // the ranked files judged
	amalgamDiscount = 0.1 // what a copy's probability keeps
)

// Generated remembers which files read as generated copies: the answer depends on the snapshot
// alone, so its requests share it rather than judge a big header again at each.
type Generated struct {
	mu sync.Mutex
	is map[string]bool
}

// amalgamated reports whether the file at p reads as generated from others of the workspace: most of
// the names it defines that few definitions have are defined in other files with the same text,
// spread over several files (not a header and its source, which pair one to one).
func (r *ranker) amalgamated(p string) bool {
	g := r.s.Generated
	if g == nil {
		g = &r.generated
	}
	g.mu.Lock()
	v, ok := g.is[p]
	g.mu.Unlock()
	if !ok {
		v = r.judgeAmalgamated(p)
		g.mu.Lock()
		if g.is == nil {
			g.is = map[string]bool{}
		}
		g.is[p] = v
		g.mu.Unlock()
	}
	return v
}

func (r *ranker) judgeAmalgamated(p string) bool {
	rec := r.parsed(p)
	if rec == nil || len(rec.File.Definitions) < amalgamMinNames {
		return false
	}
	// by names alone first: most files fail here without reading another record
	seen := map[string]bool{}
	var shared []parse.Definition
	selective := 0
	for _, d := range rec.File.Definitions {
		if seen[d.Name] || len(d.Name) < 3 {
			continue
		}
		seen[d.Name] = true
		refs := r.s.Symbols[d.Name]
		if len(refs) > namesSelective {
			continue
		}
		selective++
		for _, ref := range refs {
			if ref.Path != p {
				shared = append(shared, d)
				break
			}
		}
	}
	least := amalgamShare * float64(selective)
	return selective >= amalgamMinNames && float64(len(shared)) >= least && r.copied(p, shared) >= least
}

// copied counts the definitions of p that another file defines with the same text (the same head over
// as many lines: an override or a trait's implementation shares the name, rarely both), when there are
// enough to matter and they are spread over amalgamSources files, none holding half of them; else 0.
func (r *ranker) copied(p string, defs []parse.Definition) float64 {
	if len(defs) < amalgamMinNames {
		return 0
	}
	perFile := map[string]int{}
	n := 0
	for _, d := range defs {
		for _, ref := range r.s.Symbols[d.Name] {
			if o, ok := r.s.Definition(ref); ok && ref.Path != p && o.Signature == d.Signature && o.EndLine-o.StartLine == d.EndLine-d.StartLine {
				n++
				perFile[ref.Path]++
				break
			}
		}
	}
	most := 0
	for _, k := range perFile {
		most = max(most, k)
	}
	if len(perFile) < amalgamSources || 2*most > n {
		return 0
	}
	return float64(n)
}
