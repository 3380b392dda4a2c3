// Package outline draws the text map of a workspace: its files ranked by the reference graph (from
// every file alike, or from the files of a centre), each with the signatures of the definitions other
// files name most, within a token budget.
package outline

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Outline is the map: the files that fit the budget, best first, and their rendering.
type Outline struct {
	Root      string `json:"root"`
	Centre    string `json:"centre,omitempty"` // the entity or the text it is centred on
	Budget    int    `json:"budget"`
	Tokens    int    `json:"tokens"` // of Text: never more than Budget
	Tokenizer string `json:"tokenizer"`
	Files     []File `json:"files"`
	Text      string `json:"text"`
}

// File is one file of the map with the definitions shown for it, in line order.
type File struct {
	Path        string       `json:"path"`
	Score       float64      `json:"score"`
	Definitions []Definition `json:"definitions"`
}

// Definition is a definition as the map shows it.
type Definition struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature"`
	Parent    string `json:"parent,omitempty"`
	Line      int    `json:"line"`
	Uses      int    `json:"uses"` // files that name it
}

// Workspace is what a map is drawn from: an index's snapshot of its files.
type Workspace struct {
	Root  string
	Paths []string // the indexed files, sorted
	// File is a file's language and parsed content; a nil File when the snapshot holds none.
	File func(path string) (language string, f *parse.File)
	// Definers counts the files that define name.
	Definers func(name string) int
	Graph    *records.Graph
}

// perFile bounds the definitions one file shows, so that the budget buys breadth before depth.
const perFile = 10

// Draw draws the map of w within budget tokens of tok. Seeds weigh the files the ranking starts from
// (every file alike, or a centre's), and a centre's own files come first; centre names it in the
// header. Tests rank below the code they test, vendored and served files below the project's own, and
// files of the project's main languages above the rest. A file's definitions are the ones most named
// by other files.
func Draw(ctx context.Context, w Workspace, seeds map[string]float64, centre string, budget int, tok *pack.Tokenizer) (*Outline, error) {
	out := &Outline{Root: w.Root, Centre: centre, Budget: budget, Tokenizer: tok.Name()}
	scores := w.Graph.PageRank(seeds, 0.85, 30)
	// a centre's own files come first, whatever the graph adds around them
	for p, weight := range seeds {
		if len(seeds) < len(w.Paths) {
			scores[p] += weight
		}
	}

	uses := namedBy(w)
	// the project's own languages: a Python project's bundled JavaScript is not its main code
	langs := map[string]int{}
	coded := 0
	for _, p := range w.Paths {
		if lang, f := w.File(p); f != nil && len(f.Definitions) > 0 {
			langs[lang]++
			coded++
		}
	}
	type ranked struct {
		path  string
		score float64
	}
	var files []ranked
	for p, sc := range scores {
		lang, f := w.File(p)
		if f == nil || len(f.Definitions) == 0 {
			continue
		}
		if records.IsTest(p) {
			sc *= 0.3
		}
		if records.IsVendored(p) || isAsset(p) {
			sc *= 0.2
		}
		sc *= 0.5 + float64(langs[lang])/float64(max(1, coded))
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
	header := "# Map of " + filepath.Base(out.Root)
	if out.Centre != "" {
		header += fmt.Sprintf(" around %q", clipText(out.Centre, 80))
	}
	text := header + "\n"
	used := tok.Count(text)
	for _, f := range files {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		_, pf := w.File(f.path)
		defs := chiefDefinitions(pf.Definitions, uses, w.Definers)
		if len(defs) == 0 {
			continue
		}
		for n := len(defs); n >= 1; n-- {
			shown := slices.Clone(defs[:n])
			slices.SortFunc(shown, func(a, b Definition) int { return a.Line - b.Line })
			block := renderFile(f.path, shown)
			cost := tok.Count(block)
			if used+cost > budget {
				continue
			}
			text += block
			used += cost
			out.Files = append(out.Files, File{Path: f.path, Score: f.score, Definitions: shown})
			break
		}
		if budget-used < 8 {
			break
		}
	}
	// counted whole, as the reader's model counts it: blocks counted apart may differ at their seams
	for tok.Count(text) > budget && len(out.Files) > 0 {
		last := out.Files[len(out.Files)-1]
		text = strings.TrimSuffix(text, renderFile(last.Path, last.Definitions))
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
func chiefDefinitions(all []parse.Definition, uses map[string]int, definers func(name string) int) []Definition {
	var defs []Definition
	for _, d := range all {
		if d.Kind == "section" || d.Parent != "" && (d.Kind == "field" || d.Kind == "variable" || d.Kind == "constant") {
			continue
		}
		sig := d.SignatureOr(d.Name)
		defs = append(defs, Definition{Name: d.Name, Kind: d.Kind, Signature: clipText(sig, 160), Parent: d.Parent,
			Line: d.StartLine, Uses: uses[d.Name]})
	}
	// a name defined in many files (Close, String) is named for any of them: its uses are shared
	weight := func(d Definition) float64 { return float64(d.Uses) / float64(max(1, definers(d.Name))) }
	slices.SortStableFunc(defs, func(a, b Definition) int {
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

func renderFile(path string, defs []Definition) string {
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
func namedBy(w Workspace) map[string]int {
	uses := map[string]int{}
	for _, p := range w.Paths {
		_, f := w.File(p)
		if f == nil {
			continue
		}
		seen := map[string]bool{}
		for _, ref := range f.References {
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
