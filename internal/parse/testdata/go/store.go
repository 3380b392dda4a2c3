// Package store keeps quality profiles in memory.
package store

import (
	"errors"
	"fmt"
	"sync"
)

// MaxProfiles bounds how many profiles one store may hold.
const MaxProfiles = 64

var ErrNotFound = errors.New("profile not found")

// Profile is a named set of rules.
type Profile struct {
	Name  string
	Rules []string // rule keys, in activation order
}

// Finder looks profiles up by name.
type Finder interface {
	Find(name string) (*Profile, error)
}

type RuleKey string

// Store holds profiles guarded by a mutex.
type Store struct {
	mu       sync.Mutex
	profiles map[string]*Profile
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{profiles: make(map[string]*Profile)}
}

// Add registers p, refusing duplicates.
func (s *Store) Add(p *Profile) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.profiles) >= MaxProfiles {
		return fmt.Errorf("cannot add profile %q: store is full", p.Name)
	}
	// TODO: normalise names before comparing them
	s.profiles[p.Name] = p
	return nil
}

// Find returns the profile called name.
func (s *Store) Find(name string) (*Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.profiles[name]
	if !ok {
		return nil, fmt.Errorf("find %s: %w", name, ErrNotFound)
	}
	return p, nil
}

func countRules(ps []*Profile) int {
	n := 0
	for _, p := range ps {
		n += len(p.Rules)
	}
	return n
}
