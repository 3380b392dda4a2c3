package records

import (
	"slices"
	"strings"
)

// Symbol is a definition found by name.
type Symbol struct {
	Name      string `json:"name"`
	Qualified string `json:"qualified"` // Parent.Name, or Name
	Parent    string `json:"-"`         // in Qualified already
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Signature string `json:"signature,omitempty"`
	Doc       string `json:"doc,omitempty"`
	Match     string `json:"match"` // exact, case-insensitive or fuzzy
}

// SymbolKinds are the kinds of definitions a search by name keeps when asked: the parser's, where "type"
// is any type (a class, struct, interface, trait, enum or type declaration) and "function" any
// function (a method and a constructor too).
var SymbolKinds = []string{"function", "method", "constructor", "type", "class", "struct", "interface", "trait",
	"enum", "module", "namespace", "constant", "variable", "field", "macro", "section"}

// kindsOf are the kinds a user's word covers beside its own.
var kindsOf = map[string][]string{
	"type":     {"type", "class", "struct", "interface", "trait", "enum"},
	"function": {"function", "method", "constructor"},
}

// KindMatches says whether a definition of kind def is of the kind asked ("": any).
func KindMatches(def, asked string) bool {
	asked = strings.ToLower(asked)
	if asked == "" || strings.EqualFold(def, asked) {
		return true
	}
	return slices.Contains(kindsOf[asked], def)
}
