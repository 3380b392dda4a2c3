package server

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/session"
)

// registerWatchedFiles asks the client for its file events as well; a path reported by both sources
// is queued once, or re-read with the same content, which changes nothing.
func (s *Server) registerWatchedFiles() {
	params := &protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID:     "ctxmap-watched-files",
		Method: protocol.MethodWorkspaceDidChangeWatchedFiles,
		RegisterOptions: &protocol.DidChangeWatchedFilesRegistrationOptions{
			Watchers: []protocol.FileSystemWatcher{{GlobPattern: "**/*"}},
		},
	}}}
	if err := s.call(protocol.MethodClientRegisterCapability, params, nil); err != nil {
		s.logf("register for workspace/didChangeWatchedFiles: %v", err)
	}
}

// watchedFilesParams are workspace/didChangeWatchedFiles' parameters.
type watchedFilesParams struct {
	Changes []struct {
		URI  string `json:"uri"`
		Type int    `json:"type"`
	} `json:"changes"`
}

func (s *Server) didChangeWatchedFiles(_ context.Context, p watchedFilesParams) (any, error) {
	rels := map[*session.Session][]string{}
	var order []*session.Session
	for _, c := range p.Changes {
		pl, err := s.placeOf(c.URI)
		if err != nil || pl.rel == ".git" || strings.HasPrefix(pl.rel, ".git/") {
			continue // outside the workspace, or git's own files: nothing the index holds
		}
		if rels[pl.sess] == nil {
			order = append(order, pl.sess)
		}
		rels[pl.sess] = append(rels[pl.sess], pl.rel)
	}
	for _, sess := range order {
		sess.Changed(rels[sess])
	}
	return nil, nil
}
