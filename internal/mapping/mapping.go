// Package mapping reads mapping files: texts that say, in the words a user would use, what a piece of
// the workspace is about (questions, tasks, pseudocode, code in other languages, errors, keywords,
// concepts), each linked to its source. The index searches them and ranks their sources.
package mapping

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ctxmap/ctxmap/internal/walk"
)

// Schema is the JSON Schema of a mapping file (schema/mapping.schema.json); Parse checks the same rules.
//
//go:embed mapping.schema.json
var Schema []byte

// Types are the mapping types, in the order the schema lists them.
var Types = []string{"question", "task", "pseudocode", "code_analog", "error", "keywords", "concepts"}

// DefaultFolders hold the mapping files when the configuration names none.
var DefaultFolders = []string{"mappings"}

// Entry is one mapping text with its source and where it was written.
type Entry struct {
	Source     string // as written: path or path::Symbol
	Path       string // the workspace path of the source
	Symbol     string // the symbol of the source, "" for a whole file
	RecordID   string
	SourceType string
	Type       string // one of Types
	Language   string // of a code_analog
	Text       string
	File       string // the mapping file, or the source file for generated entries
	Line       int
}

// Problem is what is wrong in a mapping file, at a line.
type Problem struct {
	File    string
	Line    int
	Message string
}

// String is the problem as file:line: message.
func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message) }

// IsMappingFile reports whether a workspace path is a mapping file: YAML under one of the folders.
func IsMappingFile(rel string, folders []string) bool {
	if ext := path.Ext(rel); ext != ".yaml" && ext != ".yml" {
		return false
	}
	if len(folders) == 0 {
		folders = DefaultFolders
	}
	for _, f := range folders {
		f = strings.Trim(filepath.ToSlash(f), "/")
		if f != "" && strings.HasPrefix(rel, f+"/") {
			return true
		}
	}
	return false
}

// Parse reads one mapping file. Entries come from every well-formed mapping even when others are
// broken; each problem has its line.
func Parse(file string, src []byte) ([]Entry, []Problem) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(src)).Decode(&doc); err == io.EOF {
		return nil, []Problem{{File: file, Line: 1, Message: "empty file: a mapping file needs source and mappings"}}
	} else if err != nil {
		return nil, []Problem{{File: file, Line: yamlLine(err), Message: "not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	if len(doc.Content) == 0 {
		return nil, []Problem{{File: file, Line: 1, Message: "empty file: a mapping file needs source and mappings"}}
	}
	root := doc.Content[0]
	var problems []Problem
	bad := func(n *yaml.Node, format string, args ...any) {
		problems = append(problems, Problem{File: file, Line: n.Line, Message: fmt.Sprintf(format, args...)})
	}
	if root.Kind != yaml.MappingNode {
		bad(root, "a mapping file is a map with source and mappings")
		return nil, problems
	}
	var head Entry
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "source", "record_id", "source_type":
			if v.Kind != yaml.ScalarNode {
				bad(v, "%s must be a string", k.Value)
				continue
			}
			switch k.Value {
			case "source":
				head.Source = strings.TrimSpace(v.Value)
			case "record_id":
				head.RecordID = v.Value
			default:
				head.SourceType = v.Value
			}
		case "mappings":
			list = v
		default:
			bad(k, "unknown field %q (allowed: source, record_id, source_type, mappings)", k.Value)
		}
	}
	if head.Source == "" {
		bad(root, "source is missing: the workspace path (or path::Symbol) the mappings describe")
	}
	head.Path, head.Symbol, _ = strings.Cut(head.Source, "::")
	head.Path = strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(head.Path)), "/")
	if head.Source != "" && head.Path == "" {
		bad(root, "source %q names no file: write path or path::Symbol", head.Source)
		head.Source = ""
	}
	if list == nil {
		bad(root, "mappings is missing: a list of {type, text}")
		return nil, problems
	}
	if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		bad(list, "mappings must be a non-empty list of {type, text}")
		return nil, problems
	}
	var out []Entry
	for _, m := range list.Content {
		e, ok := parseMapping(m, head, bad)
		if ok {
			e.File = file
			out = append(out, e)
		}
	}
	if head.Source == "" {
		return nil, problems
	}
	return out, problems
}

func parseMapping(m *yaml.Node, head Entry, bad func(*yaml.Node, string, ...any)) (Entry, bool) {
	e := head
	e.Line = m.Line
	if m.Kind != yaml.MappingNode {
		bad(m, "a mapping is a map with type and text")
		return e, false
	}
	ok := true
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			bad(v, "%s must be a string", k.Value)
			ok = false
			continue
		}
		switch k.Value {
		case "type":
			e.Type = v.Value
		case "language":
			e.Language = v.Value
		case "text":
			e.Text = strings.TrimSpace(v.Value)
		default:
			bad(k, "unknown field %q in a mapping (allowed: type, language, text)", k.Value)
			ok = false
		}
	}
	switch {
	case e.Type == "":
		bad(m, "type is missing (one of %s)", strings.Join(Types, ", "))
		return e, false
	case !slices.Contains(Types, e.Type):
		bad(m, "type %q is not one of %s", e.Type, strings.Join(Types, ", "))
		return e, false
	case e.Text == "":
		bad(m, "text is missing or empty")
		return e, false
	case e.Type == "code_analog" && e.Language == "":
		bad(m, "a code_analog needs its language (python, sql, bash...)")
		return e, false
	}
	return e, ok
}

// yamlLine digs the line out of a yaml.v3 error ("yaml: line 3: ...").
func yamlLine(err error) int {
	var n int
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		fmt.Sscanf(msg[i+5:], "%d", &n)
	}
	return max(n, 1)
}

// maxFile caps the size of a mapping file read.
const maxFile = 4 << 20

// Load reads every mapping file under the folders of root (DefaultFolders when none). A broken file
// gives problems and never stops the others; an unreadable folder is a problem too.
func Load(root string, folders []string) ([]Entry, []Problem) {
	if len(folders) == 0 {
		folders = DefaultFolders
	}
	var out []Entry
	var problems []Problem
	for _, f := range folders {
		dir := filepath.Join(root, filepath.FromSlash(f))
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		var files []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				problems = append(problems, Problem{File: rel(root, p), Line: 0, Message: err.Error()})
				return nil
			}
			if d.Type().IsRegular() && IsMappingFile(rel(root, p), folders) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			problems = append(problems, Problem{File: f, Message: err.Error()})
		}
		sort.Strings(files)
		for _, p := range files {
			src, err := walk.ReadInside(root, p, maxFile)
			if err != nil {
				problems = append(problems, Problem{File: rel(root, p), Message: err.Error()})
				continue
			}
			es, ps := Parse(rel(root, p), src)
			out = append(out, es...)
			problems = append(problems, ps...)
		}
	}
	return out, problems
}

// Validate checks every mapping file under the folders and, for each entry, that its source exists.
func Validate(root string, folders []string) []Problem {
	entries, problems := Load(root, folders)
	checked := map[string]bool{}
	for _, e := range entries {
		if checked[e.File+"\x00"+e.Path] {
			continue
		}
		checked[e.File+"\x00"+e.Path] = true
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(e.Path))); err != nil {
			problems = append(problems, Problem{File: e.File, Line: e.Line, Message: fmt.Sprintf("source %s does not exist in the workspace", e.Path)})
		}
	}
	sort.SliceStable(problems, func(i, j int) bool {
		if problems[i].File != problems[j].File {
			return problems[i].File < problems[j].File
		}
		return problems[i].Line < problems[j].Line
	})
	return problems
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}
