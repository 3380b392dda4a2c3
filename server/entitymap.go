package server

import (
	"bytes"
	"context"
	"path/filepath"

	"github.com/ctxmap/ctxmap/session"
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
	m, err := answer(ctx, cmdEntityMap, session.OpPicture, s.session(), session.PictureArgs{Top: a.Top, Name: a.Entity})
	if err != nil {
		return nil, err
	}
	m.Title = "Entities of " + filepath.Base(s.session().Root())
	if a.Entity != "" {
		m.Title += " around " + m.Focus
	}
	var page, svg bytes.Buffer
	if err := m.WriteHTML(&page); err != nil {
		return nil, err
	}
	if err := m.WriteSVG(&svg); err != nil {
		return nil, err
	}
	return map[string]any{"html": page.String(), "svg": svg.String(), "entities": len(m.Nodes)}, nil
}
