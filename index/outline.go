package index

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/rank"
)

// DefaultOutlineBudget is an outline's size when the request names none: a map to read beside a
// question, not a pack.
const DefaultOutlineBudget = 1024

// OutlineRequest asks for a map of the workspace: its files in rank order, each with the signatures of
// its chief definitions, within a token budget.
type OutlineRequest struct {
	Budget    int    // tokens; 0: DefaultOutlineBudget
	Entity    string // centre the map on this entity's files
	Text      string // centre the map on the files a pack for this text ranks first
	Tokenizer string // "": the configuration's
}

// Outline is the map: the files that fit the budget, best first, and their rendering.
type Outline struct {
	Root      string        `json:"root"`
	Centre    string        `json:"centre,omitempty"` // the entity or the text it is centred on
	Budget    int           `json:"budget"`
	Tokens    int           `json:"tokens"` // of Text: never more than Budget
	Tokenizer string        `json:"tokenizer"`
	Files     []OutlineFile `json:"files"`
	Text      string        `json:"text"`
}

// OutlineFile is one file of the map with the definitions shown for it, in line order.
type OutlineFile struct {
	Path        string              `json:"path"`
	Score       float64             `json:"score"`
	Definitions []OutlineDefinition `json:"definitions"`
}

// OutlineDefinition is a definition as the map shows it.
type OutlineDefinition struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature"`
	Parent    string `json:"parent,omitempty"`
	Line      int    `json:"line"`
	Uses      int    `json:"uses"` // files that name it
}

// perFile bounds the definitions one file shows, so that the budget buys breadth before depth.
const perFile = 10

// Outline draws the map. Files are ranked by the reference graph (PageRank), from every file alike
// or, when centred, from the entity's files or the files a pack for the text ranks; tests rank below
// the code they test. A file's definitions are the ones most named by other files.
func (ix *Index) Outline(ctx context.Context, req OutlineRequest) (*Outline, error) {
	budget := req.Budget
	if budget == 0 {
		budget = DefaultOutlineBudget
	}
	if budget < MinBudget {
		return nil, invalidf("budget %d is below the minimum of %d tokens", budget, MinBudget)
	}
	if req.Entity != "" && req.Text != "" {
		return nil, invalidf("centre the map on an entity or on a text, not both")
	}
	name := req.Tokenizer
	if name == "" {
		name = ix.cfg.Tokenizer
	}
	tok, err := pack.NewTokenizer(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	s := ix.Snapshot()
	out := &Outline{Root: s.Root, Budget: budget, Tokenizer: tok.Name()}
	if len(s.Paths) == 0 || s.Graph == nil {
		return nil, fmt.Errorf("%s holds no file ctxmap can read", s.Root)
	}

	seeds := map[string]float64{}
	switch {
	case req.Entity != "":
		ex, err := ix.Explore(req.Entity, 1)
		if err != nil {
			return nil, err
		}
		out.Centre = ex.Entity.Name
		for _, p := range ex.Entity.Files {
			seeds[p] = 1
		}
	case req.Text != "":
		out.Centre = req.Text
		resolved, err := Request{Text: req.Text, Tokenizer: req.Tokenizer}.Normalize(ix.cfg)
		if err != nil {
			return nil, err
		}
		res, err := ix.Context(ctx, resolved)
		if err != nil {
			return nil, err
		}
		for i, f := range res.Files {
			seeds[f.Path] = 1 / float64(i+1) // by rank: scores of different signals do not add up
		}
	default:
		for _, p := range s.Paths {
			seeds[p] = 1
		}
	}
	scores := s.Graph.PageRank(seeds, 0.85, 30)
	// a centre's own files come first, whatever the graph adds around them
	for p, w := range seeds {
		if len(seeds) < len(s.Paths) {
			scores[p] += w
		}
	}

	uses := namedBy(s)
	// the project's own languages: a Python project's bundled JavaScript is not its main code
	langs := map[string]int{}
	coded := 0
	for _, p := range s.Paths {
		if r := s.Record(p); r != nil && r.File != nil && len(r.File.Definitions) > 0 {
			langs[r.Language]++
			coded++
		}
	}
	type ranked struct {
		path  string
		score float64
	}
	var files []ranked
	for p, sc := range scores {
		r := s.Record(p)
		if r == nil || r.File == nil || len(r.File.Definitions) == 0 {
			continue
		}
		if rank.IsTest(p) {
			sc *= 0.3
		}
		if rank.IsVendored(p) || isAsset(p) {
			sc *= 0.2
		}
		sc *= 0.5 + float64(langs[r.Language])/float64(max(1, coded))
		files = append(files, ranked{p, sc})
	}
	slices.SortFunc(files, func(a, b ranked) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.path, b.path)
	})

	// the header, then files while they fit; a file that does not fit is tried with fewer definitions
	header := "# Map of " + filepath.Base(s.Root)
	if out.Centre != "" {
		header += fmt.Sprintf(" around %q", clipText(out.Centre, 80))
	}
	text := header + "\n"
	used := tok.Count(text)
	for _, f := range files {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		defs := chiefDefinitions(s.Record(f.path).File.Definitions, uses, s.Symbols)
		if len(defs) == 0 {
			continue
		}
		for n := len(defs); n >= 1; n-- {
			shown := slices.Clone(defs[:n])
			slices.SortFunc(shown, func(a, b OutlineDefinition) int { return a.Line - b.Line })
			block := renderOutlineFile(f.path, shown)
			cost := tok.Count(block)
			if used+cost > budget {
				continue
			}
			text += block
			used += cost
			out.Files = append(out.Files, OutlineFile{Path: f.path, Score: f.score, Definitions: shown})
			break
		}
		if budget-used < 8 {
			break
		}
	}
	// counted whole, as the reader's model counts it: blocks counted apart may differ at their seams
	for tok.Count(text) > budget && len(out.Files) > 0 {
		last := out.Files[len(out.Files)-1]
		text = strings.TrimSuffix(text, renderOutlineFile(last.Path, last.Definitions))
		out.Files = out.Files[:len(out.Files)-1]
	}
	out.Text = text
	out.Tokens = tok.Count(text)
	return out, nil
}

// isAsset tells files served or shipped as they are (a web page's scripts, built output), which a
// project seldom changes as its own code.
func isAsset(p string) bool {
	for _, seg := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		switch seg {
		case "static", "assets", "public", "dist", "build":
			return true
		}
	}
	return false
}

// chiefDefinitions are a file's definitions, most named by other files first, at most perFile; fields
// and variables inside something else, and the sections of documents and configuration, say little
// on a map of the code and are left out.
func chiefDefinitions(all []Definition, uses map[string]int, definers map[string][]SymbolRef) []OutlineDefinition {
	var defs []OutlineDefinition
	for _, d := range all {
		if d.Kind == "section" || d.Parent != "" && (d.Kind == "field" || d.Kind == "variable" || d.Kind == "constant") {
			continue
		}
		sig := d.Signature
		if sig == "" {
			sig = d.Kind + " " + d.Name
		}
		defs = append(defs, OutlineDefinition{Name: d.Name, Kind: d.Kind, Signature: clipText(sig, 160), Parent: d.Parent,
			Line: d.StartLine, Uses: uses[d.Name]})
	}
	// a name defined in many files (Close, String) is named for any of them: its uses are shared
	weight := func(d OutlineDefinition) float64 { return float64(d.Uses) / float64(max(1, len(definers[d.Name]))) }
	slices.SortStableFunc(defs, func(a, b OutlineDefinition) int {
		if wa, wb := weight(a), weight(b); wa != wb {
			if wa > wb {
				return -1
			}
			return 1
		}
		return a.Line - b.Line
	})
	return defs[:min(len(defs), perFile)]
}

func renderOutlineFile(path string, defs []OutlineDefinition) string {
	var b strings.Builder
	b.WriteString("\n" + path + ":\n")
	shown := map[string]bool{}
	for _, d := range defs {
		shown[d.Name] = true
	}
	for _, d := range defs {
		indent := "  "
		if d.Parent != "" && shown[d.Parent] {
			indent = "    " // under its class, which is shown above it
		}
		fmt.Fprintf(&b, "%s%d: %s\n", indent, d.Line, d.Signature)
	}
	return b.String()
}

// namedBy counts, for each name, the files that name it.
func namedBy(s *Snapshot) map[string]int {
	uses := map[string]int{}
	for _, p := range s.Paths {
		r := s.Record(p)
		if r == nil || r.File == nil {
			continue
		}
		seen := map[string]bool{}
		for _, ref := range r.File.References {
			if !seen[ref.Name] {
				seen[ref.Name] = true
				uses[ref.Name]++
			}
		}
	}
	return uses
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
