// Package words turns identifiers, paths and prose into the normalised terms that every other part of
// the index compares: split on case and separators, lower-cased, lightly stemmed, noise removed.
package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Split breaks an identifier or a run of text into its lower-case parts:
// "RuleIndex" -> rule, index; "quality_profile" -> quality, profile; "HTTPServer2" -> http, server, 2;
// "src/rule/RuleIndex.java" -> src, rule, rule, index, java.
func Split(s string) []string {
	var out []string
	EachPart(unsafe.Slice(unsafe.StringData(s), len(s)), func(part []byte) { out = append(out, string(part)) })
	return out
}

// EachPart gives the parts Split would of b, in order, without making a string of each: part is only
// valid during the call. Callers that look parts up (m[string(part)] makes no string) split a whole
// file's lines this way.
func EachPart(b []byte, part func([]byte)) {
	for i := 0; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			var runeBuf [256]rune // most identifiers and lines fit on the stack
			split(append(runeBuf[:0], []rune(string(b))...), part)
			return
		}
	}
	// ASCII, as nearly all code is: its bytes are its runes, read in place (never written)
	split(b, part)
}

func split[T byte | rune](runes []T, part func([]byte)) {
	var wordBuf [64]byte // the current word on the stack, lower-cased as it grows
	word := wordBuf[:0]
	flush := func() {
		if len(word) > 0 {
			part(word)
			word = word[:0]
		}
	}
	var prev rune // the current word's last rune
	for i, c := range runes {
		r := rune(c)
		switch {
		case unicode.IsLetter(r):
			if len(word) > 0 {
				switch {
				case unicode.IsDigit(prev):
					flush()
				case unicode.IsUpper(r) && unicode.IsLower(prev):
					flush() // ruleIndex
				case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(rune(runes[i+1])) &&
					!pluralAcronym(runes, i+1):
					flush() // HTTPServer: the S starts a new word
				}
				if r == 's' && pluralAcronym(runes, i) {
					continue // PRs, URLs: the plural of the acronym is the acronym
				}
			}
			word = utf8.AppendRune(word, unicode.ToLower(r))
			prev = r
		case unicode.IsDigit(r):
			if len(word) > 0 && !unicode.IsDigit(prev) {
				flush()
			}
			word = utf8.AppendRune(word, r)
			prev = r
		default:
			flush()
		}
	}
	flush()
}

// pluralAcronym reports whether the s at i ends a word of two or more capitals (PRs, IDs, URLs).
func pluralAcronym[T byte | rune](runes []T, i int) bool {
	if runes[i] != 's' || i < 2 || !unicode.IsUpper(rune(runes[i-1])) || !unicode.IsUpper(rune(runes[i-2])) {
		return false
	}
	return i+1 == len(runes) || !unicode.IsLower(rune(runes[i+1])) && !unicode.IsDigit(rune(runes[i+1]))
}

// Terms splits s and keeps the parts that carry meaning, stemmed: no stopwords, no language keywords,
// no numbers, nothing shorter than two letters.
func Terms(s string) []string {
	parts := Split(s)
	out := parts[:0]
	for _, p := range parts {
		if t := Normalize(p); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// Normalize returns the stem of one lower-case word, or "" when the word carries no meaning
// (a stopword, a keyword, a number, a single letter).
func Normalize(w string) string {
	if utf8.RuneCountInString(w) < 2 || isNumber(w) || Stopword(w) {
		return ""
	}
	return Stem(w)
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Stem is a light, conservative stemmer: plurals, the common verb endings and the -ize family only, so
// that the stem stays a readable word ("profiles" -> profile, "parsing" -> parse, "indexes" -> index,
// "serialization" -> serialize).
func Stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	return derive(inflect(w))
}

// derive joins the nouns of an -ize verb to it: serialization, serializer -> serialize.
func derive(w string) string {
	n := len(w)
	switch {
	case n > 8 && (strings.HasSuffix(w, "ization") || strings.HasSuffix(w, "isation")):
		return w[:n-5] + "e"
	case n > 6 && (strings.HasSuffix(w, "izer") || strings.HasSuffix(w, "iser")):
		return w[:n-1]
	}
	return w
}

func inflect(w string) string {
	n := len(w)
	if n <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && n > 4:
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "zzes"):
		return w[:n-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "'s"):
		return w[:n-1]
	case strings.HasSuffix(w, "ing") && n > 5:
		return undouble(w[:n-3])
	case strings.HasSuffix(w, "ed") && n > 4 && !strings.HasSuffix(w, "eed"):
		return undouble(w[:n-2])
	}
	return w
}

// undouble repairs what stripping -ing/-ed leaves: "runn" -> run, "pars" -> parse, "creat" -> create,
// "defin" -> define, "involv" -> involve; short stems like "add" stay as they are.
func undouble(s string) string {
	n := len(s)
	if n >= 4 && s[n-1] == s[n-2] && !strings.ContainsRune("lsz", rune(s[n-1])) && !isVowel(s[n-1]) {
		return s[:n-1]
	}
	if n < 3 || isVowel(s[n-1]) {
		return s
	}
	last, prev, before := s[n-1], s[n-2], s[n-3]
	switch {
	case isVowel(prev) && !isVowel(before) && strings.IndexByte("tsvcgzm", last) >= 0:
		return s + "e" // pars -> parse, creat -> create, nam -> name; not "open" -> opene
	case last == 'n' && prev == 'i' && !isVowel(before):
		return s + "e" // defin -> define, combin -> combine
	case last == 'v' && (prev == 'l' || prev == 'r'):
		return s + "e" // involv -> involve, resolv -> resolve, serv -> serve
	case last == 'l' && prev == 'u' && !isVowel(before):
		return s + "e" // schedul -> schedule, modul -> module
	}
	return s
}

func isVowel(b byte) bool { return strings.IndexByte("aeiou", b) >= 0 }

var irregular = map[string]string{
	"children": "child", "indices": "index", "matrices": "matrix", "vertices": "vertex", "data": "data",
	"analyses": "analysis", "aliases": "alias", "statuses": "status", "caches": "cache", "classes": "class",
	"processes": "process", "addresses": "address", "responses": "response", "databases": "database",
	"bytes": "byte", "types": "type", "files": "file", "rules": "rule", "profiles": "profile",
	"messages": "message", "packages": "package", "images": "image", "pages": "page", "values": "value",
	"releases": "release", "nodes": "node", "modules": "module", "codes": "code", "names": "name",
	"using": "use", "used": "use", "uses": "use", "making": "make", "made": "make", "written": "write",
	"writing": "write", "wrote": "write", "reading": "read", "running": "run", "ran": "run", "getting": "get",
	"setting": "set", "found": "find", "built": "build", "building": "build", "sent": "send", "caching": "cache",
	"parsing": "parse", "parsed": "parse", "parses": "parse", "encoding": "encode", "encoded": "encode",
	"decoding": "decode", "decoded": "decode", "closing": "close", "closed": "close", "saving": "save",
	"saved": "save", "creating": "create", "created": "create", "updating": "update", "updated": "update",
	"deleting": "delete", "deleted": "delete", "handling": "handle", "handled": "handle", "merging": "merge",
	"merged": "merge", "changing": "change", "changed": "change", "matching": "match", "matched": "match",
	"matches": "match", "searching": "search", "searched": "search", "indexing": "index", "indexed": "index",
	"printing": "print", "printed": "print", "string": "string", "thing": "thing", "everything": "everything",
	"nothing": "nothing", "something": "something", "during": "during", "ping": "ping", "bing": "bing",
	"ring": "ring", "king": "king", "spring": "spring", "logging": "log", "logged": "log", "config": "config",
	"settings": "setting", "options": "option", "arguments": "argument", "args": "arg", "params": "param",
	"status": "status", "less": "less", "process": "process", "access": "access", "class": "class",
	"address": "address", "alias": "alias", "bus": "bus", "canvas": "canvas", "axis": "axis", "series": "series",
	"shared": "share", "sharing": "share", "stored": "store", "storing": "store", "compared": "compare",
	"comparing": "compare", "declared": "declare", "declaring": "declare", "prepared": "prepare",
	"preparing": "prepare", "ignored": "ignore", "ignoring": "ignore",
	"configured": "configure", "configuring": "configure", "restored": "restore",
	"restoring": "restore", "scored": "score", "scoring": "score", "captured": "capture", "capturing": "capture",
	"species": "species", "news": "news", "has": "has", "was": "was", "macos": "macos", "chaos": "chaos", "ios": "ios", "does": "do", "goes": "go",
}

// Stopword reports whether a lower-case word is an English function word or a keyword shared by the
// common programming languages: words that appear everywhere and name nothing.
func Stopword(w string) bool { return stop[w] }

var stop = Set(`a an the and or but if then else when while for to of in on at by with from as is are was were be been
being it its this that these those there here we you he she they i me my our your their them us do does did done
not no yes so than too very can could should would will shall may might must have has had having about above
after again against all any because before below between both each few further how into just more most much
nor now only other out over own same some such through under until up what where which who whom why also etc
eg ie via per get gets got like want need needs needed using use used make makes seem seems please
e g one two way think know see still even though however instead already sure new old
func function def fn fun var let const return returns static public private protected final void null nil none
true false self this super class struct interface impl import package module namespace include require
int integer float double bool boolean str string char byte long short unsigned signed new try catch
throw throws raise except finally async await yield lambda case switch break continue goto
go java py js ts rs cpp cc hpp rb php kt swift scala sh md txt json yaml yml toml xml html css`)

// Set is the set of the words of s, separated by white space: a list written as one string.
func Set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Common tells a stemmed word that is a common verb or adjective of issues and code (fail, contain,
// empty, print) or a noun every program uses for its plumbing (name, key, path): it may be part of an
// identifier but names no concept of a project on its own.
func Common(stem string) bool { return common[stem] }

var common = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`fail failure contain disable enable empty output input print show hide display
		render format parse valid invalid miss missing wrong correct right new old default custom simple single
		multiple first last next previous prev current full partial short long large small big little fast slow
		true false allow deny support use used using work ignore skip match matching include exclude sort order
		return returned throw raise catch try break fix fixed broken bad good same different other another
		possible available enabled disabled optional required need want expect expected actual unexpected
		happen give take keep send receive see look change changed add added remove removed
		update updated already still instead only also just like via when while after before within without
		upper lower inner outer top bottom left begin end done finish finished complete ready pending
		exist exists known unknown special general global local public private internal external
		raw real fake none all any some each every many more most less least much few
		name key value file path dir field text time date code body content line column row node entry attr
		attribute flag mode state status id kind`) {
		m[Stem(w)] = true
		m[w] = true
	}
	return m
}()

// Clip cuts s to at most n bytes, on a character's boundary.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	// do not leave half a UTF-8 sequence behind
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}
