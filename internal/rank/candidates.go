package rank

// The candidates of a pack: the ranked files' definitions (or outlines), their imports, the callers
// and tests of the best definitions, and the entities for the pack's header.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/words"
)

// packEntities are the entities the text is about that the pack's code carries, for its header: a
// specific term (not a common verb or adjective, not the project's own name, not in a quarter of the
// files) that one of the candidates' files holds.
func (r *ranker) packEntities(cands []pack.Candidate) []pack.Entity {
	if r.s.Entities == nil || r.without["entities"] {
		return nil
	}
	inPack := map[string]bool{}
	for _, c := range cands {
		if c.Kind != "outline" {
			inPack[c.Path] = true
		}
	}
	var out []pack.Entity
	for _, m := range r.entityMatches() {
		if len(out) == 5 {
			break
		}
		if !r.specific(m.Entity) || !slices.ContainsFunc(m.Entity.Files, func(f string) bool { return inPack[f] }) {
			continue
		}
		e := pack.Entity{Name: m.Entity.Name, Importance: m.Entity.Importance, Files: head(m.Entity.Files, 3)}
		for j, rel := range m.Entity.Related {
			if j >= 3 {
				break
			}
			e.Related = append(e.Related, rel.Name)
		}
		out = append(out, e)
	}
	return out
}

// specific tells an entity that names a concept of this project from a common word or the project's name.
func (r *ranker) specific(e *entity.Entity) bool {
	return Specific(e, len(r.s.Paths)) && slices.ContainsFunc(e.Terms, func(t string) bool { return !r.projectNames()[t] })
}

// Specific tells an entity that names a concept of a project of n files from one that any word of code
// would give: held by a quarter of the files of a project large enough to say so, or named by common
// words only (HeadRefName's NAME in a project of a thousand files).
func Specific(e *entity.Entity, n int) bool {
	if n >= minFilesForShare && float64(len(e.Files)) > maxEntityShare*float64(n) {
		return false
	}
	return slices.ContainsFunc(e.Terms, func(t string) bool { return !words.Common(t) })
}

// minFilesForShare: in a workspace smaller than this, every entity is in many of the files.
const minFilesForShare = 50

func head[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Candidate selection: the best files give their strongest definitions (the first as a definition, the
// rest as snippets), then the callers and tests of the best definitions, then imports.
const (
	packFiles      = 18
	defsPerFile    = 3
	fullFiles      = 3 // the files past these give more than their best definition only when room is left
	maxCallers     = 6
	maxTests       = 4
	minScoreShare  = 0.12
	maxBodyLines   = 400
	maxOutlineDefs = 25
)

type primary struct {
	path string
	def  parse.Definition
}

func (r *ranker) candidates(files []RankedFile) []pack.Candidate {
	out := r.pinnedCandidates(files)
	if len(files) == 0 {
		return out
	}
	top := files[0].Score
	var prims []primary
	for rank, f := range files {
		if rank >= packFiles || f.Prob == 0 && f.Score < minScoreShare*top {
			break // (a learned order is not by Score: its probabilities decide in tight packs)
		}
		rec := r.s.Record(f.Path)
		if rec == nil || rec.File == nil {
			continue
		}
		src := r.source(f.Path)
		defs := slices.DeleteFunc(r.pickDefs(rec, f), func(d int) bool { return r.isPinned(f.Path, d) })
		why := append([]string{fmt.Sprintf("file #%d", rank+1)}, r.fileWhy(f)...)
		if len(defs) == 0 && r.hasPins(f.Path) {
			continue // the pins show the file
		}
		if len(defs) == 0 {
			out = append(out, outlineCandidate(rec, src, f, why))
			continue
		}
		for k, d := range defs {
			def := rec.File.Definitions[d]
			c := defCandidate(rec, r.lines(f.Path), def, f.Score*(1-0.1*float64(k)), why)
			if r.holdsPin(f.Path, def) { // a pinned method's class as a card: whole, it would hide the method
				c.Full = ""
			}
			switch {
			case records.IsTest(f.Path):
				c.Kind, c.Bucket = "test", "tests"
			case k == 0:
				c.Kind, c.Bucket = "definition", "definitions"
			default:
				c.Kind, c.Bucket = "snippet", "snippets"
			}
			// past the first files, the budget goes to more files before more of a weaker one
			c.Spare = k > 0 && rank >= fullFiles
			out = append(out, c)
			if rank < 3 && k == 0 && !records.IsTest(f.Path) {
				prims = append(prims, primary{path: f.Path, def: def})
			}
		}
		if rank < 3 {
			if c, ok := importCandidate(rec, f); ok {
				out = append(out, c)
			}
		}
	}
	out = append(out, r.related(prims, files, top)...)
	return out
}

// source is a workspace file's content, read once a request: pins, features and candidates all read
// the few files a pack is made of.
func (r *ranker) source(p string) []byte {
	if b, ok := r.srcs[p]; ok {
		return b
	}
	if r.srcs == nil {
		r.srcs = map[string][]byte{}
	}
	b, _ := r.s.ReadFile(p)
	r.srcs[p] = b
	return b
}

// lines is a file's source split into lines, once per request: a file's definitions are cut from it
// one by one.
func (r *ranker) lines(p string) [][]byte {
	if ls, ok := r.split[p]; ok {
		return ls
	}
	if r.split == nil {
		r.split = map[string][][]byte{}
	}
	ls := parse.SplitLines(r.source(p))
	r.split[p] = ls
	return ls
}

// pickDefs chooses a file's definitions: the ones signals pointed at, strongest first; when none did
// but lines did (a frame, an error literal), the definitions around those lines.
func (r *ranker) pickDefs(rec *records.Record, f RankedFile) []int {
	return head(r.pickDefsAll(rec, f), defsPerFile)
}

// pickDefsAll is every definition the evidence points at, strongest first.
func (r *ranker) pickDefsAll(rec *records.Record, f RankedFile) []int {
	type scored struct {
		i int
		s float64
	}
	var ds []scored
	for i, s := range f.defs {
		if i >= 0 && i < len(rec.File.Definitions) {
			ds = append(ds, scored{i, s})
		}
	}
	for j, line := range f.lines { // in the evidence's order: the innermost frame first
		if d := r.enclosing(f.Path, line); d >= 0 {
			ds = append(ds, scored{d, 10 / (1 + 0.1*float64(j))})
		}
	}
	sort.Slice(ds, func(a, b int) bool {
		if ds[a].s != ds[b].s {
			return ds[a].s > ds[b].s
		}
		return ds[a].i < ds[b].i
	})
	var out []int
	seen := map[int]bool{}
	for _, d := range ds {
		if !seen[d.i] {
			seen[d.i] = true
			out = append(out, d.i)
		}
	}
	return out
}

func defCandidate(rec *records.Record, lines [][]byte, d parse.Definition, score float64, why []string) pack.Candidate {
	c := pack.Candidate{
		Path: rec.Path, Symbol: d.Qualified(), Language: rec.Language, StartLine: d.StartLine, EndLine: d.EndLine,
		Score: score, Why: why, Compact: compactCard(rec.Language, d),
	}
	if isTypeKind(d.Kind) || d.Kind == "module" || d.Kind == "namespace" {
		if members := memberLines(rec, d); members != "" {
			c.Standard = c.Compact + "\n" + members
		}
	}
	end := d.EndLine
	if end-d.StartLine+1 > maxBodyLines {
		end = d.StartLine + maxBodyLines - 1
	}
	// the doc comment, decorators, attributes and template header above the declaration come with it
	c.StartLine = declStart(lines, d.StartLine, d.Doc != "")
	c.Full = parse.JoinLines(lines, c.StartLine, end)
	// and, around a whole body, the lines where a sibling the fix adds would go
	if end == d.EndLine {
		for k := max(1, c.StartLine-pack.AroundLines); k < c.StartLine && k <= len(lines); k++ {
			c.Before = append(c.Before, string(lines[k-1]))
		}
		for k := end; k < min(end+pack.AroundLines, len(lines)); k++ {
			c.After = append(c.After, string(lines[k]))
		}
	}
	return c
}

// declStart is the first line of what belongs above a declaration at line: its comment, attributes,
// decorators, annotations, C++ template header and attribute macros.
// A fix often changes a template's constraint or an attribute; a region without them misses it.
func declStart(lines [][]byte, line int, doc bool) int {
	start := line
	for k := line - 1; k >= 1 && k > line-maxDocLines && k <= len(lines); k-- {
		t := strings.TrimSpace(string(lines[k-1]))
		if t == "" {
			break
		}
		if h := templateHead(lines, k); h > 0 {
			start, k = h, h
			continue
		}
		// a comment right above is the declaration's; a # line is one only when the parser found a
		// doc there (else it may be C's preprocessor)
		if !attrLine(t) && !(docLine(t) && (doc || t[0] != '#')) {
			break
		}
		start = k
	}
	return start
}

// templateHead is the first line of a C++ template header that ends at line (it may span a few
// lines, none of which ends a statement or opens a body), or 0.
func templateHead(lines [][]byte, line int) int {
	for k := line; k >= 1 && k > line-4; k-- {
		t := strings.TrimSpace(string(lines[k-1]))
		if strings.HasPrefix(t, "template") && (len(t) == 8 || t[8] == '<' || t[8] == ' ') {
			return k
		}
		if t == "" || strings.ContainsAny(t, "{};") {
			return 0
		}
	}
	return 0
}

// attrLine is a line of attributes above a declaration: Rust's #[...], an annotation or decorator,
// or an attribute macro alone on its line (JSON_HEDLEY_WARN_UNUSED_RESULT, NODISCARD(...)).
func attrLine(t string) bool {
	if strings.HasPrefix(t, "#[") || strings.HasPrefix(t, "@") {
		return true
	}
	name := t
	if i := strings.IndexByte(t, '('); i > 0 && strings.HasSuffix(t, ")") {
		name = t[:i]
	}
	if len(name) < 3 {
		return false
	}
	for _, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// maxDocLines bounds the comment lines a definition brings along.
const maxDocLines = 16

func docLine(t string) bool {
	for _, p := range []string{"//", "/*", "*", "#", "--", ";;", "@"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// compactCard is a definition's signature under its doc comment.
func compactCard(lang string, d parse.Definition) string {
	sig := d.SignatureOr(d.Qualified())
	if d.Doc == "" {
		return sig
	}
	prefix := commentPrefix(lang)
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSpace(d.Doc), "\n") {
		if i == 3 {
			break
		}
		b.WriteString(prefix + strings.TrimSpace(l) + "\n")
	}
	return b.String() + sig
}

// commentPrefix is how a line comment of lang starts: its row of the language table says.
func commentPrefix(lang string) string { return parse.CommentPrefix(lang) }

// memberLines lists the signatures of a type's members, indented.
func memberLines(rec *records.Record, d parse.Definition) string {
	var b strings.Builder
	n := 0
	for _, m := range rec.File.Definitions {
		if m.Parent != d.Name || m.StartLine < d.StartLine || m.StartLine > d.EndLine && d.Kind != "type" && d.Kind != "struct" {
			continue
		}
		if n == maxOutlineDefs {
			b.WriteString("    ...\n")
			break
		}
		sig := m.SignatureOr(m.Name)
		b.WriteString("    " + sig + "\n")
		n++
	}
	return strings.TrimRight(b.String(), "\n")
}

// outlineCandidate stands for a file no signal pinned to a definition: its top-level signatures.
func outlineCandidate(rec *records.Record, src []byte, f RankedFile, why []string) pack.Candidate {
	var b strings.Builder
	n := 0
	for _, d := range rec.File.Definitions {
		if d.Parent != "" || d.Kind == "variable" || d.Kind == "field" {
			continue
		}
		if n == maxOutlineDefs {
			b.WriteString("...\n")
			break
		}
		sig := d.SignatureOr(d.Name)
		fmt.Fprintf(&b, "%s  // line %d\n", sig, d.StartLine)
		n++
	}
	compact := strings.TrimRight(b.String(), "\n")
	if compact == "" {
		compact = parse.JoinLines(parse.SplitLines(src), 1, 12)
	}
	kind, bucket := "file", "snippets"
	if records.IsTest(rec.Path) {
		kind, bucket = "test", "tests"
	}
	end := rec.Lines
	if end > maxBodyLines {
		end = maxBodyLines
	}
	return pack.Candidate{
		Kind: kind, Bucket: bucket, Path: rec.Path, Language: rec.Language, StartLine: 1, EndLine: rec.Lines,
		Score: f.Score, Why: why, Compact: compact, Full: parse.JoinLines(parse.SplitLines(src), 1, end),
	}
}

func importCandidate(rec *records.Record, f RankedFile) (pack.Candidate, bool) {
	if len(rec.File.Imports) == 0 {
		return pack.Candidate{}, false
	}
	var b strings.Builder
	for i, im := range rec.File.Imports {
		if i == 30 {
			b.WriteString("...\n")
			break
		}
		b.WriteString(im.Path + "\n")
	}
	first, last := rec.File.Imports[0].Line, rec.File.Imports[len(rec.File.Imports)-1].Line
	return pack.Candidate{
		Kind: "import", Bucket: "imports", Path: rec.Path, Language: "text", StartLine: first, EndLine: last,
		Score: f.Score * 0.5, Why: []string{"imports of a top file"}, Compact: strings.TrimRight(b.String(), "\n"),
	}, true
}

// referrers are the files, sorted, that may name one of names (name -> index of its primary). The
// graph links every file that names a symbol to the symbol's definers, so these are the neighbours of
// the primaries' files, unless a name is not a symbol of its primary's file that makes edges (a
// heading, a name defined in too many files): then every file.
func (r *ranker) referrers(names map[string]int, prims []primary) []string {
	g := r.s.Graph
	nodes := map[int]bool{}
	for name, pi := range names {
		defs := r.s.Symbols[name]
		i, ok := g.Node(prims[pi].path)
		if !ok || len(defs) > records.MaxDefiners || !slices.ContainsFunc(defs, func(d records.SymbolRef) bool { return d.Path == prims[pi].path }) {
			return r.s.Paths
		}
		for _, e := range g.Edges[i] {
			nodes[e.To] = true
		}
	}
	out := make([]string, 0, len(nodes))
	for _, i := range slices.Sorted(maps.Keys(nodes)) {
		out = append(out, g.Nodes[i])
	}
	return out
}

// related finds the callers and tests of the primary definitions: the definitions elsewhere whose
// bodies reference them.
func (r *ranker) related(prims []primary, files []RankedFile, top float64) []pack.Candidate {
	if len(prims) == 0 {
		return nil
	}
	names := map[string]int{}
	for i, p := range prims {
		if len(r.s.Symbols[p.def.Name]) <= records.MaxDefiners && len(p.def.Name) > 2 {
			if _, ok := names[p.def.Name]; !ok {
				names[p.def.Name] = i
			}
		}
	}
	type hit struct {
		path string
		def  int
		prim int
	}
	var callers, tests []hit
	seen := map[string]bool{}
	for _, p := range r.referrers(names, prims) {
		rec := r.parsed(p)
		if rec == nil {
			r.leftOut(p, "a referrer the index holds no parse of")
			continue
		}
		for _, ref := range rec.File.References {
			pi, ok := names[ref.Name]
			if !ok || ref.Enclosing < 0 || (p == prims[pi].path) {
				continue
			}
			key := fmt.Sprintf("%s#%d", p, ref.Enclosing)
			if seen[key] {
				continue
			}
			seen[key] = true
			h := hit{path: p, def: ref.Enclosing, prim: pi}
			if records.IsTest(p) {
				tests = append(tests, h)
			} else {
				callers = append(callers, h)
			}
		}
	}
	var out []pack.Candidate
	// Per definition, code before prose (a README's list of thanks names `dump` too), then the files
	// the ranking put higher, then by path.
	fileScore := make(map[string]float64, len(files))
	for _, f := range files {
		fileScore[f.Path] = f.Score
	}
	prose := func(p string) bool { return parse.ProseOrData(p) || parse.Document(p) }
	add := func(hs []hit, limit int, kind, bucket, verb string) {
		sort.SliceStable(hs, func(i, j int) bool {
			a, b := hs[i], hs[j]
			if a.prim != b.prim {
				return a.prim < b.prim
			}
			if pa, pb := prose(a.path), prose(b.path); pa != pb {
				return pb
			}
			return fileScore[a.path] > fileScore[b.path]
		})
		for i, h := range hs {
			if i >= limit {
				break
			}
			rec := r.s.Record(h.path)
			d := rec.File.Definitions[h.def]
			why := []string{fmt.Sprintf("%s `%s`", verb, prims[h.prim].def.Qualified())}
			c := defCandidate(rec, r.lines(h.path), d, top*0.2/(1+float64(i)), why)
			c.Kind, c.Bucket = kind, bucket
			out = append(out, c)
		}
	}
	add(callers, maxCallers, "caller", "callers", "calls")
	add(tests, maxTests, "test", "tests", "tests")
	return out
}
