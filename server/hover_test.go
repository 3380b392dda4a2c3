package server

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

// entityLink is a hover's link to a definition line: [path:line](file:///abs/path#Lline).
var entityLink = regexp.MustCompile(`\[([\w./-]+):(\d+)\]\(file://(/[^)#]+)#L(\d+)\)`)

func TestHoverOnWordInComment(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	text := c.read("gist/gist.go")
	// "gist" inside the TODO comment, cursor on its second letter
	pos := positionOf(t, text, "gist descriptions", 0, 1)
	h := c.hover("gist/gist.go", pos)
	if h == nil {
		t.Fatal("no hover on \"gist\" in a comment")
	}
	md := h.Contents.Value
	if h.Contents.Kind != protocol.Markdown || !strings.Contains(md, "**GIST**") || !strings.Contains(md, "importance") {
		t.Fatalf("hover %q: want the GIST entity with its importance", md)
	}
	links := entityLink.FindAllStringSubmatch(md, -1)
	if len(links) == 0 {
		t.Fatalf("hover %q has no definition links", md)
	}
	for _, l := range links {
		if !strings.HasSuffix(l[3], "/"+l[1]) || l[2] != l[4] {
			t.Errorf("link %q: the text and the target disagree", l[0])
		}
	}
	if !strings.Contains(md, "[gist/gist.go:"+lineOf(text, "type Gist struct")+"]") {
		t.Errorf("hover %q: want a link to the Gist type's line", md)
	}
	start := positionOf(t, text, "gist descriptions", 0, 0)
	if h.Range == nil || h.Range.Start != start || h.Range.End.Character != start.Character+4 {
		t.Errorf("range %+v, want the word at %+v", h.Range, start)
	}
}

// lineOf is the 1-based line of needle's first occurrence, as text.
func lineOf(text, needle string) string {
	return strconv.Itoa(strings.Count(text[:strings.Index(text, needle)], "\n") + 1)
}

func TestHoverInMarkdownAndText(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	readme := c.read("README.md")
	h := c.hover("README.md", positionOf(t, readme, "rule index", 0, 2))
	if h == nil || !strings.Contains(h.Contents.Value, "**RULE**") || !entityLink.MatchString(h.Contents.Value) {
		t.Fatalf("hover on \"rule\" in README.md: %+v, want RULE with links", h)
	}
	if !strings.Contains(h.Contents.Value, "[rule/rule.go:"+lineOf(c.read("rule/rule.go"), "type Rule struct")+"]") {
		t.Errorf("hover %q: want a link to the Rule type", h.Contents.Value)
	}
	notes := c.read("docs/notes.txt")
	// plural and capitalised: "Rules" is still RULE
	if h := c.hover("docs/notes.txt", positionOf(t, notes, "Rules", 0, 0)); h == nil || !strings.Contains(h.Contents.Value, "**RULE**") {
		t.Errorf("hover on \"Rules\" in plain text: %+v", h)
	}
}

func TestHoverOnIdentifierShowsDefinitions(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	text := c.read("gist/publish.go")
	h := c.hover("gist/publish.go", positionOf(t, text, "ErrSecretGist", 1, 3))
	if h == nil {
		t.Fatal("no hover on ErrSecretGist")
	}
	md := h.Contents.Value
	for _, want := range []string{"**`ErrSecretGist`** variable", "[gist/publish.go:" + lineOf(text, "var ErrSecretGist") + "]", "returned when a secret gist is published", "**GIST**"} {
		if !strings.Contains(md, want) {
			t.Errorf("hover %q lacks %q", md, want)
		}
	}
}

func TestHoverNothing(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	text := c.read("gist/gist.go")
	for _, pos := range []protocol.Position{
		positionOf(t, text, "(g *Gist)", 0, 0), // punctuation
		positionOf(t, text, "return", 0, 2),    // a keyword, no entity or symbol
		{Line: 500, Character: 0},              // past the end
		positionOf(t, text, "package", 0, 0),   // a stopword
	} {
		if h := c.hover("gist/gist.go", pos); h != nil {
			t.Errorf("hover at %+v: %q, want null", pos, h.Contents.Value)
		}
	}
	if h := c.hover("missing/file.go", protocol.Position{}); h != nil {
		t.Errorf("hover on a missing file: %+v", h)
	}
}

func TestHoverAfterEmojiCountsUTF16(t *testing.T) {
	t.Parallel()
	c := readyNotes(t)
	// each emoji is two UTF-16 units and four bytes: a server counting bytes or runes lands elsewhere
	text := "package gist\n\n// 🎉🎉 rule gist\n"
	c.open("gist/emoji.go", text)
	ruleStart := positionOf(t, text, "rule gist", 0, 0)
	if ruleStart.Character != 8 {
		t.Fatalf("test setup: \"rule\" starts at UTF-16 column %d, want 8", ruleStart.Character)
	}
	// the cursor on the last letter of "rule"
	h := c.hover("gist/emoji.go", protocol.Position{Line: ruleStart.Line, Character: ruleStart.Character + 3})
	if h == nil || !strings.Contains(h.Contents.Value, "**RULE**") || strings.Contains(h.Contents.Value, "**GIST**") {
		t.Fatalf("hover %+v: want RULE alone", h)
	}
	want := protocol.Range{Start: ruleStart, End: protocol.Position{Line: ruleStart.Line, Character: ruleStart.Character + 4}}
	if *h.Range != want {
		t.Errorf("range %+v, want %+v", *h.Range, want)
	}
	gist := positionOf(t, text, "gist\n", 1, 0)
	if h := c.hover("gist/emoji.go", gist); h == nil || !strings.Contains(h.Contents.Value, "**GIST**") || h.Range.Start != gist {
		t.Errorf("hover on gist after the emoji: %+v", h)
	}
}
