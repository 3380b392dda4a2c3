package index

import (
	"errors"
	"fmt"

	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/entity/picture"
)

// EntitySummary is an entity as the lists of entities show it.
type EntitySummary = entity.Summary

// TopEntities are the workspace's entities by importance, at most top (0: DefaultTop).
func (s *Snapshot) TopEntities(top int) []EntitySummary {
	if top <= 0 {
		top = DefaultTop
	}
	if s.Entities == nil {
		return []EntitySummary{}
	}
	return s.Entities.Top(top)
}

// Picture is the entity map laid out for drawing, with its SVG and HTML renderings.
type Picture = picture.Picture

// EntityPicture lays out the entity map of the current snapshot for drawing (as SVG or HTML): the top
// most important entities (0: picture.DefaultTop), or, with focus, that entity and its neighbourhood.
// An entity's files link to the definition in each that mentions it most.
func (ix *Index) EntityPicture(top int, focus string) (*Picture, error) {
	s := ix.Snapshot()
	if s.Entities == nil || len(s.Entities.Entities) == 0 {
		return nil, fmt.Errorf("%s has no entities yet", ix.Root())
	}
	changed := s.History.LastChanged()
	mentions := func(e *entity.Entity, limit int) []entity.Mention {
		return s.Entities.Mentions(e, s.Record, changed, limit)
	}
	p, err := picture.Draw(s.Entities, ix.Root(), picture.Options{Top: top, Entity: focus}, mentions)
	if errors.Is(err, picture.ErrNoFocus) {
		return nil, fmt.Errorf("%w %s", ErrUnknownEntity, Quote(focus))
	}
	return p, err
}
