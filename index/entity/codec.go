package entity

import (
	"bytes"
	"encoding/gob"
	"errors"
)

// savedMap is a Map as the index's state file keeps it: the entities and the per-file tables that
// Aggregate derives, so that a process answering one query does not aggregate the workspace again.
type savedMap struct {
	Entities []*Entity
	Empty    []uint8 // per entity, which of its lists are empty but not nil (gob keeps no difference)
	Files    map[string][]savedMention
	Inferred map[string][]Inferred
}

type savedMention struct {
	Entity int32
	Score  float64
}

// MarshalBinary encodes the map for UnmarshalMap.
func (m *Map) MarshalBinary() ([]byte, error) {
	s := savedMap{Entities: m.Entities, Empty: make([]uint8, len(m.Entities)), Files: make(map[string][]savedMention, len(m.files)), Inferred: m.inferred}
	for i, e := range m.Entities {
		for j, l := range e.lists() {
			if *l != nil && len(*l) == 0 {
				s.Empty[i] |= 1 << j
			}
		}
		if e.Related != nil && len(e.Related) == 0 {
			s.Empty[i] |= 1 << 4
		}
	}
	for p, ms := range m.files {
		out := make([]savedMention, len(ms))
		for i, x := range ms {
			out[i] = savedMention{x.entity, x.score}
		}
		s.Files[p] = out
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(&s)
	return b.Bytes(), err
}

// UnmarshalMap decodes what MarshalBinary wrote.
func UnmarshalMap(b []byte) (*Map, error) {
	var s savedMap
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return nil, err
	}
	m := &Map{
		Entities: s.Entities,
		byName:   make(map[string]*Entity, len(s.Entities)),
		byWords:  make(map[string]*Entity, len(s.Entities)),
		joined:   map[string]*Entity{},
		byTerm:   map[string][]*Entity{},
		heads:    map[string][]*Entity{},
		files:    make(map[string][]mention, len(s.Files)),
		inferred: s.Inferred,
	}
	if m.inferred == nil {
		m.inferred = map[string][]Inferred{}
	}
	for p, ms := range s.Files {
		out := make([]mention, len(ms))
		for i, x := range ms {
			if x.Entity < 0 || int(x.Entity) >= len(m.Entities) {
				return nil, errBadMention
			}
			out[i] = mention{x.Entity, x.Score}
		}
		m.files[p] = out
	}
	if len(s.Empty) != len(m.Entities) {
		return nil, errBadMention
	}
	for i, e := range m.Entities {
		if e == nil {
			return nil, errBadMention
		}
		for j, l := range e.lists() {
			if s.Empty[i]&(1<<j) != 0 {
				*l = []string{}
			}
		}
		if e.Related == nil && s.Empty[i]&(1<<4) != 0 {
			e.Related = []Related{}
		}
	}
	m.index()
	return m, nil
}

var errBadMention = errors.New("an entity map names an entity it does not hold")

// lists are the entity's lists of names, whose nil and empty values a saved map tells apart; Related
// is the fifth.
func (e *Entity) lists() []*[]string {
	return []*[]string{&e.Terms, &e.Files, &e.Modules, &e.BusinessTerms}
}
