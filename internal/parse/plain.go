package parse

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
)

// Sections of a file without a grammar: long enough to hold a thought, short enough that a word deep in
// a long file is still found by its neighbours and not diluted by the whole file.
const (
	sectionMinLines = 30 // a blank line after this many lines ends a section
	sectionMaxLines = 80 // a section without a blank line is cut here
)

// definitionLine finds the definitions of languages without a grammar (jq, Lua, Perl, Elixir, Elisp,
// SQL, protobuf, CMake, Makefiles, ...) by their keywords, as ctags' regex parsers do.
var definitionLine = regexp.MustCompile(`^\s*(?:\(\s*)?(?:export\s+|local\s+|pub\s+|public\s+|private\s+|static\s+)*` +
	`(?:def|defp|defmacro|defun|defvar|function|fn|func|fun|sub|proc|macro|message|service|enum|struct|` +
	`(?i:create\s+(?:or\s+replace\s+)?(?:table|view|function|procedure|index)))\s*\(?\s*` +
	"([A-Za-z_][A-Za-z0-9_.:$-]*)")

// proseOrData are the kinds of text where a line starting with "function" or "message" is a sentence or
// a value, not a definition.
var proseOrData = map[string]bool{".txt": true, ".rst": true, ".adoc": true, ".yaml": true, ".yml": true,
	".json": true, ".toml": true, ".cfg": true, ".ini": true, ".conf": true, ".properties": true, "": true}

// ProseOrData tells text files that are prose, configuration or data (notes, YAML, TOML, Makefiles,
// change logs) from those in a language without a grammar here (jq, Lua, SQL, ...), which are code.
func ProseOrData(path string) bool {
	return LanguageOf(path) == "text" && proseOrData[strings.ToLower(filepath.Ext(path))]
}

// makeTarget is a Makefile rule's target (not a variable assignment).
var makeTarget = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_./-]*)\s*::?(?:[^=]|$)`)

// Text cuts a file without a grammar (plain text, configuration, a language ctags would read by regex,
// or code whose grammar could not finish) into sections: one at each definition line, the rest at blank
// lines between sectionMinLines and sectionMaxLines. Sections without a definition are named after the
// file.
func Text(path string, src []byte) *File {
	f := &File{Language: "text", Definitions: []Definition{}, References: []Reference{},
		Comments: []Comment{}, Imports: []Import{}, Literals: []Literal{}}
	lines := splitSource(src)
	base := filepath.Base(path)
	targets := base == "Makefile" || base == "makefile" || base == "GNUmakefile" || filepath.Ext(base) == ".mk"
	defs := !proseOrData[strings.ToLower(filepath.Ext(base))] || base == "CMakeLists.txt"
	cur := -1 // index in f.Definitions of the section being filled
	finish := func(last int) {
		if cur >= 0 {
			d := &f.Definitions[cur]
			d.EndLine = last + 1
			d.EndByte = lines[last].end
			cur = -1
		}
	}
	begin := func(i int, name, kind string) {
		f.Definitions = append(f.Definitions, Definition{
			Name: name, Kind: kind, Signature: clip(oneLine(lines[i].text), maxSignature),
			StartLine: i + 1, EndLine: i + 1, StartByte: lines[i].start, EndByte: lines[i].end,
		})
		cur = len(f.Definitions) - 1
	}
	lastText := -1 // the last line with text, where a section ends
	for i, l := range lines {
		blank := len(bytes.TrimSpace(l.text)) == 0
		if blank {
			if cur >= 0 && i-(f.Definitions[cur].StartLine-1) >= sectionMinLines {
				finish(lastText)
			}
			continue
		}
		name := ""
		if m := definitionLine.FindSubmatch(l.text); defs && m != nil {
			name = string(m[1])
		} else if m := makeTarget.FindSubmatch(l.text); targets && m != nil {
			name = string(m[1])
		}
		switch {
		case name != "":
			finish(lastText)
			begin(i, valid(name), "function")
		case cur < 0:
			begin(i, base, "section")
		case i-(f.Definitions[cur].StartLine-1) >= sectionMaxLines:
			finish(lastText)
			begin(i, base, "section")
		}
		lastText = i
	}
	finish(lastText)
	return f
}
