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
	open := -1 // index in f.Definitions of the section being filled
	close := func(end int) {
		if open >= 0 {
			d := &f.Definitions[open]
			d.EndLine = end + 1
			d.EndByte = lines[end].end
			open = -1
		}
	}
	start := func(i int, name, kind string) {
		f.Definitions = append(f.Definitions, Definition{
			Name: name, Kind: kind, Signature: clip(oneLine(lines[i].text), maxSignature),
			StartLine: i + 1, EndLine: i + 1, StartByte: lines[i].start, EndByte: lines[i].end,
		})
		open = len(f.Definitions) - 1
	}
	lastText := -1 // the last line with text, where a section ends
	for i, l := range lines {
		blank := len(bytes.TrimSpace(l.text)) == 0
		if blank {
			if open >= 0 && i-(f.Definitions[open].StartLine-1) >= sectionMinLines {
				close(lastText)
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
			close(lastText)
			start(i, valid(name), "function")
		case open < 0:
			start(i, base, "section")
		case i-(f.Definitions[open].StartLine-1) >= sectionMaxLines:
			close(lastText)
			start(i, base, "section")
		}
		lastText = i
	}
	close(lastText)
	return f
}
