package server

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

// openSession opens the workspace's session: its index, queue and writer; the server adds the
// editor's buffers and reports the session's messages and progress to the client.
func (s *Server) openSession(ctx context.Context, root string, cfg index.Config) (*session.Session, error) {
	return session.Open(ctx, session.Options{
		Root: root, Config: &cfg, InMemory: s.opts.InMemory, CacheDir: s.opts.CacheDir, Watch: !s.opts.NoFileWatch, Listen: true,
		Logf: s.logf, Show: s.show,
		Progress: func(title, message string) session.Progress { return s.beginProgress(title, message) },
	})
}

// show writes a session's message in the editor's log.
func (s *Server) show(level session.Level, msg string) {
	kind := protocol.MessageTypeInfo
	switch level {
	case session.Warning:
		kind = protocol.MessageTypeWarning
	case session.Error:
		kind = protocol.MessageTypeError
	}
	s.logMessage(kind, msg)
}

// rel turns a client URI into a workspace-relative path; outside the workspace is an error a person
// can act on.
func (s *Server) rel(uri string) (string, error) {
	abs, err := pathOfURI(uri)
	if err != nil {
		return "", err
	}
	sess := s.session()
	if rel, ok := sess.RelPath(abs); ok {
		return rel, nil
	}
	return "", fmt.Errorf("%s is outside the workspace %s", abs, sess.Root())
}
