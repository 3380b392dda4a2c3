package parse

import (
	"bytes"
	"regexp"
)

// C and C++ declarations often carry macros the grammar cannot expand: an export or inline macro
// before the type (LIB_API void f(), LIB_CONSTEXPR auto f() -> R), a line of its own before a template
// or a namespace (LIB_BEGIN_NAMESPACE), one between class and its name (class LIB_API T), one after the
// parameters (void f() LIB_NOEXCEPT). tree-sitter then makes an ERROR of the declaration or names it
// after a macro, a keyword or a parameter. blankMacros writes spaces over such macros in a copy of
// the source handed to tree-sitter: offsets and lines stay, and names and signatures are still read
// from the source as written.

// reach bounds every look forward or back, in tokens, so that odd input costs linear time.
const reach = 512

// ctok is a token of C or C++ source: an identifier, or one punctuation byte; comments, literals and
// preprocessor lines are not tokens.
type ctok struct {
	start, end int
	ident      bool
	lineFirst  bool // the first token of its line
}

// blankMacros returns src with the macros of declarations blanked, or src itself when there are
// none. cpp allows a declaration with no type (a constructor), so that a macro before name( is
// blanked too.
func blankMacros(src []byte, cpp bool) []byte {
	toks := ctokens(src)
	var blank [][2]int
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if t.ident && (t.lineFirst || k > 0 && punct(src, toks[k-1], ";{}")) {
			var next int
			blank, next = declPrefix(src, toks, k, cpp, blank)
			if next > k {
				k = next - 1 // the prefix is read; its last token ends no parameter list
				continue
			}
		}
		switch {
		case t.ident && macroWord(src[t.start:t.end]):
			blank = innerMacro(src, toks, k, blank)
		case isWord(src, t, "class", "struct", "union"):
			blank = classMacros(src, toks, k+1, blank)
		case punct(src, t, ")"):
			blank = trailingMacros(src, toks, k, blank)
		}
	}
	if len(blank) == 0 {
		return src
	}
	out := bytes.Clone(src)
	for _, b := range blank {
		for i := b[0]; i < b[1]; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	return out
}

// specifiers may stand among the macros before a declaration's type.
var specifiers = map[string]bool{
	"static": true, "inline": true, "constexpr": true, "extern": true, "virtual": true, "explicit": true,
	"friend": true, "consteval": true, "constinit": true, "export": true, "typedef": true,
}

// declPrefix reads the tokens from k that may open a declaration (specifiers, attributes, template
// parameter lists and macros), and blanks the macros among them when what follows is a declaration
// without them: at least a type and a name before its '(', ';', '=' or '{', or, in C++, a name and
// '(' alone. It returns the token after the prefix.
func declPrefix(src []byte, toks []ctok, k int, cpp bool, blank [][2]int) ([][2]int, int) {
	var macros [][2]int
	kept := 0 // type words among the macros: void LIB_CALL f()
	i := k
prefix:
	for i < len(toks) {
		t := toks[i]
		switch {
		case t.ident && specifiers[string(src[t.start:t.end])]:
			i++
		case t.ident && typeWords[string(src[t.start:t.end])]:
			kept++
			i++
		case t.ident && isWord(src, t, "template") && i+1 < len(toks) && punct(src, toks[i+1], "<"):
			i = skipAngles(src, toks, i+1)
		case t.ident && isWord(src, t, "__attribute__", "__declspec", "alignas"):
			i = skipParens(src, toks, i+1)
		case punct(src, t, "[") && i+1 < len(toks) && punct(src, toks[i+1], "["):
			end := skipBrackets(src, toks, i)
			if end == i {
				break prefix
			}
			i = end
		case t.ident && macroWord(src[t.start:t.end]):
			end := skipParens(src, toks, i+1)
			macros = append(macros, [2]int{t.start, toks[end-1].end})
			i = end
		default:
			break prefix
		}
	}
	if len(macros) == 0 {
		return blank, i
	}
	// what follows: names, pointers, references, scopes and template arguments up to the stop
	n, plain := 0, true
	j := i
	for ; j < len(toks) && j-i < reach; j++ {
		t := toks[j]
		if t.ident {
			if !isWord(src, t, "const", "volatile", "restrict") {
				n++
			}
			continue
		}
		c := src[t.start]
		if c == '<' {
			j = skipAngles(src, toks, j) - 1
			continue
		}
		if c == '*' || c == '&' {
			plain = false
			continue
		}
		if c == ':' && j+1 < len(toks) && punct(src, toks[j+1], ":") {
			j++
			continue
		}
		if c == '~' {
			continue
		}
		break
	}
	stop := byte(0)
	if j < len(toks) {
		stop = src[toks[j].start]
	} else if n == 0 {
		// macros closing the file (LIB_END_NAMESPACE)
		return append(blank, macros...), i
	}
	n += kept
	head := i < len(toks) && isWord(src, toks[i], "class", "struct", "union", "enum", "namespace")
	if i < len(toks) && isWord(src, toks[i], "if", "for", "while", "switch", "return", "do", "goto", "break", "continue") {
		// a statement macro without its ';' (GET_VALUE(v)\n if (v) ...): no type stands before a statement
		return append(blank, macros...), i
	}
	switch {
	case stop != '(' && stop != ';' && stop != '=' && stop != '{' && stop != ',' && stop != '[' && !(stop == ':' && head):
		return blank, i
	case n >= 2:
		return append(blank, macros...), i
	case n == 1 && stop == '(' && plain && cpp:
		return append(blank, macros...), i
	case n == 0 && stop == '{' && len(macros) > 1:
		// TEST_END TEST_BEGIN(name) {: the last macro heads the function
		return append(blank, macros[:len(macros)-1]...), i
	case n == 1 && len(macros) > 1:
		// the last macro stays as the type: LIB_API LIB_TYPE f() in C, LIB_API LIB_TYPE *f()
		return append(blank, macros[:len(macros)-1]...), i
	}
	return blank, i
}

// typeWords are the built-in types that may stand before a calling-convention macro.
var typeWords = map[string]bool{
	"void": true, "int": true, "char": true, "short": true, "long": true, "float": true, "double": true,
	"signed": true, "unsigned": true, "bool": true, "auto": true,
}

// classMacros blanks the macros between class, struct or union and the name of a definition:
// class LIB_API thing {, struct LIB_API thing : base.
func classMacros(src []byte, toks []ctok, k int, blank [][2]int) [][2]int {
	var macros [][2]int
	i := k
	for i < len(toks) && toks[i].ident && macroWord(src[toks[i].start:toks[i].end]) {
		end := skipParens(src, toks, i+1)
		macros = append(macros, [2]int{toks[i].start, toks[end-1].end})
		i = end
	}
	if len(macros) == 0 || i+1 >= len(toks) || !toks[i].ident {
		return blank
	}
	next := toks[i+1]
	if punct(src, next, "{") || isWord(src, next, "final") ||
		punct(src, next, ":") && !(i+2 < len(toks) && punct(src, toks[i+2], ":")) {
		return append(blank, macros...)
	}
	return blank
}

// statementWords are words before an expression, which no declaration's type can be.
var statementWords = map[string]bool{
	"return": true, "case": true, "else": true, "do": true, "goto": true, "throw": true, "new": true,
	"delete": true, "co_return": true, "co_yield": true, "sizeof": true,
}

// innerMacro blanks a macro at k inside a declaration: between its type and its name
// (size_t LIB_INLINE pool::size(), int LIB_CALL f()) or after a member's name (T* cb_ LIB_GUARDED_BY(mu);).
func innerMacro(src []byte, toks []ctok, k int, blank [][2]int) [][2]int {
	if k == 0 || toks[k].lineFirst {
		return blank
	}
	prev := toks[k-1]
	typeLike := func(t ctok) bool {
		if t.ident {
			w := src[t.start:t.end]
			return !statementWords[string(w)] && !macroWord(w)
		}
		return punct(src, t, "*&>")
	}
	if !typeLike(prev) {
		return blank
	}
	end := skipParens(src, toks, k+1)
	if end == k+1 {
		// between type and name: a name, scoped or not, and its '('
		j := k + 1
		for j < len(toks) && j-k < reach && (toks[j].ident || punct(src, toks[j], ":~")) {
			j++
		}
		if j > k+1 && j < len(toks) && toks[j-1].ident && punct(src, toks[j], "(") {
			return append(blank, [2]int{toks[k].start, toks[k].end})
		}
	}
	// after a member's name, before its end or initializer
	if prev.ident && k >= 2 && typeLike(toks[k-2]) && end < len(toks) && punct(src, toks[end], ";=,{") {
		return append(blank, [2]int{toks[k].start, toks[end-1].end})
	}
	return blank
}

// notCalls are words before '(' whose parentheses are not a parameter list.
var notCalls = map[string]bool{
	"if": true, "while": true, "for": true, "switch": true, "return": true, "sizeof": true, "catch": true,
	"alignof": true, "decltype": true, "noexcept": true, "defined": true, "throw": true, "typeid": true,
	"static_assert": true, "_Static_assert": true, "__attribute__": true, "__declspec": true,
}

// trailingMacros blanks the macros after a function's parameters, before its body or the end of its
// declaration: void f() LIB_NOEXCEPT {, void g() const LIB_EXCLUDES(mu);. close is the ')' of the
// parameters.
func trailingMacros(src []byte, toks []ctok, close int, blank [][2]int) [][2]int {
	var macros [][2]int
	i := close + 1
after:
	for i < len(toks) {
		t := toks[i]
		switch {
		case t.ident && isWord(src, t, "const", "volatile", "override", "final", "noexcept", "throw"):
			i++
			if isWord(src, t, "noexcept", "throw") {
				i = skipParens(src, toks, i)
			}
		case punct(src, t, "&"):
			i++
		case t.ident && macroWord(src[t.start:t.end]):
			end := skipParens(src, toks, i+1)
			macros = append(macros, [2]int{t.start, toks[end-1].end})
			i = end
		default:
			break after
		}
	}
	if len(macros) == 0 || i >= len(toks) || !punct(src, toks[i], "{;=:-") {
		return blank
	}
	// the parentheses must be a function's parameters, not an if's condition or a macro's arguments
	open := matchingOpen(src, toks, close)
	if open < 1 || !toks[open-1].ident {
		return blank
	}
	name := src[toks[open-1].start:toks[open-1].end]
	if notCalls[string(name)] || macroWord(name) {
		return blank
	}
	return append(blank, macros...)
}

// macroWord says whether w is written as a macro: capitals, digits and underscores, with an
// underscore or four letters or more (LIB_API, GTEST_API_, NORETURN; not T or ID).
func macroWord(w []byte) bool {
	if len(w) < 2 || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	under := false
	for _, c := range w {
		switch {
		case c == '_':
			under = true
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return under || len(w) >= 4
}

func isWord(src []byte, t ctok, words ...string) bool {
	if !t.ident {
		return false
	}
	for _, w := range words {
		if string(src[t.start:t.end]) == w {
			return true
		}
	}
	return false
}

// punct says whether t is one of the punctuation bytes in set.
func punct(src []byte, t ctok, set string) bool {
	return !t.ident && t.end == t.start+1 && bytes.IndexByte([]byte(set), src[t.start]) >= 0
}

// skipParens returns the token after the balanced parentheses opening at i, or i when toks[i] is
// not '('.
func skipParens(src []byte, toks []ctok, i int) int {
	return skipPair(src, toks, i, '(', ')')
}

func skipBrackets(src []byte, toks []ctok, i int) int {
	return skipPair(src, toks, i, '[', ']')
}

// skipAngles returns the token after a template's balanced angle brackets opening at i; parentheses
// inside are skipped whole, so that a comparison in them does not end the list.
func skipAngles(src []byte, toks []ctok, i int) int {
	if i >= len(toks) || !punct(src, toks[i], "<") {
		return i
	}
	depth := 0
	for from := i; i < len(toks) && i-from < reach; i++ {
		switch {
		case punct(src, toks[i], "("):
			i = skipParens(src, toks, i) - 1
		case punct(src, toks[i], "<"):
			depth++
		case punct(src, toks[i], ">"):
			depth--
			if depth == 0 {
				return i + 1
			}
		case punct(src, toks[i], ";{}"):
			return i // not a template parameter list after all
		}
	}
	return i
}

func skipPair(src []byte, toks []ctok, i int, open, close byte) int {
	if i >= len(toks) || toks[i].ident || src[toks[i].start] != open {
		return i
	}
	depth := 0
	for from := i; i < len(toks); i++ {
		if i-from >= reach {
			return from // unbalanced this far: not an argument list
		}
		if toks[i].ident {
			continue
		}
		switch src[toks[i].start] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i + 1
			}
		case ';', '{', '}':
			if open != '{' {
				return i
			}
		}
	}
	return i
}

// matchingOpen is the index of the '(' that the ')' at close ends, or -1.
func matchingOpen(src []byte, toks []ctok, close int) int {
	depth := 0
	for i := close; i >= 0 && close-i < reach; i-- {
		if toks[i].ident {
			continue
		}
		switch src[toks[i].start] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		case ';', '{', '}':
			return -1
		}
	}
	return -1
}

// ctokens splits C or C++ source into identifiers and punctuation, leaving out comments, string and
// character literals, numbers and preprocessor lines.
func ctokens(src []byte) []ctok {
	toks := make([]ctok, 0, len(src)/4)
	lineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			lineStart = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\\':
			i++
		case c == '#' && lineStart:
			i = lineEnd(src, i)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			i = lineEnd(src, i)
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			if e := bytes.Index(src[i+2:], []byte("*/")); e >= 0 {
				i += e + 4
			} else {
				i = len(src)
			}
		case c == '"' || c == '\'' && (i == 0 || !identChar(src[i-1])):
			i = literalEnd(src, i)
			toks = append(toks, ctok{start: i - 1, end: i, lineFirst: lineStart})
			lineStart = false
		case identStart(c):
			j := i + 1
			for j < len(src) && identChar(src[j]) {
				j++
			}
			// a raw string: R"x(...)x", and its u8R, LR... forms
			if j < len(src) && src[j] == '"' && src[j-1] == 'R' && j-i <= 3 {
				i = rawStringEnd(src, j)
				toks = append(toks, ctok{start: i - 1, end: i, lineFirst: lineStart})
				lineStart = false
				continue
			}
			toks = append(toks, ctok{start: i, end: j, ident: true, lineFirst: lineStart})
			lineStart = false
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && (identChar(src[j]) || src[j] == '.' || src[j] == '\'') {
				j++
			}
			toks = append(toks, ctok{start: i, end: i + 1, lineFirst: lineStart})
			lineStart = false
			i = j
		default:
			toks = append(toks, ctok{start: i, end: i + 1, lineFirst: lineStart})
			lineStart = false
			i++
		}
	}
	return toks
}

// lineEnd is the offset of the newline ending the line at i, past lines continued with a backslash.
func lineEnd(src []byte, i int) int {
	for i < len(src) {
		e := bytes.IndexByte(src[i:], '\n')
		if e < 0 {
			return len(src)
		}
		i += e
		if j := i - 1; j >= 0 && (src[j] == '\\' || src[j] == '\r' && j > 0 && src[j-1] == '\\') {
			i++
			continue
		}
		return i
	}
	return i
}

// literalEnd is the offset after the string or character literal opening at i, or the line's end.
func literalEnd(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(src)
}

// rawStringEnd is the offset after the raw string whose quote is at q.
func rawStringEnd(src []byte, q int) int {
	open := bytes.IndexByte(src[q:], '(')
	if open < 0 || open > 17 {
		return q + 1
	}
	delim := append([]byte(")"), src[q+1:q+open]...)
	delim = append(delim, '"')
	if e := bytes.Index(src[q+open:], delim); e >= 0 {
		return q + open + e + len(delim)
	}
	return len(src)
}

func identStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func identChar(c byte) bool { return identStart(c) || c >= '0' && c <= '9' }

func blankC(src []byte) []byte   { return blankMacros(src, false) }
func blankCpp(src []byte) []byte { return blankMacros(src, true) }

// cppHeader reads a .h file as C++ when a line opens with what only C++ writes there: a namespace, a
// template, a class, an access label or a using directive (prose in a comment does not end like these).
func cppHeader(src []byte) string {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		line = bytes.TrimLeft(line, " \t")
		if len(line) > 6 && bytes.IndexByte([]byte("nctpu"), line[0]) >= 0 && cppOpener.Match(line) {
			return "cpp"
		}
	}
	return ""
}

var cppOpener = regexp.MustCompile(`^(namespace(\s+[\w:]+)?\s*(\{|$)|template\s*<|class\s+\w+(\s+\w+)?\s*(final\b|[{:;]|$)|(public|private|protected)\s*:|using\s+namespace\s)`)
