// Package query reads the text of an issue, a bug report or a code comment and says what it asks for:
// the intent (with a budget profile), the names it mentions (anchors), stack frames, error messages,
// natural-language terms expanded through the lexicon, and identifier names the prose suggests.
// Everything here is a pure function of the text; ranking consumes the result.
package query

import (
	"strings"

	"github.com/ctxmap/ctxmap/internal/lexicon"
)

// Anchor kinds.
const (
	KindBacktick = "backtick"
	KindCamel    = "camel"
	KindSnake    = "snake"
	KindDotted   = "dotted"
	KindPath     = "path"
	KindFileLine = "file_line"
	KindCall     = "call"  // a name followed by "("
	KindCode     = "code"  // an identifier inside a fenced code block
	KindMacro    = "macro" // a name written with a macro's bang: name!, name!(...)
	KindFlag     = "flag"  // a command-line flag: --some-flag, -s
)

// Anchor is a name the text states explicitly.
type Anchor struct {
	Text string `json:"text"`           // as written, without backticks, call parentheses or a macro's "!"
	Kind string `json:"kind"`           // one of the Kind constants
	Path string `json:"path,omitempty"` // path and file_line anchors: the path as written
	Line int    `json:"line,omitempty"` // file_line anchors
}

// Frame is one stack frame, most relevant first.
type Frame struct {
	Path     string `json:"path,omitempty"`     // as printed; Java frames get their package folders (com/x/Foo.java)
	Line     int    `json:"line,omitempty"`     // 0 when the trace gives none
	Function string `json:"function,omitempty"` // qualified as printed: "pkg.(*T).Method", "module.Class.method", "crate::a::b"
	Language string `json:"language"`           // python, go, java, javascript, rust, c
	Index    int    `json:"index"`              // 0 is where the error happened, then outwards
}

// Term is a stemmed natural-language word with the weight it carries in the query.
type Term struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"` // 1 for the query's own words (title words a little more), lexicon weights for expansions
	Source string  `json:"source"` // "query" (the text's words, and the English of its Chinese words), or "lexicon:<the word it was expanded from>"
}

// Analysis is everything read from one query text.
type Analysis struct {
	Text        string   `json:"text"`
	Intent      Intent   `json:"intent"`
	Anchors     []Anchor `json:"anchors"`        // deduplicated, in order of appearance
	Frames      []Frame  `json:"frames"`         // every trace in the text, most relevant frame first
	Errors      []string `json:"errors"`         // error and exception messages, to match string literals in code
	Terms       []Term   `json:"terms"`          // the query's words, then expansions by weight
	Identifiers []string `json:"identifiers"`    // identifier names the prose suggests (build tree -> BuildTree, TreeBuilder), best first
	Refs        []int    `json:"refs,omitempty"` // earlier issues and pull requests the prose names (#3112, a link to one)
	SetAside    SetAside `json:"setAside"`       // the template answers, environment blocks and images the analysis set aside
	Kept        string   `json:"-"`              // the text without what was set aside, links and images: what entities and vectors read
}

// Analyze reads a query. lex expands terms; nil means no expansion. Analyze never fails: text it
// cannot read yields fewer anchors, not an error.
func Analyze(text string, lex *lexicon.Lexicon) (a *Analysis) {
	defer func() {
		if recover() != nil {
			// A text that trips a bug here must not take the caller down: answer with no signals.
			a = &Analysis{Text: text, Kept: text, Intent: Intent{Name: Implementation, Confidence: defaultConfidence}}
		}
	}()
	return analyze(text, lex)
}

func analyze(text string, lex *lexicon.Lexicon) *Analysis {
	a := &Analysis{Text: text}
	doc := parseDocument(strings.ToValidUTF8(text, "\uFFFD"))
	a.Frames = findFrames(doc)
	a.Errors = findErrors(doc)
	a.Anchors = findAnchors(doc)
	a.Terms = findTerms(doc, lex)
	a.Identifiers = identifierCandidates(doc)
	a.Refs = findRefs(doc)
	a.Intent = detectIntent(doc, len(a.Frames) > 0, len(a.Errors) > 0)
	a.SetAside = doc.aside
	a.Kept = splitScripts(doc.keptText())
	return a
}

// Words is the text whose words ranking reads as a whole (entities, vectors): the text without what
// was set aside, links and images.
func (a *Analysis) Words() string {
	if a.Kept == "" {
		return a.Text
	}
	return a.Kept
}
