package parse

import (
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

// language ties a name to its file names and its grammar; the tag query is queries/<name>.scm.
// A nil grammar means the language is read without tree-sitter (markdown, text). What ranking and
// packing ask of a language comes from its row too: the comment that starts a line of it.
type language struct {
	name    string
	grammar func() *sitter.Language
	exts    []string // lower-case, with the dot
	files   []string // exact base names for files without a telling extension
	naming  naming
	comment string // a line comment's start and a space: "// ", "# "; "" for prose
}

// naming is how a language writes a qualified name in text (a trace, a log, an issue): the separators
// between its parts, and the one that joins a nested type to its outer type in a binary name.
type naming struct {
	seps   []string // "::" (ns::Class::m), "." (pkg.Class.m), "->", "#" (Class#method)
	nested string   // "$": Java's Outer$Inner, which splits only before the inner type's capital
}

var table = []language{
	{"go", golang.GetLanguage, []string{".go"}, nil, naming{seps: []string{"."}}, "// "},
	{"python", python.GetLanguage, []string{".py", ".pyi", ".pyw"}, []string{"SConstruct", "SConscript"}, naming{seps: []string{"."}}, "# "},
	{"javascript", javascript.GetLanguage, []string{".js", ".jsx", ".mjs", ".cjs"}, nil, naming{seps: []string{".", "#"}}, "// "},
	{"typescript", typescript.GetLanguage, []string{".ts", ".mts", ".cts"}, nil, naming{seps: []string{".", "#"}}, "// "},
	{"tsx", tsx.GetLanguage, []string{".tsx"}, nil, naming{seps: []string{".", "#"}}, "// "},
	{"java", java.GetLanguage, []string{".java"}, nil, naming{seps: []string{"."}, nested: "$"}, "// "},
	{"rust", rust.GetLanguage, []string{".rs"}, nil, naming{seps: []string{"::"}}, "// "},
	{"c", c.GetLanguage, []string{".c", ".h"}, nil, naming{seps: []string{"->", "."}}, "// "},
	{"cpp", cpp.GetLanguage, []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"}, nil, naming{seps: []string{"::", "->", "."}}, "// "},
	{"csharp", csharp.GetLanguage, []string{".cs"}, nil, naming{seps: []string{"."}}, "// "},
	{"ruby", ruby.GetLanguage, []string{".rb", ".rake", ".gemspec"}, []string{"Rakefile", "Gemfile", "Guardfile", "Vagrantfile"}, naming{seps: []string{"::", "#", "."}}, "# "},
	{"php", php.GetLanguage, []string{".php", ".phtml"}, nil, naming{seps: []string{"::", "->", "\\"}}, "// "},
	{"kotlin", kotlin.GetLanguage, []string{".kt", ".kts"}, nil, naming{seps: []string{"."}, nested: "$"}, "// "},
	{"scala", scala.GetLanguage, []string{".scala", ".sc"}, nil, naming{seps: []string{".", "#"}, nested: "$"}, "// "},
	{"swift", swift.GetLanguage, []string{".swift"}, nil, naming{seps: []string{"."}}, "// "},
	{"bash", bash.GetLanguage, []string{".sh", ".bash"}, []string{".bashrc", ".bash_profile"}, naming{}, "# "},
	{"markdown", nil, []string{".md", ".markdown", ".mdx"}, nil, naming{}, ""},
	// configuration and other text that issues ask to change: indexed as one section per file
	{"text", nil, []string{".txt", ".rst", ".adoc", ".toml", ".yaml", ".yml", ".json", ".cfg", ".ini", ".conf",
		".properties", ".gradle", ".cmake", ".proto", ".sql", ".jq", ".el", ".vim", ".lua", ".pl", ".r", ".dart", ".ex", ".exs", ".hs", ".ml", ".nim", ".zig"},
		[]string{"Makefile", "Dockerfile", "CMakeLists.txt", "CHANGELOG", "CHANGES", "NEWS", "Cargo.toml", "go.mod", "setup.cfg", "tox.ini"}, naming{}, ""},
}

var (
	byName = map[string]*language{}
	byExt  = map[string]string{}
	byFile = map[string]string{}
)

func init() {
	for i := range table {
		l := &table[i]
		byName[l.name] = l
		for _, e := range l.exts {
			byExt[e] = l.name
		}
		for _, f := range l.files {
			byFile[f] = l.name
		}
	}
}

var nameSeps, nestedSeps = namingSeps()

// namingSeps are the separators of every language's names, the longest first.
func namingSeps() (seps, nested []string) {
	seen := map[string]bool{}
	for _, l := range table {
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

// Languages lists every name LanguageOf can return, sorted.
func Languages() []string {
	out := make([]string, 0, len(table))
	for _, l := range table {
		out = append(out, l.name)
	}
	sort.Strings(out)
	return out
}
