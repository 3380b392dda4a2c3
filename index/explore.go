package index

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sahilm/fuzzy"

	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/model"
	"github.com/ctxmap/ctxmap/internal/words"
)

// Exploration is what the workspace holds about one entity: the chunks that mention it most, the most
// recently changed first among equals (idea 002's explore_entity).
type Exploration struct {
	Entity *entity.Entity  `json:"entity"`
	Chunks []ExploredChunk `json:"chunks"`
}

// ExploredChunk is one definition (or a file's header) that mentions the entity.
type ExploredChunk struct {
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

// ErrUnknownEntity is returned for a name the entity map does not hold.
var ErrUnknownEntity = fmt.Errorf("%w: unknown entity", ErrInvalid)

// Explore lists the chunks about an entity, at most limit (0: DefaultExplore).
func (ix *Index) Explore(name string, limit int) (*Exploration, error) {
	s := ix.Snapshot()
	if limit <= 0 {
		limit = DefaultExplore
	}
	e := s.Entities.Get(strings.ReplaceAll(strings.TrimSpace(name), " ", "_"))
	if e == nil {
		var names []string
		for _, x := range s.Entities.Entities {
			names = append(names, x.Name)
		}
		var near []string
		for i, m := range fuzzy.Find(strings.ToUpper(name), names) {
			if i == 5 {
				break
			}
			near = append(near, m.Str)
		}
		if len(near) > 0 {
			return nil, fmt.Errorf("%w %q; did you mean %s?", ErrUnknownEntity, name, strings.Join(near, ", "))
		}
		return nil, fmt.Errorf("%w %q", ErrUnknownEntity, name)
	}
	terms := map[string]bool{}
	for _, t := range e.Terms {
		terms[t] = true
	}
	changed := s.History.LastChanged()
	var out []ExploredChunk
	for _, p := range e.Files {
		rec := s.Record(p)
		if rec == nil || rec.File == nil {
			continue
		}
		when := changed[p]
		if when.IsZero() {
			when = time.Unix(0, rec.ModTime)
		}
		others := s.Entities.FileEntities(p)
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
			if mentions[i] == 0 || !model.Chunked(d) {
				continue
			}
			out = append(out, ExploredChunk{Path: p, Symbol: d.Qualified(), Kind: d.Kind, StartLine: d.StartLine,
				EndLine: d.EndLine, Mentions: mentions[i], Changed: when, Signature: d.Signature, Entities: without(others, e.Name)})
		}
		if pathMentions > 0 {
			out = append(out, ExploredChunk{Path: p, Kind: "file", StartLine: 1, EndLine: rec.Lines,
				Mentions: pathMentions, Changed: when, Entities: without(others, e.Name)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch ta, tb := model.IsTest(a.Path), model.IsTest(b.Path); {
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
	return &Exploration{Entity: e, Chunks: out}, nil
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

func without(names []string, name string) []string {
	var out []string
	for _, n := range names {
		if n != name && len(out) < 5 {
			out = append(out, n)
		}
	}
	return out
}
