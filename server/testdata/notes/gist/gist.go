package gist

import "strings"

// Gist is a shared snippet: one or more files with a description, public or secret.
type Gist struct {
	ID          string
	Description string
	Public      bool
	Files       []GistFile
}

// GistFile is one file of a gist.
type GistFile struct {
	Name    string
	Content string
}

// Summary is the gist's description cut to fit one line.
func (g *Gist) Summary() string {
	// TODO: gist descriptions longer than 80 characters are cut in the middle of a word
	if len(g.Description) > 80 {
		return g.Description[:80]
	}
	return strings.TrimSpace(g.Description)
}
