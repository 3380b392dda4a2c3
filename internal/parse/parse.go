// Package parse turns one source file into its definitions, references, comments, imports and
// message-like string literals, with tree-sitter and one tag query per language (its row's text, or
// queries/<language>.scm). Markdown and plain text are read without tree-sitter. Everything the engine
// asks of a language is its row of the table in languages.go.
package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
)

// Definition is a named declaration of a file: a function, type, method, constant, section of a
// document, with where it stands and what a reader sees of it without its body.
type Definition struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`                // function, method, class, struct, interface, trait, enum, type, module, namespace, constant, variable, field, constructor, macro, section
	Signature string `json:"signature,omitempty"` // declaration head without the body, whitespace collapsed, <= 240 bytes
	Doc       string `json:"doc,omitempty"`       // doc comment (or docstring) without comment markers
	Parent    string `json:"parent,omitempty"`    // enclosing class/struct/impl/module name; Go methods: receiver type
	StartLine int    `json:"startLine"`           // 1-based, inclusive, the declaration itself with its template heads (not its doc comment)
	EndLine   int    `json:"endLine"`
	StartByte int    `json:"startByte"`
	EndByte   int    `json:"endByte"`
}

// Reference is a use of a name in a file: a call, a type used, a selector.
type Reference struct {
	Name      string `json:"name"` // the identifier referenced (called function, type used, selector field)
	Line      int    `json:"line"`
	Enclosing int    `json:"enclosing"` // index in File.Definitions of the innermost definition containing it, -1 if none
}

// Comment is a comment block of a file; markers such as TODO are what code lenses offer packs for.
type Comment struct {
	Text      string `json:"text"` // without markers
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`          // consecutive line comments are merged into one block
	Marker    string `json:"marker,omitempty"` // TODO, FIXME, BUG, XXX or ""
}

// Import is a dependency a file names, as written.
type Import struct {
	Path string `json:"path"` // as written: "fmt", "os.path", "./util", "crate::x::y", "stdio.h"
	Line int    `json:"line"`
}

// Literal is a string literal that reads like a message: at least 12 bytes with a space or a format
// verb, without quotes, capped at 200 bytes.
type Literal struct {
	Text string `json:"text"`
	Line int    `json:"line"`
}

// File is what parsing one file gives: its definitions, references, comments, imports and
// message-like string literals.
type File struct {
	Language    string       `json:"language"`
	Definitions []Definition `json:"definitions"` // in source order
	References  []Reference  `json:"references"`
	Comments    []Comment    `json:"comments"`
	Imports     []Import     `json:"imports"`
	Literals    []Literal    `json:"literals"`
}

// maxSource bounds what is handed to tree-sitter, whose offsets are 32-bit; the index skips large
// files long before this.
const maxSource = 64 << 20

// binary says why src looks like binary data, or "" for text: a NUL byte, or many control bytes or
// invalid UTF-8 sequences near the start. tree-sitter's error recovery on such input costs seconds.
func binary(src []byte) string {
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return fmt.Sprintf("NUL byte at offset %d", i)
	}
	head := src
	if len(head) > 8<<10 {
		head = head[:8<<10]
	}
	bad := 0
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 && len(head)-i >= utf8.UTFMax || r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' {
			bad++
		}
		i += n
	}
	if bad*10 > len(head) {
		return fmt.Sprintf("%d of the first %d bytes are control bytes or invalid UTF-8", bad, len(head))
	}
	return ""
}

// Parser owns tree-sitter state and is not safe for concurrent use: one per goroutine.
type Parser struct {
	ts     *sitter.Parser
	cursor *sitter.QueryCursor
	lang   string // the grammar ts is set to
}

// NewParser makes a parser; Close frees it.
func NewParser() *Parser {
	return &Parser{cursor: sitter.NewQueryCursor()}
}

// Close frees the parser's C memory. The Parser must not be used afterwards.
func (p *Parser) Close() {
	if p.ts != nil {
		p.ts.Close()
		p.ts = nil
	}
	if p.cursor != nil {
		p.cursor.Close()
		p.cursor = nil
	}
}

// ErrNotText is returned for content that is binary past the first bytes a walk looks at.
var ErrNotText = errors.New("not source text")

// Parse reads src as the language LanguageOf(path) names. ctx bounds the work: a cancelled or
// expired context stops it with ctx's error.
func (p *Parser) Parse(ctx context.Context, path string, src []byte) (*File, error) {
	name := LanguageOf(path)
	l := byName[name]
	if l == nil {
		return nil, fmt.Errorf("parse %s: no parser for this kind of file", path)
	}
	if len(src) > maxSource {
		return nil, fmt.Errorf("parse %s: file of %d bytes is larger than %d", path, len(src), maxSource)
	}
	if why := binary(src); why != "" {
		return nil, fmt.Errorf("parse %s: %s: %w", path, why, ErrNotText)
	}
	if p.cursor == nil {
		return nil, fmt.Errorf("parse %s: parser is closed", path)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if l.read != nil {
		return l.read(path, src), nil
	}
	if l.other != nil {
		if o := byName[l.other(src)]; o != nil {
			l = o // the file keeps its language's name: a C++ header named .h is still "c"
		}
	}
	q, err := queryFor(l)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	read := src
	if l.blank != nil {
		read = l.blank(src)
	}
	tree, err := p.tree(ctx, l, read)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if l.reread != nil {
		if tree, err = l.reread(ctx, p, l, tree, read); err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
	}
	defer tree.Close()
	f, err := extract(ctx, p.cursor, q, tree.RootNode(), src)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	f.Language = name
	return f, nil
}

// tree parses src. The binding's cancellation flag can stay raised when a context ends just as a
// parse completes, which makes every later parse fail with ErrOperationLimit (no limit is ever set
// here); such a parser is replaced and the parse tried once more.
func (p *Parser) tree(ctx context.Context, l *language, src []byte) (*sitter.Tree, error) {
	for attempt := 0; ; attempt++ {
		if p.ts == nil {
			p.ts = sitter.NewParser()
			p.lang = ""
		}
		if p.lang != l.name {
			p.ts.SetLanguage(l.grammar())
			p.lang = l.name
		}
		tree, err := p.ts.ParseCtx(ctx, nil, src)
		if err == nil {
			return tree, nil
		}
		// a halted parse would otherwise be resumed by the next call, on other input
		p.ts.Reset()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !errors.Is(err, sitter.ErrOperationLimit) || attempt > 0 {
			return nil, err
		}
		p.ts.Close()
		p.ts = nil
	}
}

// Qualified is a definition's name under its parent's ("Repo.Name"), as chunks and packs name it.
func (d Definition) Qualified() string {
	if d.Parent != "" {
		return d.Parent + "." + d.Name
	}
	return d.Name
}

// SignatureOr is the definition's signature, or its kind and the given name where the parser found
// none: the name alone where the reader sees its parent, Qualified where it does not.
func (d Definition) SignatureOr(name string) string {
	if d.Signature != "" {
		return d.Signature
	}
	return d.Kind + " " + name
}

// SplitLines cuts source into its lines, without the empty one after a final newline.
func SplitLines(src []byte) [][]byte {
	if len(src) == 0 {
		return nil
	}
	ls := bytes.Split(src, []byte("\n"))
	if len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// JoinLines returns lines from..to (1-based, inclusive), clamped to the file.
func JoinLines(lines [][]byte, from, to int) string {
	if from < 1 {
		from = 1
	}
	if to > len(lines) {
		to = len(lines)
	}
	if from > to {
		return ""
	}
	return string(bytes.Join(lines[from-1:to], []byte("\n")))
}
