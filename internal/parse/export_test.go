package parse

import (
	"slices"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
)

// Row is a row of the language table as a test outside the package writes one.
type Row struct {
	Name    string
	Grammar func() *sitter.Language
	Exts    []string
	Comment string
	Query   string
}

// AddRow adds r to the language table as languages.go's rows are added, until the test ends.
func AddRow(t testing.TB, r Row) {
	l := &language{name: r.Name, grammar: r.Grammar, exts: r.Exts, comment: r.Comment, query: r.Query}
	add(l)
	t.Cleanup(func() {
		rows = slices.DeleteFunc(rows, func(x *language) bool { return x == l })
		delete(byName, l.name)
		for _, e := range l.exts {
			delete(byExt, e)
		}
		nameSeps, nestedSeps = namingSeps()
		if l.tags.q != nil {
			l.tags.q.query.Close()
		}
	})
}
