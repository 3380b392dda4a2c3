// Package describe writes what an editor shows on hover over a word: the definitions of that name and
// the entity behind it, where it is one of the project's, with links to their lines.
package describe

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/rank"
	"github.com/ctxmap/ctxmap/internal/records"
)

// maxHoverSymbols bounds the definitions listed for one name ("String" has hundreds).
const maxHoverSymbols = 5

// Workspace is what a description reads of an index's snapshot.
type Workspace struct {
	Root       string                                           // the workspace's folder, for the links
	Symbols    map[string][]records.SymbolRef                   // where each name is defined
	Definition func(records.SymbolRef) (parse.Definition, bool) // a definition by its place
	Record     func(path string) *records.Record                // a file's record; nil when none
	Entities   *entity.Map
	Files      int // how many files the workspace has (an entity in most of them is no description)
}

// Word is the Markdown an editor shows on hover over word: the definitions of that name and the entity
// behind it, with links to their lines; "" when there are neither.
func Word(snap Workspace, word string) string {
	var b strings.Builder
	refs := snap.Symbols[word]
	for i, ref := range refs { // the word's own definitions first
		if i == maxHoverSymbols {
			fmt.Fprintf(&b, "\n… and %d more definitions of `%s`\n", len(refs)-maxHoverSymbols, word)
			break
		}
		d, ok := snap.Definition(ref)
		if !ok {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n---\n\n")
		}
		describeDefinition(&b, snap, ref.Path, d)
	}
	if e := snap.Entities.Find(word); e != nil && rank.Specific(e, snap.Files) { // then the entity, where it is one of this project's
		if b.Len() > 0 {
			b.WriteString("\n---\n\n")
		}
		describeEntity(&b, snap, e)
	}
	return b.String()
}

// maxHoverFiles bounds the files listed for an entity.
const maxHoverFiles = 5

func describeEntity(b *strings.Builder, snap Workspace, e *entity.Entity) {
	fmt.Fprintf(b, "**%s** · entity · importance %.2f", e.Name, e.Importance)
	if e.Centrality != "" {
		fmt.Fprintf(b, " · %s", e.Centrality)
	}
	fmt.Fprintf(b, " · %d files\n\n", len(e.Files))
	if len(e.Files) > 0 {
		b.WriteString("Defined in: ")
		for i, p := range e.Files {
			if i == maxHoverFiles {
				fmt.Fprintf(b, " and %d more", len(e.Files)-maxHoverFiles)
				break
			}
			if i > 0 {
				b.WriteString(" · ")
			}
			b.WriteString(link(snap.Root, p, entityLine(snap.Record(p), e)))
		}
		b.WriteString("\n\n")
	}
	if len(e.Related) > 0 {
		names := make([]string, 0, 6)
		for i, r := range e.Related {
			if i == 6 {
				break
			}
			names = append(names, r.Name)
		}
		fmt.Fprintf(b, "Related: %s\n\n", strings.Join(names, ", "))
	}
	if len(e.BusinessTerms) > 0 {
		fmt.Fprintf(b, "Business terms: %s\n\n", strings.Join(firstOf(e.BusinessTerms, 8), ", "))
	}
}

// entityLine is the line in rec's file of the definition that names e best (entity.DefinitionLine).
func entityLine(rec *records.Record, e *entity.Entity) int {
	if rec == nil || rec.File == nil {
		return 1
	}
	return entity.DefinitionLine(rec.File.Definitions, e)
}

func describeDefinition(b *strings.Builder, snap Workspace, path string, d parse.Definition) {
	fmt.Fprintf(b, "**`%s`** %s", d.Name, d.Kind)
	if d.Parent != "" {
		fmt.Fprintf(b, " in `%s`", d.Parent)
	}
	fmt.Fprintf(b, " · %s\n", link(snap.Root, path, d.StartLine))
	if d.Signature != "" {
		lang := ""
		if rec := snap.Record(path); rec != nil {
			lang = rec.Language
		}
		fmt.Fprintf(b, "\n```%s\n%s\n```\n", lang, strings.ReplaceAll(d.Signature, "```", "` ` `"))
	}
	if doc := firstParagraph(d.Doc); doc != "" {
		fmt.Fprintf(b, "\n%s\n", doc)
	}
}

// link is a Markdown link to a line of a workspace file: [path:line](file:///abs/path#Lline).
func link(root, rel string, line int) string {
	return fmt.Sprintf("[%s:%d](%s#L%d)", rel, line, FileURI(filepath.Join(root, filepath.FromSlash(rel))), line)
}

// FileURI is the file: URI of an absolute path.
func FileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

func firstParagraph(doc string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	if len(doc) > 400 {
		doc = doc[:400] + "..."
	}
	return doc
}

func firstOf(s []string, n int) []string { return s[:min(len(s), n)] }
