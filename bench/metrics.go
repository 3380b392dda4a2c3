package bench

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ctxmap/ctxmap/index"
)

// Metric names, as the benchmark's README spells them. The code_ metrics score against the gold files
// that are code (index.IsCode): change logs, release notes, lock files, manifests and docs left out.
const (
	Hit1           = "hit@1"
	Hit3           = "hit@3"
	Hit5           = "hit@5"
	Hit10          = "hit@10"
	Recall5        = "recall@5"
	Recall10       = "recall@10"
	PackRecall     = "pack_recall"
	PackAll        = "pack_all"
	SymbolRecall   = "symbol_recall"
	SymbolCoverage = "symbol_coverage" // gold functions whose lines the pack shows
	SymbolFile     = "symbol_file"     // gold functions whose file is in the pack, shown or not
	WrongFileRate  = "wrong_file_rate"
	Tokens         = "tokens"
	PackFileCount  = "pack_files"
	Efficiency     = "efficiency"    // symbol_coverage per 1,000 pack tokens
	RecallPer1K    = "recall_per_1k" // pack_recall per 1,000 pack tokens
	CodeHit1       = "code_hit@1"
	CodeHit5       = "code_hit@5"
	CodePackRecall = "code_pack_recall"
	CodePackAll    = "code_pack_all"
	CodeNamedAll   = "code_named_all" // every code gold file is in the pack as code or as an outline
	DefFirst       = "def_first"      // of the gold files the pack shows, the share whose first item is a changed definition
	Brier          = "brier"          // mean squared error of the files' probabilities, where there are some
	LatencyP50     = "latency_p50_ms"
	LatencyP95     = "latency_p95_ms"
)

// Columns is the order of the metrics in tables.
var Columns = []string{Hit1, Hit5, CodeHit1, CodeHit5, Recall10, PackRecall, PackAll, CodePackAll, CodeNamedAll, SymbolRecall,
	SymbolCoverage, SymbolFile, DefFirst, LineRecall, HunkAll, CutLoss, FileShown, LineRec100, LineRec300, LineRec500, FirstUseful, LinePrecision, WrongFileRate, PackFileCount, Tokens, Efficiency,
	LineEfficiency, Brier}

// FileMetrics scores a ranked list of files: hit@k (every gold file among the first k) and recall@k
// (the share of gold files among the first k). Gold must not be empty.
func FileMetrics(ranked, gold []string) map[string]float64 {
	gold = distinct(gold)
	m := map[string]float64{}
	for _, k := range []int{1, 3, 5, 10} {
		found := foundIn(head(ranked, k), gold)
		m["hit@"+strconv.Itoa(k)] = boolf(found == len(gold))
		if k == 5 || k == 10 {
			m["recall@"+strconv.Itoa(k)] = float64(found) / float64(len(gold))
		}
	}
	return m
}

// Definitions returns the definitions of a file, for placing gold functions in a pack's line ranges.
type Definitions func(path string) []index.Definition

// PackMetrics scores a pack's items: gold files present, gold functions shown, files that are not gold,
// tokens and recall per 1,000 tokens. symbol_recall is left out when there are no gold functions,
// wrong_file_rate when the pack has no files.
func PackMetrics(items []index.Item, tokens int, goldFiles, goldSymbols []string, defs Definitions) map[string]float64 {
	goldFiles = distinct(goldFiles)
	m := map[string]float64{}
	files := packFiles(items)
	found := foundIn(files, goldFiles)
	m[PackRecall] = float64(found) / float64(len(goldFiles))
	m[PackAll] = boolf(found == len(goldFiles))
	if len(files) > 0 {
		m[WrongFileRate] = float64(len(files)-foundIn(goldFiles, files)) / float64(len(files))
	}
	if len(goldSymbols) > 0 {
		goldSymbols = distinct(goldSymbols)
		n := 0
		for _, g := range goldSymbols {
			if SymbolShown(items, g, defs) {
				n++
			}
		}
		m[SymbolRecall] = float64(n) / float64(len(goldSymbols))
	}
	m[Tokens] = float64(tokens)
	m[PackFileCount] = float64(len(files))
	if tokens > 0 {
		m[RecallPer1K] = m[PackRecall] * 1000 / float64(tokens)
	}
	if len(goldSymbols) > 0 {
		n := 0
		for _, g := range goldSymbols {
			if SymbolCovered(items, g, defs) {
				n++
			}
		}
		m[SymbolCoverage] = float64(n) / float64(len(goldSymbols))
		n = 0
		for _, g := range goldSymbols {
			if path, _, _ := strings.Cut(g, "::"); slices.Contains(files, path) {
				n++
			}
		}
		m[SymbolFile] = float64(n) / float64(len(goldSymbols))
		if first, ok := defFirst(items, goldSymbols, defs); ok {
			m[DefFirst] = first
		}
		if tokens > 0 {
			m[Efficiency] = m[SymbolCoverage] * 1000 / float64(tokens)
		}
	}
	return m
}

// SymbolCovered tells whether a gold function's lines are in the pack: an item that shows code (a
// body, whole or cut) spans the line where the function is defined, as the function itself or inside
// a larger item. A card does not count.
func SymbolCovered(items []index.Item, gold string, defs Definitions) bool {
	path, name, ok := strings.Cut(gold, "::")
	if !ok || name == "" || defs == nil {
		return false
	}
	lines := definitionLines(defs(path), strings.ReplaceAll(name, "::", "."))
	for _, it := range items {
		if it.Path != path || it.Size != "full" && it.Size != "truncated" {
			continue
		}
		for _, l := range lines {
			if it.StartLine > 0 && it.StartLine <= l && l <= it.EndLine {
				return true
			}
		}
	}
	return false
}

// SymbolShown tells whether a gold function (path::Name, Name possibly Class.method or Class) is in the
// pack: an item of that path names it (its symbol is the name or ends in "."+name), or its line range
// holds the line where the function is defined.
func SymbolShown(items []index.Item, gold string, defs Definitions) bool {
	path, name, ok := strings.Cut(gold, "::")
	if !ok || name == "" {
		return false
	}
	name = strings.ReplaceAll(name, "::", ".")
	var lines []int
	looked := false
	for _, it := range items {
		if it.Path != path {
			continue
		}
		if it.Symbol != "" && (it.Symbol == name || strings.HasSuffix(it.Symbol, "."+name)) {
			return true
		}
		if !looked {
			looked = true
			if defs != nil {
				lines = definitionLines(defs(path), name)
			}
		}
		for _, l := range lines {
			if it.StartLine > 0 && it.StartLine <= l && l <= it.EndLine {
				return true
			}
		}
	}
	return false
}

// definitionLines are the start lines of a file's definitions named by a dotted name: the last part is
// the definition's name and the one before it, when there is one, its parent. A parser that does not
// record the parent still places the definition by its name alone.
func definitionLines(defs []index.Definition, name string) []int {
	parts := strings.Split(name, ".")
	last := parts[len(parts)-1]
	parent := ""
	if len(parts) > 1 {
		parent = parts[len(parts)-2]
	}
	var exact, byName []int
	for _, d := range defs {
		if d.Name != last {
			continue
		}
		byName = append(byName, d.StartLine)
		if parent == "" || d.Parent == parent {
			exact = append(exact, d.StartLine)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return byName
}

// defFirst is, over the gold functions' files that the pack shows as code, the share whose first item
// is one of the file's changed definitions (by name, or a body holding one's line; a card, which shows
// a class's signature and members but not their code, by name only); false when the pack
// shows none of them.
func defFirst(items []index.Item, goldSymbols []string, defs Definitions) (float64, bool) {
	byFile := map[string][]string{}
	var files []string
	for _, g := range goldSymbols {
		p, _, _ := strings.Cut(g, "::")
		if byFile[p] == nil {
			files = append(files, p)
		}
		byFile[p] = append(byFile[p], g)
	}
	shown, first := 0, 0
	for _, p := range files {
		i := slices.IndexFunc(items, func(it index.Item) bool { return it.Path == p && it.Kind != OutlineKind })
		if i < 0 {
			continue
		}
		shown++
		it, lines := items[i:i+1], defs
		if it[0].Size != "full" && it[0].Size != "truncated" {
			lines = nil // a card is its own definition's, not its members': it counts by name only
		}
		for _, g := range byFile[p] {
			if SymbolShown(it, g, lines) {
				first++
				break
			}
		}
	}
	if shown == 0 {
		return 0, false
	}
	return float64(first) / float64(shown), true
}

// OutlineKind is the kind of an item that names a file and its signatures without showing its code.
const OutlineKind = "outline"

// namedFiles are the distinct paths of a pack's items, outlines included.
func namedFiles(items []index.Item) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if it.Path != "" && !seen[it.Path] {
			seen[it.Path] = true
			out = append(out, it.Path)
		}
	}
	return out
}

// packFiles are the distinct paths of a pack's items that show code, in order: an outline names a
// file without showing it.
func packFiles(items []index.Item) []string {
	seen := map[string]bool{}
	var out []string
	for _, it := range items {
		if it.Path != "" && it.Kind != OutlineKind && !seen[it.Path] {
			seen[it.Path] = true
			out = append(out, it.Path)
		}
	}
	return out
}

// foundIn counts the distinct members of want that are in have.
func foundIn(have, want []string) int {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	n := 0
	seen := map[string]bool{}
	for _, w := range want {
		if set[w] && !seen[w] {
			n++
		}
		seen[w] = true
	}
	return n
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// distinct drops repeated entries, keeping the first.
func distinct(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
