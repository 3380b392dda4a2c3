package query

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/words"
)

const (
	maxAnchors     = 200
	maxCodeAnchors = 60
)

// When one name appears in several forms, the most explicit one is kept (at its first position).
var kindRank = map[string]int{
	KindCode: 1, KindCamel: 2, KindSnake: 2, KindDotted: 3, KindCall: 4, KindBacktick: 5, KindMacro: 5, KindFlag: 5, KindPath: 6, KindFileLine: 7,
}

// mode is where a token was read: prose, a fenced code block, or inline code.
type mode int

const (
	inProse mode = iota
	inCode
	inSpan
)

func (m mode) kind(k string) string {
	switch {
	case k == KindPath || k == KindFileLine:
		return k
	case m == inCode:
		return KindCode
	case m == inSpan:
		return KindBacktick
	}
	return k
}

type anchors struct {
	list []Anchor
	at   map[string]int
	code int  // anchors taken from code blocks, capped: a pasted log must not crowd out the prose
	in   mode // where the tokens being read come from
}

func findAnchors(doc *document) []Anchor {
	s := &anchors{at: map[string]int{}}
	for _, l := range doc.lines {
		switch {
		case l.frame || l.fence || l.skip:
		case l.diff:
			s.diffLine(l.raw)
		case l.code:
			s.scan(l.raw, inCode, nil)
		default:
			s.in = inProse
			for _, a := range l.links {
				s.add(a)
			}
			s.scan(l.prose, inProse, l.spans)
		}
	}
	return s.list
}

// diffLine reads a line of a quoted diff: the function a hunk header names, the file a header names,
// the names of the lines added, removed and around them.
func (s *anchors) diffLine(raw string) {
	s.in = inCode
	if fn := hunkFunction(raw); fn != "" {
		s.add(Anchor{Text: fn, Kind: KindCall})
		return
	}
	if p := diffPath(raw); p != "" {
		if isPathLike(p, false) || isFileName(p) {
			s.add(Anchor{Text: p, Kind: KindPath, Path: p})
		}
		return
	}
	if strings.HasPrefix(raw, "diff --git ") || strings.HasPrefix(raw, "index ") {
		return
	}
	if raw != "" && (raw[0] == '+' || raw[0] == '-' || raw[0] == ' ') {
		raw = raw[1:]
	}
	s.scan(raw, inCode, nil)
}

func (s *anchors) add(a Anchor) {
	if a.Text == "" || words.Stopword(strings.ToLower(a.Text)) {
		return // a typo like WIth, or a keyword in backticks
	}
	if i, ok := s.at[a.Text]; ok {
		if kindRank[a.Kind] > kindRank[s.list[i].Kind] {
			s.list[i] = a
		}
		return
	}
	if len(s.list) >= maxAnchors {
		return
	}
	if s.in == inCode {
		if s.code >= maxCodeAnchors {
			return
		}
		s.code++
	}
	s.at[a.Text] = len(s.list)
	s.list = append(s.list, a)
}

// scan walks the tokens of a line; a 0 byte in prose stands for the next inline code span.
func (s *anchors) scan(text string, m mode, spans []string) {
	s.in = m
	prev := ""
	for i := 0; i < len(text); {
		c := text[i]
		if c == 0 {
			if len(spans) > 0 {
				s.span(spans[0])
				spans = spans[1:]
				s.in = m
			}
			i++
			prev = ""
			continue
		}
		if !tokenRune(text, i) {
			_, n := utf8.DecodeRuneInString(text[i:])
			i += n
			if c != ' ' && c != '\t' {
				prev = ""
			}
			continue
		}
		j := i
		for j < len(text) && tokenRune(text, j) {
			_, n := utf8.DecodeRuneInString(text[j:])
			j += n
		}
		s.token(text[i:j], text[j:], m, prev)
		prev = text[i:j]
		i = j
	}
}

func tokenRune(s string, i int) bool {
	c := s[i]
	if c < utf8.RuneSelf {
		return isAlnum(c) || strings.IndexByte("_$./\\:-~@", c) >= 0
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !unspacedRune(r) // 调用TokenValidator: a name in Chinese text
}

// token classifies one run of name characters; rest is the text after it (for "name(").
func (s *anchors) token(tok, rest string, m mode, prev string) {
	if strings.HasPrefix(tok, "-") && len(tok) > 1 && (tok[1] == '-' || isAlnum(tok[1])) {
		if flag := strings.TrimRight(tok, ".:,"); m != inCode && isFlag(flag) {
			s.add(Anchor{Text: flag, Kind: KindFlag}) // a command line in a code block is how to reproduce, not what is asked
		}
		return
	}
	if macro(tok, rest) {
		s.add(Anchor{Text: tok, Kind: KindMacro})
		return
	}
	for len(tok) > 0 && strings.IndexByte(".:@\\", tok[0]) >= 0 && !strings.HasPrefix(tok, "./") && !strings.HasPrefix(tok, "../") {
		tok = tok[1:]
	}
	trailingSlash := false
	for len(tok) > 0 && strings.IndexByte(".:-@,\\/", tok[len(tok)-1]) >= 0 {
		trailingSlash = trailingSlash || tok[len(tok)-1] == '/'
		tok = tok[:len(tok)-1]
	}
	if tok == "" || !hasLetter(tok) || strings.Contains(tok, "://") {
		return
	}
	if at := strings.IndexByte(tok, '@'); at >= 0 && strings.Contains(tok[at:], ".") && !strings.ContainsAny(tok, "/\\") {
		return // an e-mail address
	}
	if strings.IndexByte(tok, ':') >= 0 {
		if path, line, ok := fileLine(tok); ok {
			s.add(Anchor{Text: tok, Kind: KindFileLine, Path: path, Line: line})
			return
		}
		if !strings.Contains(tok, "::") {
			parts := strings.Split(tok, ":")
			for k, p := range parts {
				r := ""
				if k == len(parts)-1 {
					r = rest
				}
				s.token(p, r, m, prev)
			}
			return
		}
	}
	if strings.ContainsAny(tok, "/\\") {
		if goQualified(tok) {
			s.add(Anchor{Text: tok, Kind: m.kind(KindDotted)})
			return
		}
		if isPathLike(tok, trailingSlash) {
			if trailingSlash {
				tok += "/"
			}
			s.add(Anchor{Text: tok, Kind: KindPath, Path: tok})
			return
		}
		if strings.IndexByte(tok, '\\') < 0 {
			for _, p := range strings.Split(tok, "/") { // ObjectMapper/JsonFactory
				s.token(p, "", m, "")
			}
		}
		return
	}
	if strings.HasPrefix(rest, "(") && isCallName(tok) && !plural(rest) && !noise(tok) {
		s.add(Anchor{Text: tok, Kind: m.kind(KindCall)})
		return
	}
	if isFileName(tok) {
		s.add(Anchor{Text: tok, Kind: KindPath, Path: tok})
		return
	}
	if strings.Contains(tok, ".") || strings.Contains(tok, "::") {
		if isDotted(tok) {
			s.add(Anchor{Text: tok, Kind: m.kind(KindDotted)})
		}
		return
	}
	if strings.Contains(tok, "-") {
		if m == inCode {
			for _, p := range strings.Split(tok, "-") { // a - b
				s.token(p, "", m, "")
			}
		}
		return
	}
	switch {
	case isCamel(tok):
		s.add(Anchor{Text: tok, Kind: m.kind(KindCamel)})
	case isSnake(tok, m != inProse):
		s.add(Anchor{Text: tok, Kind: m.kind(KindSnake)})
	case m != inProse && defKeyword[prev] && isIdent(tok) && !noise(tok):
		s.add(Anchor{Text: tok, Kind: m.kind(KindCode)})
	}
}

// span reads the contents of inline code: one name is an anchor whatever its shape; code with
// spaces gives the names code would.
func (s *anchors) span(c string) {
	s.in = inSpan
	c = strings.TrimSpace(c)
	if c == "" {
		return
	}
	if strings.ContainsAny(c, " \t") {
		if !isMessage(c) {
			s.scan(c, inSpan, nil)
		}
		return
	}
	if open := strings.IndexByte(c, '('); open > 0 && strings.HasSuffix(c, ")") {
		c = c[:open] // foo(x, y)
	}
	if lt := strings.IndexByte(c, '<'); lt > 0 {
		c = c[:lt] // std::vector<int>
	}
	if name, ok := strings.CutSuffix(c, "!"); ok && macro(name, "!") {
		s.add(Anchor{Text: name, Kind: KindMacro})
		return
	}
	c = strings.TrimRight(c, "!?;,:")
	c = strings.TrimLeft(c, "@.")
	switch {
	case c == "" || !hasLetter(c):
	case strings.HasPrefix(c, "-"):
		if flag, _, _ := strings.Cut(c, "="); isFlag(flag) {
			s.add(Anchor{Text: flag, Kind: KindFlag}) // --max-count
		}
	case strings.IndexByte(c, ':') >= 0 && !strings.Contains(c, "::"):
		if path, line, ok := fileLine(c); ok {
			s.add(Anchor{Text: c, Kind: KindFileLine, Path: path, Line: line})
		}
	case goQualified(c):
		s.add(Anchor{Text: c, Kind: KindBacktick})
	case strings.ContainsAny(c, "/\\"):
		if isPathLike(c, strings.HasSuffix(c, "/")) {
			s.add(Anchor{Text: c, Kind: KindPath, Path: c})
		}
	case isFileName(c):
		s.add(Anchor{Text: c, Kind: KindPath, Path: c})
	case len(c) < 2:
	case isDotted(c) || isIdent(c) && !words.Stopword(strings.ToLower(c)) || isKebab(c):
		s.add(Anchor{Text: c, Kind: KindBacktick})
	}
}

// goQualified tells a Go name qualified by its package's import path: example.com/app/pkg/a/view.run,
// github.com/x/y.(*T).M; not a file (example.com/app/view.go) or a host alone.
func goQualified(tok string) bool {
	first, _, _ := strings.Cut(tok, "/")
	slash := strings.LastIndexByte(tok, '/')
	if slash < 0 || !strings.Contains(first, ".") || strings.ContainsAny(tok, "\\:") {
		return false
	}
	last := tok[slash+1:]
	dot := strings.IndexByte(last, '.')
	if dot <= 0 || isFileName(last) {
		return false
	}
	name := strings.NewReplacer("(*", "", "(", "", ")", "", ".", "").Replace(last[dot+1:])
	return isIdent(name) && isIdent(last[:dot])
}

// macro tells a macro's name written with its bang (ensure_len!, vec_of!(...)): a lower-case name of
// three letters or more, the bang right after it, and no "!=".
func macro(tok, rest string) bool {
	if !strings.HasPrefix(rest, "!") || strings.HasPrefix(rest, "!=") || len(tok) < 3 || !isIdent(tok) || codeNoise[tok+"!"] {
		return false
	}
	return tok[0] >= 'a' && tok[0] <= 'z' || tok[0] == '_'
}

// isFlag tells a command-line flag: --max-count, --dry-run, -s; not "--" or a negative number.
func isFlag(tok string) bool {
	name, long := strings.CutPrefix(tok, "--")
	if !long {
		name = strings.TrimPrefix(tok, "-")
		return len(name) == 1 && (name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z')
	}
	return letters(name) >= 2 && len(name) <= 40 && (isIdent(name) || isKebab(name)) && name[0] != '-'
}

// fileLine reads path:line and path:line:col, where path looks like a file.
func fileLine(tok string) (string, int, bool) {
	path, line := splitLocation(tok)
	if path == "" || line <= 0 {
		return "", 0, false
	}
	if !strings.ContainsAny(path, "/\\") && !isFileName(path) {
		return "", 0, false // localhost:8080, 127.0.0.1:80
	}
	if strings.ContainsAny(path, "/\\") && !isPathLike(path, false) && !isFileName(path[strings.LastIndexAny(path, "/\\")+1:]) {
		return "", 0, false
	}
	return path, line, true
}

var knownDirs = words.Set(`src lib libs pkg cmd internal test tests testing spec specs app apps docs doc include bin
scripts script tools api core utils util server client web packages modules vendor plugins plugin config configs
package module component helpers helper models model views view controllers services handlers
components examples example build dist target static public assets templates resources main java python
crates runtime sdk ext extensions contrib benches benchmarks fixtures testdata`)

// isPathLike decides whether a token with a slash is a path rather than "and/or" or "stars/other".
func isPathLike(tok string, trailingSlash bool) bool {
	t := strings.ReplaceAll(tok, "\\", "/")
	if len(t) > 1 && t[1] == ':' { // C:/Users/...
		t = t[2:]
	}
	if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") || strings.HasPrefix(t, "~/") {
		return hasLetter(t)
	}
	var segs []string
	for _, seg := range strings.Split(t, "/") {
		if seg == "" {
			continue
		}
		for _, r := range seg {
			if !(r < utf8.RuneSelf && (isAlnum(byte(r)) || strings.ContainsRune("_.-@+~$", r)) || unicode.IsLetter(r)) {
				return false
			}
		}
		segs = append(segs, seg)
	}
	switch {
	case len(segs) == 0:
		return false
	case isFileName(segs[len(segs)-1]) || hasExt(segs[len(segs)-1]) && len(segs) >= 2:
		return true
	case strings.HasPrefix(t, "/") && len(segs) >= 2:
		return true
	}
	words := 0 // Title-case or upper-case words: Unix/Linux/Mac, YYYY/MM/DD, America/New_York
	for _, seg := range segs {
		if seg[0] >= 'A' && seg[0] <= 'Z' {
			words++
		}
	}
	if 2*words > len(segs) {
		return false
	}
	if len(segs) >= 3 {
		return true
	}
	for _, seg := range segs {
		if knownDirs[seg] || strings.Contains(seg, ".") {
			return len(segs) >= 2 || trailingSlash
		}
	}
	return false
}

var sourceExts = words.Set(`go py pyi pyx pxd js jsx mjs cjs ts tsx mts cts rs java kt kts scala groovy gradle c h cc cpp
cxx hpp hh hxx ipp inl cs fs rb php swift m mm lua sh bash zsh ps1 pl pm r jl ex exs erl hrl hs ml mli clj
cljs dart vue svelte sql proto graphql gql yaml yml toml json jsonc xml html htm css scss sass less md rst
txt cfg ini conf properties env lock mod sum tf hcl nix cmake mk y l po pot ipynb csv tsv j2 jinja tmpl tpl`)

// Product names that end like a file.
var productNames = words.Set(`node.js vue.js next.js nuxt.js three.js d3.js chart.js express.js react.js angular.js
moment.js day.js ember.js backbone.js socket.io deno.js p5.js`)

// isFileName reports whether a token without slashes is a file name with a known extension.
func isFileName(tok string) bool {
	dot := strings.LastIndexByte(tok, '.')
	if dot <= 0 || dot == len(tok)-1 {
		return false
	}
	base, ext := tok[:dot], strings.ToLower(tok[dot+1:])
	if !sourceExts[ext] || !hasLetterOrDigit(base) || len(ext) == 1 && len(base) < 2 {
		return false
	}
	if productNames[strings.ToLower(tok)] {
		return false
	}
	first, _, _ := strings.Cut(base, ".")
	return first != "self" && first != "this" && first != "cls"
}

// hasExt reports a name.ext shape with a short alphabetic extension (for files in a path).
func hasExt(seg string) bool {
	dot := strings.LastIndexByte(seg, '.')
	if dot <= 0 || len(seg)-dot-1 > 8 || dot == len(seg)-1 {
		return false
	}
	for _, r := range seg[dot+1:] {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

var hostSuffixes = words.Set(`com org net edu gov info uk de fr jp cn ru us`)

var abbreviations = words.Set(`e.g i.e a.k.a et.al n.b p.s vs.`)

// isDotted accepts qualified names (os.path.join, pkg.Func, crate::mod::f), not versions, hosts or
// abbreviations.
func isDotted(tok string) bool {
	if abbreviations[strings.ToLower(tok)] || productNames[strings.ToLower(tok)] {
		return false
	}
	segs := strings.FieldsFunc(strings.ReplaceAll(tok, "::", "."), func(r rune) bool { return r == '.' })
	if len(segs) < 2 || strings.Contains(tok, "..") {
		return false
	}
	long := false
	for _, seg := range segs {
		if !isIdent(seg) || 2*digits(seg) > len(seg) {
			return false // versions, hashes
		}
		long = long || len(seg) > 1
	}
	if !long {
		return false
	}
	if strings.EqualFold(segs[0], "www") {
		return false
	}
	if hostSuffixes[segs[len(segs)-1]] && tok == strings.ToLower(tok) && !strings.Contains(tok, "::") && !strings.ContainsAny(tok, "_$") {
		return false // github.com, docs.python.org
	}
	return true
}

// isCallName accepts a name or qualified name before "(".
func isCallName(tok string) bool {
	if strings.Contains(tok, ".") || strings.Contains(tok, "::") {
		return isDotted(tok)
	}
	return isIdent(tok) && !words.Stopword(strings.ToLower(tok))
}

// plural reports the "(s)" of English plurals: file(s), match(es).
func plural(rest string) bool {
	return strings.HasPrefix(rest, "(s)") || strings.HasPrefix(rest, "(es)")
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return hasLetter(s)
}

func isKebab(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !isIdent(p) {
			return false
		}
	}
	return true
}

// Names of brands and products written in camel case, which are not identifiers in a workspace.
var brands = words.Set(`github gitlab javascript typescript coffeescript actionscript postgresql mysql sqlite mongodb
mariadb graphql nodejs youtube linkedin wordpress bitbucket devops openai chatgpt latex bibtex tex powershell
macos ios ipados iphone ipad ipv4 ipv6 vscode intellij pycharm webstorm phpstorm pypi npm dockerhub
stackoverflow paypal ebay jquery oauth numpy scipy pytorch tensorflow pypy cpython jetbrains xcode freebsd
openbsd netbsd opensuse centos redhat macbook neovim sonarqube circleci travisci appveyor gitkraken
javadoc jsdoc phd mcafee youtrack testflight airbnb deepmind huggingface visualstudio onedrive dropbox
soundcloud whatsapp iot wifi kib mib gib tib nan openssl libressl cmake archlinux bigsur momentjs dayjs
issuehunt runkit codesandbox jsfiddle codepen stackblitz gitbook readthedocs sourceforge digitalocean
javafx openjdk graalvm webassembly chromeos`)

// isCamel accepts camelCase and PascalCase with at least two humps: RuleIndex, getName, HTTPServer;
// not The, URL, URLs or GitHub.
func isCamel(tok string) bool {
	t := strings.TrimLeft(tok, "_$")
	if len(t) < 3 || !isIdent(t) || strings.Contains(t, "_") || strings.Contains(t, "$") {
		return false
	}
	upper, lower := 0, 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		}
	}
	if upper == 0 || lower == 0 || brands[strings.ToLower(t)] {
		return false
	}
	if t[0] >= 'a' && t[0] <= 'z' {
		return true // getName
	}
	if strings.TrimRight(t, "s") == strings.ToUpper(strings.TrimRight(t, "s")) || strings.HasSuffix(t, "es") && strings.TrimSuffix(t, "es") == strings.ToUpper(strings.TrimSuffix(t, "es")) {
		return false // URLs, APIs, OSes
	}
	humps := 0
	for _, p := range words.Split(t) {
		if hasLetter(p) {
			humps++
		}
	}
	return humps >= 2
}

// isSnake accepts snake_case, SCREAMING_SNAKE and __dunder__; outside prose also _private.
// Markdown emphasis (_word_) is not a name.
func isSnake(tok string, code bool) bool {
	if !isIdent(tok) || !strings.Contains(tok, "_") {
		return false
	}
	inner := strings.Trim(tok, "_")
	switch {
	case len(inner) < 2 || !hasLetter(inner):
		return false
	case strings.Contains(inner, "_"):
		return code || !titleWords(inner) // New_York is a place, new_york or NEW_YORK a name
	case strings.HasPrefix(tok, "__") && strings.HasSuffix(tok, "__"):
		return true
	case code && strings.HasPrefix(tok, "_") && !strings.HasSuffix(tok, "_") && len(inner) >= 3:
		return true
	}
	return false
}

// titleWords reports whether every part of a snake name is a capitalised word.
func titleWords(s string) bool {
	for _, p := range strings.Split(s, "_") {
		if p == "" {
			continue
		}
		if !(p[0] >= 'A' && p[0] <= 'Z') || strings.ToUpper(p) == p && len(p) > 1 {
			return false
		}
	}
	return true
}

var defKeyword = words.Set(`def class func fn function struct interface enum trait impl type extends implements
module object record`)

// Names every snippet calls that say nothing about the workspace.
var codeNoise = words.Set(`print len str int float bool list dict set tuple range enumerate zip isinstance issubclass
getattr setattr hasattr repr super type id min max sum any all abs iter next vars dir printf println sprintf
fprintf puts assert expect describe it require console.log fmt.Println fmt.Printf fmt.Sprintf Some Ok Err vec
println! format! panic! assert_eq! System.out.println main echo sizeof`)

func noise(tok string) bool {
	return codeNoise[tok] || len(tok) < 2 || words.Stopword(strings.ToLower(tok))
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
