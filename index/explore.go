package index

import (
	"fmt"
	"strings"

	"github.com/ctxmap/ctxmap/internal/entity"
)

// Exploration is what the workspace holds about one entity: the chunks that mention it most, the most
// recently changed first among equals (idea 002's explore_entity).
type Exploration struct {
	Entity *entity.Entity   `json:"entity"`
	Chunks []entity.Mention `json:"chunks"`
}

// ErrUnknownEntity is returned for a name the entity map does not hold.
var ErrUnknownEntity = fmt.Errorf("%w: unknown entity", ErrInvalid)

// Explore lists the chunks about an entity, at most limit (0: DefaultExplore).
func (ix *Index) Explore(name string, limit int) (*Exploration, error) {
	s := ix.Snapshot()
	if limit <= 0 {
		limit = DefaultExplore
	}
	e := s.Entities.Get(strings.ReplaceAll(strings.TrimSpace(name), " ", "_"))
	if e == nil {
		if near := s.Entities.Near(name, 5); len(near) > 0 {
			return nil, fmt.Errorf("%w %s; did you mean %s?", ErrUnknownEntity, Quote(name), strings.Join(near, ", "))
		}
		return nil, fmt.Errorf("%w %s", ErrUnknownEntity, Quote(name))
	}
	return &Exploration{Entity: e, Chunks: s.Entities.Mentions(e, s.Record, s.History.LastChanged(), limit)}, nil
}
