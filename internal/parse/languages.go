package parse

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/c"
	"github.com/smacker/go-tree-sitter/cpp"
	"github.com/smacker/go-tree-sitter/csharp"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/kotlin"
	"github.com/smacker/go-tree-sitter/php"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/ruby"
	"github.com/smacker/go-tree-sitter/rust"
	"github.com/smacker/go-tree-sitter/scala"
	"github.com/smacker/go-tree-sitter/swift"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// language is a row of the language table: everything the engine asks of a language, so that a row is
// all a new language needs. A language read with tree-sitter has a grammar and a tag query; one read
// without (markdown, text) has read instead.
type language struct {
	name    string
	grammar func() *sitter.Language
	exts    []string // lower-case, with the dot
	files   []string // exact base names for files without a telling extension
	naming  naming
	comment string // a line comment's start and a space: "// ", "# "; "" for prose
	// query is the tag query's text (the captures query.go lists); "" reads queries/<name>.scm,
	// as the rows below do
	query    string
	read     func(path string, src []byte) *File // a language without a grammar
	document bool                                // prose in sections (markdown): docs, not code
	// other names the row that reads a file of this one by its content ("" for this row): a C++
	// header named .h
	other func(src []byte) string
	// blank is the text handed to tree-sitter: src with what the grammar cannot read written over
	// with spaces (C's and C++'s macros), same length and lines; nil hands src itself
	blank func(src []byte) []byte
	// reread parses again when the first tree hides items (Rust's macro blocks), and returns the tree
	// to read (the one it was given when there is nothing to find); it closes the tree it replaces
	reread func(ctx context.Context, p *Parser, l *language, tree *sitter.Tree, src []byte) (*sitter.Tree, error)
	tags   *compileOnce // the query compiled on first use; set by add
}

// naming is how a language writes a qualified name in text (a trace, a log, an issue): the separators
// between its parts, and the one that joins a nested type to its outer type in a binary name.
type naming struct {
	seps   []string // "::" (ns::Class::m), "." (pkg.Class.m), "->", "#" (Class#method)
	nested string   // "$": Java's Outer$Inner, which splits only before the inner type's capital
}

var table = []language{
	{name: "go", grammar: golang.GetLanguage, exts: []string{".go"}, naming: naming{seps: []string{"."}}, comment: "// "},
	{name: "python", grammar: python.GetLanguage, exts: []string{".py", ".pyi", ".pyw"}, files: []string{"SConstruct", "SConscript"}, naming: naming{seps: []string{"."}}, comment: "# "},
	{name: "javascript", grammar: javascript.GetLanguage, exts: []string{".js", ".jsx", ".mjs", ".cjs"}, naming: naming{seps: []string{".", "#"}}, comment: "// "},
	{name: "typescript", grammar: typescript.GetLanguage, exts: []string{".ts", ".mts", ".cts"}, naming: naming{seps: []string{".", "#"}}, comment: "// "},
	{name: "tsx", grammar: tsx.GetLanguage, exts: []string{".tsx"}, naming: naming{seps: []string{".", "#"}}, comment: "// "},
	{name: "java", grammar: java.GetLanguage, exts: []string{".java"}, naming: naming{seps: []string{"."}, nested: "$"}, comment: "// "},
	{name: "rust", grammar: rust.GetLanguage, exts: []string{".rs"}, naming: naming{seps: []string{"::"}}, comment: "// ", reread: rustItemMacros},
	{name: "c", grammar: c.GetLanguage, exts: []string{".c", ".h"}, naming: naming{seps: []string{"->", "."}}, comment: "// ", other: cppHeader, blank: blankC},
	{name: "cpp", grammar: cpp.GetLanguage, exts: []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"}, naming: naming{seps: []string{"::", "->", "."}}, comment: "// ", blank: blankCpp},
	{name: "csharp", grammar: csharp.GetLanguage, exts: []string{".cs"}, naming: naming{seps: []string{"."}}, comment: "// "},
	{name: "ruby", grammar: ruby.GetLanguage, exts: []string{".rb", ".rake", ".gemspec"}, files: []string{"Rakefile", "Gemfile", "Guardfile", "Vagrantfile"}, naming: naming{seps: []string{"::", "#", "."}}, comment: "# "},
	{name: "php", grammar: php.GetLanguage, exts: []string{".php", ".phtml"}, naming: naming{seps: []string{"::", "->", "\\"}}, comment: "// "},
	{name: "kotlin", grammar: kotlin.GetLanguage, exts: []string{".kt", ".kts"}, naming: naming{seps: []string{"."}, nested: "$"}, comment: "// "},
	{name: "scala", grammar: scala.GetLanguage, exts: []string{".scala", ".sc"}, naming: naming{seps: []string{".", "#"}, nested: "$"}, comment: "// "},
	{name: "swift", grammar: swift.GetLanguage, exts: []string{".swift"}, naming: naming{seps: []string{"."}}, comment: "// "},
	{name: "bash", grammar: bash.GetLanguage, exts: []string{".sh", ".bash"}, files: []string{".bashrc", ".bash_profile"}, comment: "# "},
	{name: "markdown", exts: []string{".md", ".markdown", ".mdx"}, read: readMarkdown, document: true},
	// configuration and other text that issues ask to change: indexed as one section per file
	{name: "text", exts: []string{".txt", ".rst", ".adoc", ".toml", ".yaml", ".yml", ".json", ".cfg", ".ini", ".conf",
		".properties", ".gradle", ".cmake", ".proto", ".sql", ".jq", ".el", ".vim", ".lua", ".pl", ".r", ".dart", ".ex", ".exs", ".hs", ".ml", ".nim", ".zig"},
		files: []string{"Makefile", "Dockerfile", "CMakeLists.txt", "CHANGELOG", "CHANGES", "NEWS", "Cargo.toml", "go.mod", "setup.cfg", "tox.ini"}, read: Text},
}

func readMarkdown(_ string, src []byte) *File { return parseMarkdown(src) }

var (
	rows   []*language // the table's rows, in its order
	byName = map[string]*language{}
	byExt  = map[string]string{}
	byFile = map[string]string{}
)

func init() {
	for i := range table {
		add(&table[i])
	}
}

// add puts a row in the lookups: its name, extensions, file names and naming.
func add(l *language) {
	if l.grammar != nil {
		l.tags = &compileOnce{}
	}
	rows = append(rows, l)
	byName[l.name] = l
	for _, e := range l.exts {
		byExt[e] = l.name
	}
	for _, f := range l.files {
		byFile[f] = l.name
	}
	nameSeps, nestedSeps = namingSeps()
}

var nameSeps, nestedSeps []string

// namingSeps are the separators of every language's names, the longest first.
func namingSeps() (seps, nested []string) {
	seen := map[string]bool{}
	for _, l := range rows {
		for _, s := range l.naming.seps {
			if !seen[s] {
				seen[s] = true
				seps = append(seps, s)
			}
		}
		if n := l.naming.nested; n != "" && !seen[n] {
			seen[n] = true
			nested = append(nested, n)
		}
	}
	sort.SliceStable(seps, func(i, j int) bool { return len(seps[i]) > len(seps[j]) })
	return seps, nested
}

// NameParts splits a qualified name as the languages write it, outermost first: "ns::Class::m",
// "com.x.Outer$Inner", "Class#method", "$obj->call". A nested type's separator ($) splits only before
// a capital: "Outer$Inner", not "$scope". A Go receiver's parentheses go: "(*T).M" -> T, M.
func NameParts(s string) []string {
	s = strings.NewReplacer("(*", "", "(", "", ")", "").Replace(strings.TrimSuffix(strings.TrimSpace(s), "()"))
	var parts []string
	start := 0
	for i := 0; i < len(s); {
		n := 0
		for _, sep := range nameSeps {
			if strings.HasPrefix(s[i:], sep) {
				n = len(sep)
				break
			}
		}
		if n == 0 && i > start && i+1 < len(s) && s[i+1] >= 'A' && s[i+1] <= 'Z' {
			for _, sep := range nestedSeps {
				if strings.HasPrefix(s[i:], sep) {
					n = len(sep)
					break
				}
			}
		}
		if n == 0 {
			i++
			continue
		}
		if i > start {
			parts = append(parts, s[start:i])
		}
		i += n
		start = i
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	return parts
}

// LanguageOf names the language of path by its extension or file name, or "" when it is not one we parse.
func LanguageOf(path string) string {
	base := filepath.Base(path)
	if l, ok := byFile[base]; ok {
		return l
	}
	ext := filepath.Ext(base)
	if ext == "" || ext == base {
		return ""
	}
	if l, ok := byExt[ext]; ok {
		return l
	}
	return byExt[strings.ToLower(ext)]
}

// CommentPrefix is how a line comment of lang starts, with a space ("// ", "# "); "" for prose
// (markdown, text) and for no language; "// " for a language not in the table.
func CommentPrefix(lang string) string {
	if l, ok := byName[lang]; ok {
		return l.comment
	}
	if lang == "" {
		return ""
	}
	return "// "
}

// Document says whether path is prose read in sections, as markdown is: docs, not code.
func Document(path string) bool {
	l := byName[LanguageOf(path)]
	return l != nil && l.document
}

// Tagged says whether path is read with a grammar and its tag query: code, not documents or text.
func Tagged(path string) bool {
	l := byName[LanguageOf(path)]
	return l != nil && l.grammar != nil
}

// Languages lists every name LanguageOf can return, sorted.
func Languages() []string {
	out := make([]string, 0, len(rows))
	for _, l := range rows {
		out = append(out, l.name)
	}
	sort.Strings(out)
	return out
}
