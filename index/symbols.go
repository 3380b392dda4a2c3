package index

import (
	"slices"
	"sort"
	"strings"

	"github.com/sahilm/fuzzy"

	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Symbol is a definition found by name.
type Symbol = records.Symbol

// SymbolKinds are the kinds of definitions FindSymbols keeps when asked: the parser's, where "type"
// is any type and "function" any function (see records.SymbolKinds).
var SymbolKinds = records.SymbolKinds

// CheckKind says what is wrong with a kind a user asks for: one not in SymbolKinds (case aside). The
// error wraps ErrInvalid and lists them.
func CheckKind(kind string) error {
	if kind == "" || slices.Contains(SymbolKinds, strings.ToLower(kind)) {
		return nil
	}
	return invalidf("unknown kind %q (known: %s)", kind, strings.Join(SymbolKinds, ", "))
}

// FindSymbols finds the definitions of a name: those named exactly so first, then those whose name
// differs in case, then fuzzy matches, best first; at most limit (0: MaxSymbols). A dotted name
// (RuleIndex.search, Gist::summary) keeps the definitions whose parent matches; kind, when given,
// keeps those of that kind (one of SymbolKinds: "type" is any type, as a user says it).
func (s *Snapshot) FindSymbols(name, kind string, limit int) []Symbol {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	if limit <= 0 {
		limit = MaxSymbols
	}
	parent := ""
	if i := strings.LastIndexAny(name, ".:#"); i >= 0 {
		parent, name = strings.Trim(name[:i], ".:#"), name[i+1:]
		if j := strings.LastIndexAny(parent, ".:#"); j >= 0 {
			parent = parent[j+1:]
		}
	}
	var out []Symbol
	seen := map[string]bool{}
	// add appends the definitions of names, in the order given; false once the limit is reached
	add := func(names []string, match string) bool {
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			var defs []Symbol
			for _, ref := range s.Symbols[n] {
				d, ok := s.definition(ref)
				if !ok || !records.KindMatches(d.Kind, kind) || parent != "" && !strings.EqualFold(d.Parent, parent) {
					continue
				}
				defs = append(defs, Symbol{Name: d.Name, Qualified: d.Qualified(), Parent: d.Parent, Kind: d.Kind, Path: ref.Path,
					StartLine: d.StartLine, EndLine: d.EndLine, Signature: d.Signature, Doc: d.Doc, Match: match})
			}
			sort.SliceStable(defs, func(i, j int) bool {
				if defs[i].Path != defs[j].Path {
					return defs[i].Path < defs[j].Path
				}
				return defs[i].StartLine < defs[j].StartLine
			})
			for _, d := range defs {
				if len(out) == limit {
					return false
				}
				out = append(out, d)
			}
		}
		return true
	}
	if !add([]string{name}, "exact") || !add(s.folded(strings.ToLower(name)), "case-insensitive") {
		return out
	}
	for _, m := range fuzzy.Find(name, s.SymbolNames()) {
		if !add([]string{m.Str}, "fuzzy") {
			break
		}
	}
	return out
}

// Definition is one definition of a parsed file, as the front ends outline it.
type Definition = parse.Definition

// LanguageOf names the language a file is parsed as, by its name; "" when the index has no grammar
// for it.
func LanguageOf(path string) string { return parse.LanguageOf(path) }
