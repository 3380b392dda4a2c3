package index

import "github.com/ctxmap/ctxmap/internal/describe"

// Describe is the Markdown an editor shows on hover over a word: the entity behind it and the
// definitions of that name, with links to their lines; "" when there are neither (see describe.Word).
func (snap *Snapshot) Describe(word string) string {
	return describe.Word(describe.Workspace{Root: snap.Root, Symbols: snap.Symbols, Definition: snap.definition,
		Record: snap.Record, Entities: snap.Entities, Files: len(snap.Paths)}, word)
}

// FileURI is the file: URI of an absolute path.
func FileURI(abs string) string { return describe.FileURI(abs) }
