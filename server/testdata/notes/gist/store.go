package gist

import "fmt"

// GistStore keeps gists by their ID.
type GistStore struct {
	gists map[string]*Gist
}

// Save stores a gist, replacing one with the same ID.
func (s *GistStore) Save(g *Gist) {
	if s.gists == nil {
		s.gists = map[string]*Gist{}
	}
	s.gists[g.ID] = g
}

// Load returns the gist with that ID.
func (s *GistStore) Load(id string) (*Gist, error) {
	g, ok := s.gists[id]
	if !ok {
		return nil, fmt.Errorf("gist %s not found", id)
	}
	return g, nil
}
