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
	comment string   // a line comment's start and a space: "// ", "# "; "" for prose
}

var table = []language{
	{"go", golang.GetLanguage, []string{".go"}, nil, "// "},
	{"python", python.GetLanguage, []string{".py", ".pyi", ".pyw"}, []string{"SConstruct", "SConscript"}, "# "},
	{"javascript", javascript.GetLanguage, []string{".js", ".jsx", ".mjs", ".cjs"}, nil, "// "},
	{"typescript", typescript.GetLanguage, []string{".ts", ".mts", ".cts"}, nil, "// "},
	{"tsx", tsx.GetLanguage, []string{".tsx"}, nil, "// "},
	{"java", java.GetLanguage, []string{".java"}, nil, "// "},
	{"rust", rust.GetLanguage, []string{".rs"}, nil, "// "},
	{"c", c.GetLanguage, []string{".c", ".h"}, nil, "// "},
	{"cpp", cpp.GetLanguage, []string{".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp"}, nil, "// "},
	{"csharp", csharp.GetLanguage, []string{".cs"}, nil, "// "},
	{"ruby", ruby.GetLanguage, []string{".rb", ".rake", ".gemspec"}, []string{"Rakefile", "Gemfile", "Guardfile", "Vagrantfile"}, "# "},
	{"php", php.GetLanguage, []string{".php", ".phtml"}, nil, "// "},
	{"kotlin", kotlin.GetLanguage, []string{".kt", ".kts"}, nil, "// "},
	{"scala", scala.GetLanguage, []string{".scala", ".sc"}, nil, "// "},
	{"swift", swift.GetLanguage, []string{".swift"}, nil, "// "},
	{"bash", bash.GetLanguage, []string{".sh", ".bash"}, []string{".bashrc", ".bash_profile"}, "# "},
	{"markdown", nil, []string{".md", ".markdown", ".mdx"}, nil, ""},
	// configuration and other text that issues ask to change: indexed as one section per file
	{"text", nil, []string{".txt", ".rst", ".adoc", ".toml", ".yaml", ".yml", ".json", ".cfg", ".ini", ".conf",
		".properties", ".gradle", ".cmake", ".proto", ".sql", ".jq", ".el", ".vim", ".lua", ".pl", ".r", ".dart", ".ex", ".exs", ".hs", ".ml", ".nim", ".zig"},
		[]string{"Makefile", "Dockerfile", "CMakeLists.txt", "CHANGELOG", "CHANGES", "NEWS", "Cargo.toml", "go.mod", "setup.cfg", "tox.ini"}, ""},
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
