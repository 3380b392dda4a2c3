package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/ctxmap/ctxmap/index"
)

const cmdEntityMap = "ctxmap.entityMap"

// entityMapCommand answers {html, svg}: the entity map drawn as `ctxmap map` draws it, for an editor to
// show in a web view.
func (s *Server) entityMapCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct {
		Entity string `json:"entity"`
		Top    int    `json:"top"`
	}
	if err := decodeArg(cmdEntityMap, raw, &a, "{entity, top}"); err != nil {
		return nil, err
	}
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
