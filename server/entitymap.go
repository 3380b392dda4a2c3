package server

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"

	"github.com/ctxmap/ctxmap/index"
)

const cmdEntityMap = "ctxmap.entityMap"

// entityMapArgs are ctxmap.entityMap's arguments.
type entityMapArgs struct {
	Entity string `json:"entity"`
	Top    int    `json:"top"`
}

// entityMapCommand answers {html, svg}: the entity map drawn as `ctxmap map` draws it, for an editor to
// show in a web view.
func (s *Server) entityMapCommand(ctx context.Context, a entityMapArgs) (any, error) {
	if err := index.CheckLimit("top", a.Top); err != nil {
		return nil, invalidParams("%s: %v", cmdEntityMap, err)
	}
	var page, svg bytes.Buffer
	entities := 0
	err := s.session().Read(ctx, func(ix *index.Index) error {
		m, err := ix.EntityPicture(a.Top, a.Entity)
		if err != nil {
			return err
		}
		m.Title = "Entities of " + filepath.Base(s.session().Root())
		if a.Entity != "" {
			m.Title += " around " + m.Focus
		}
		entities = len(m.Nodes)
		if err := m.WriteHTML(&page); err != nil {
			return err
		}
		return m.WriteSVG(&svg)
	})
	if errors.Is(err, index.ErrInvalid) {
		return nil, invalidParams("%s: %v", cmdEntityMap, err)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"html": page.String(), "svg": svg.String(), "entities": entities}, nil
}
