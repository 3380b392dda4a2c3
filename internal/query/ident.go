package query

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/words"
)

const maxIdentifiers = 40

// The agent noun of a common programming verb: build -> builder names the type that builds.
var agents = map[string]string{
	"build": "builder", "parse": "parser", "load": "loader", "handle": "handler", "write": "writer",
	"read": "reader", "render": "renderer", "format": "formatter", "validate": "validator",
	"convert": "converter", "generate": "generator", "calculate": "calculator", "encode": "encoder",
	"decode": "decoder", "serialize": "serializer", "deserialize": "deserializer", "schedule": "scheduler",
	"execute": "executor", "process": "processor", "run": "runner", "scan": "scanner", "send": "sender",
	"dispatch": "dispatcher", "match": "matcher", "watch": "watcher", "listen": "listener",
	"publish": "publisher", "subscribe": "subscriber", "manage": "manager", "control": "controller",
	"compile": "compiler", "resolve": "resolver", "fetch": "fetcher", "sort": "sorter", "index": "indexer",
	"track": "tracker", "collect": "collector", "report": "reporter", "analyze": "analyzer", "lint": "linter",
	"serve": "server", "route": "router", "transform": "transformer", "import": "importer",
	"export": "exporter", "wrap": "wrapper", "evaluate": "evaluator", "inject": "injector",
	"extract": "extractor", "emit": "emitter", "log": "logger", "print": "printer", "merge": "merger",
	"check": "checker", "install": "installer", "upload": "uploader", "download": "downloader",
	"connect": "connector", "register": "registry", "notify": "notifier", "count": "counter",
	"create": "creator", "update": "updater", "find": "finder", "search": "searcher", "call": "caller",
	"invoke": "invoker", "split": "splitter", "map": "mapper", "reduce": "reducer", "filter": "filter",
	"initialize": "initializer", "init": "initializer", "compare": "comparator", "store": "store",
	"cache": "cache", "monitor": "monitor", "retry": "retrier", "sync": "syncer", "lock": "locker",
	"save": "saver", "delete": "deleter", "insert": "inserter", "apply": "applier", "translate": "translator",
	"iterate": "iterator", "tokenize": "tokenizer", "highlight": "highlighter", "paginate": "paginator",
	"marshal": "marshaler", "unmarshal": "unmarshaler", "provide": "provider", "consume": "consumer",
	"produce": "producer", "open": "opener", "close": "closer", "test": "tester", "hash": "hasher",
}

// Verbs without an agent noun worth guessing.
var plainVerbs = words.Set(`add remove set show hide start stop reset clear refresh move rename copy join enable
disable allow deny skip ignore fix`)

func isVerb(w string) bool { _, ok := agents[w]; return ok || plainVerbs[w] }

type gram struct {
	parts    []string
	score    float64
	first    int
	adjacent bool
	base     bool // the first word was written in its base form (build tree, not builds or retries)
	gerund   bool // the second word was written as a gerund (tree building)
}

// identifierCandidates turns runs of meaningful prose words into the names code would give them:
// "build the tree" -> build_tree, buildTree, BuildTree, TreeBuilder, tree_builder; "size of buffer" ->
// buffer_size. Pairs seen in the title or often come first.
func identifierCandidates(doc *document) []string {
	grams := map[[3]string]*gram{}
	pos := 0
	var ws []clauseWord // reused clause to clause
	note := func(parts []string, weight float64, adjacent, base, gerund bool) {
		var k [3]string
		copy(k[:], parts)
		g := grams[k]
		if g == nil {
			g = &gram{parts: parts, first: pos}
			grams[k] = g
		}
		g.score += weight
		g.adjacent = g.adjacent || adjacent
		g.base = g.base || base
		g.gerund = g.gerund || gerund
	}
	for _, l := range doc.lines {
		if l.code || l.skip || l.head {
			continue
		}
		weight := 1.0
		if l.title {
			weight = 5 // the title says what the issue is about; the body repeats details
		}
		for _, clause := range clauses(l.prose) {
			ws = clauseWords(clause, ws)
			for i, w := range ws {
				pos++
				if w.stem == "" {
					continue
				}
				// the next meaningful word, with at most one stopword between
				j := i + 1
				if j < len(ws) && ws[j].stem == "" && ws[j].raw != "" && j+1 < len(ws) {
					j++
				}
				if j >= len(ws) || ws[j].stem == "" {
					continue
				}
				a, b := w.stem, ws[j].stem
				if a == b {
					continue
				}
				switch {
				case j > i+1 && ws[i+1].raw == "of":
					note([]string{b, a}, weight, true, false, false) // size of buffer -> buffer size
				default:
					note([]string{a, b}, weight, j == i+1, w.raw == a, strings.HasSuffix(ws[j].raw, "ing"))
				}
				if j == i+1 && j+1 < len(ws) && ws[j+1].stem != "" && ws[j+1].stem != b {
					note([]string{a, b, ws[j+1].stem}, weight*0.6, true, false, false)
				}
			}
		}
	}
	list := make([]*gram, 0, len(grams))
	for _, g := range grams {
		if g.adjacent {
			g.score += 0.5
		}
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *gram) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	var out []string
	seen := map[string]bool{}
	emit := func(s string) {
		if len(out) < maxIdentifiers && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, g := range list {
		if len(out) >= maxIdentifiers {
			break
		}
		for _, name := range g.forms() {
			emit(name)
		}
	}
	return out
}

// forms spells the gram's word pair or triple the ways code does.
func (g *gram) forms() []string {
	parts := g.parts
	if len(parts) != 2 {
		return casings(parts)
	}
	a, b := parts[0], parts[1]
	switch {
	case g.base && isVerb(a) && !isVerb(b):
		out := casings(parts)
		if ag, ok := agents[a]; ok {
			out = append(out, pascal([]string{b, ag}), b+"_"+ag)
		}
		return out
	case g.gerund && isVerb(b) && !isVerb(a): // tree building -> build_tree, TreeBuilder
		out := casings([]string{b, a})
		if ag, ok := agents[b]; ok {
			out = append(out, pascal([]string{a, ag}), a+"_"+ag)
		}
		return out
	}
	return casings(parts)
}

func casings(parts []string) []string {
	return []string{strings.Join(parts, "_"), parts[0] + pascal(parts[1:]), pascal(parts)}
}

func pascal(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]))
			b.WriteString(p[1:])
		}
	}
	return b.String()
}

type clauseWord struct {
	raw  string // lower case
	stem string // "" for a stopword or a word that is not a plain word
}

// clauses splits prose at punctuation; inline code (a 0 byte) also ends a clause.
func clauses(prose string) []string {
	return strings.FieldsFunc(prose, func(r rune) bool {
		switch r {
		case 0, '.', ',', ';', ':', '!', '?', '(', ')', '[', ']', '{', '}', '"', '\'', '`', '<', '>', '|', '=', '*', '#', '—', '–':
			return true
		}
		return false
	})
}

// clauseWords keeps plain words; a name (RuleIndex, rule_index, os.path) breaks the run with a blank.
func clauseWords(clause string, out []clauseWord) []clauseWord {
	out = out[:0]
	for _, f := range strings.Fields(clause) {
		for _, w := range strings.Split(f, "-") {
			if w == "" {
				continue
			}
			if !plainWord(w) {
				out = append(out, clauseWord{})
				continue
			}
			lw := strings.ToLower(w)
			stem := words.Normalize(lw)
			if chatter[stem] || adverb(lw) {
				stem = ""
			}
			out = append(out, clauseWord{raw: lw, stem: stem})
		}
	}
	return out
}

var notAdverbs = words.Set(`apply reply supply family assembly anomaly multiply comply rely butterfly monopoly poly
italy july only`)

// adverb: properly, infinitely, incorrectly describe behaviour, they do not name code.
func adverb(w string) bool {
	return len(w) > 5 && strings.HasSuffix(w, "ly") && !notAdverbs[w]
}

// plainWord: letters only, lower case or capitalised (a sentence start), not CamelCase or an acronym.
func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
		case c >= 'A' && c <= 'Z' && i == 0:
		default:
			return false
		}
	}
	return true
}

// HasName says whether text holds name as a whole identifier: no letter, digit or underscore on either
// side of it.
func HasName(text, name string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], name)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(name)
		if (i == 0 || !identByte(text[i-1])) && (j == len(text) || !identByte(text[j])) {
			return true
		}
		off = i + 1
	}
}

func identByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
