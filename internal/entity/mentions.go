package entity

// Where an entity is mentioned: the definitions and files of its files that name it, which `explore`
// lists, and the entities whose names come near a name that is none.

import (
	"sort"
	"strings"
	"time"

	"github.com/sahilm/fuzzy"

	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/words"
)

// Mention is one definition (or a file's header) that mentions an entity.
type Mention struct {
	Path      string    `json:"path"`
	Symbol    string    `json:"symbol,omitempty"`
	Kind      string    `json:"kind"`
	StartLine int       `json:"startLine"`
	EndLine   int       `json:"endLine"`
	Mentions  int       `json:"mentions"`
	Changed   time.Time `json:"changed"`
	Signature string    `json:"signature,omitempty"`
	Entities  []string  `json:"entities,omitempty"` // the other entities of its file
}

// Mentions lists the chunks of e's files that mention it, at most limit: the entity's code before its
// tests, then those that name it most, the most recently changed first among equals. record is a file's
// record (nil when there is none); changed is each file's last commit, a file without one counting from
// its time on disk.
func (m *Map) Mentions(e *Entity, record func(path string) *records.Record, changed map[string]time.Time, limit int) []Mention {
	terms := map[string]bool{}
	for _, t := range e.Terms {
		terms[t] = true
	}
	var out []Mention
	for _, p := range e.Files {
		rec := record(p)
		if rec == nil || rec.File == nil {
			continue
		}
		when := changed[p]
		if when.IsZero() {
			when = time.Unix(0, rec.ModTime)
		}
		others := m.FileEntities(p)
		mentions := make([]int, len(rec.File.Definitions))
		for i, d := range rec.File.Definitions {
			mentions[i] = countMentions(terms, d.Name+" "+d.Parent)
		}
		for _, r := range rec.File.References {
			if r.Enclosing >= 0 && r.Enclosing < len(mentions) {
				mentions[r.Enclosing] += countMentions(terms, r.Name)
			}
		}
		pathMentions := countMentions(terms, p)
		for i, d := range rec.File.Definitions {
			if mentions[i] == 0 || !records.Chunked(d) {
				continue
			}
			out = append(out, Mention{Path: p, Symbol: d.Qualified(), Kind: d.Kind, StartLine: d.StartLine,
				EndLine: d.EndLine, Mentions: mentions[i], Changed: when, Signature: d.Signature, Entities: without(others, e.Name)})
		}
		if pathMentions > 0 {
			out = append(out, Mention{Path: p, Kind: "file", StartLine: 1, EndLine: rec.Lines,
				Mentions: pathMentions, Changed: when, Entities: without(others, e.Name)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch ta, tb := records.IsTest(a.Path), records.IsTest(b.Path); {
		case ta != tb: // the entity's code, then its tests
			return tb
		case a.Mentions != b.Mentions:
			return a.Mentions > b.Mentions
		case !a.Changed.Equal(b.Changed):
			return a.Changed.After(b.Changed)
		case a.Path != b.Path:
			return a.Path < b.Path
		}
		return a.StartLine < b.StartLine
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// countMentions counts the words of text that are terms of the entity.
func countMentions(terms map[string]bool, text string) int {
	n := 0
	for _, w := range words.Terms(text) {
		if terms[w] {
			n++
		}
	}
	return n
}

// without is names without name, at most five of them.
func without(names []string, name string) []string {
	var out []string
	for _, n := range names {
		if n != name && len(out) < 5 {
			out = append(out, n)
		}
	}
	return out
}

// Near are at most n names of entities near name (typed in any case), the nearest first: the ones name
// matches fuzzily (its letters in order), then the fewest edits away. What to suggest for a name that
// is no entity's: a map with entities always has some.
func (m *Map) Near(name string, n int) []string {
	if m == nil || n <= 0 {
		return nil
	}
	name = strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(name), " ", "_"))
	var names []string
	for _, x := range m.Entities {
		names = append(names, x.Name)
	}
	sort.Strings(names) // the map's order is not one
	var near []string
	taken := map[string]bool{}
	for _, match := range fuzzy.Find(name, names) {
		if len(near) == n {
			return near
		}
		near = append(near, match.Str)
		taken[match.Str] = true
	}
	rest := names[:0:0]
	dist := map[string]int{}
	for _, x := range names {
		if !taken[x] {
			rest = append(rest, x)
			dist[x] = edits(name, x)
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return dist[rest[i]] < dist[rest[j]] })
	return append(near, rest[:min(len(rest), n-len(near))]...)
}

// edits is the Levenshtein distance between a and b, in bytes (entity names are upper-case ASCII).
func edits(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
