package gist

import "errors"

// ErrSecretGist is returned when a secret gist is published.
var ErrSecretGist = errors.New("secret gists cannot be published")

// Publish makes a gist public after checking that none of its files is empty.
func Publish(g *Gist) error {
	if !g.Public {
		return ErrSecretGist
	}
	for _, f := range g.Files {
		if f.Content == "" {
			return errors.New("gist file " + f.Name + " is empty")
		}
	}
	return nil
}
