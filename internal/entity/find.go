package entity

import (
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/words"
)

// Find is the entity a word of the code or of prose names: by name ("QualityProfile", "gists"), by its
// stem among the entities' terms, and for an identifier made of several words, by the compound or its
// last word that is one; nil when none is.
func (m *Map) Find(word string) *Entity {
	if m == nil {
		return nil
	}
	if e := m.Get(word); e != nil {
		return e
	}
	if n := words.Normalize(strings.ToLower(word)); n != "" {
		if es := m.Lookup(n); len(es) > 0 {
			return es[0]
		}
	}
	terms := words.Terms(word)
	if len(terms) > 1 {
		if es := m.Lookup(strings.Join(terms, " ")); len(es) > 0 {
			return es[0]
		}
		for i := len(terms) - 1; i >= 0; i-- {
			if e := m.Get(terms[i]); e != nil {
				return e
			}
		}
	}
	return nil
}

// DefinitionLine is the line of the definition among defs that names e best: a type named after it,
// else any definition whose name holds all its terms, else 1, the file's first line.
func DefinitionLine(defs []parse.Definition, e *Entity) int {
	best, bestScore := 1, 0
	for _, d := range defs {
		terms := words.Terms(d.Name)
		if !containsAll(terms, e.Terms) {
			continue
		}
		score := 1
		if len(terms) == len(e.Terms) {
			score = 2
			switch d.Kind {
			case "type", "struct", "class", "interface", "trait", "enum":
				score = 3
			}
		}
		if score > bestScore {
			best, bestScore = d.StartLine, score
		}
	}
	return best
}

// containsAll reports whether want is not empty and each of its words is among have.
func containsAll(have, want []string) bool {
	return len(want) > 0 && !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(have, w) })
}
