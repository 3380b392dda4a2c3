package server

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

// openSession opens a root's session: its index, queue and writer; the server adds the editor's
// buffers and reports the session's messages and progress to the client.
func (s *Server) openSession(ctx context.Context, root string, cfg index.Config) (*session.Session, error) {
	var sess *session.Session
	sess, err := session.Open(ctx, session.Options{
		Root: root, Config: &cfg, InMemory: s.opts.InMemory, CacheDir: s.opts.CacheDir, Watch: !s.opts.NoFileWatch, Listen: true,
		Logf: s.logf, Show: s.show,
		Progress: func(title, message string) session.Progress {
			p := s.beginProgress(title, message)
			p.sess = sess // set: a session reports progress once started, after Open returned
			return p
		},
	})
	return sess, err
}

// openRoots opens a session for each root not served yet, with the editor's settings; on a failure
// it closes those it opened.
func (s *Server) openRoots(ctx context.Context, roots []string) ([]*session.Session, error) {
	s.mu.Lock()
	st := s.settings
	s.mu.Unlock()
	var opened []*session.Session
	for _, root := range roots {
		if s.served(root) != nil || slices.ContainsFunc(opened, func(o *session.Session) bool { return o.Root() == root }) {
			continue
		}
		cfg, err := st.config(root)
		if err != nil {
			err = fmt.Errorf("the settings for %s: %w", root, err)
		} else {
			var sess *session.Session
			if sess, err = s.openSession(ctx, root, cfg); err == nil {
				opened = append(opened, sess)
				continue
			}
		}
		for _, o := range opened {
			o.Close()
		}
		return nil, err
	}
	return opened, nil
}

// served is the session of root, nil when none serves it.
func (s *Server) served(root string) *session.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.roots {
		if r.Root() == root {
			return r
		}
	}
	return nil
}

// sessions are the roots' sessions, the first folder's first.
func (s *Server) sessions() []*session.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.roots)
}

// closeRoots closes every root's session.
func (s *Server) closeRoots() {
	for _, sess := range s.sessions() {
		if err := sess.Close(); err != nil {
			s.logf("close the index of %s: %v", sess.Root(), err)
		}
	}
}

// place is where a document is: the session of the innermost root that holds it, and its path
// relative to that root; rel is "" for a document outside every root, which the first root's
// session answers for.
type place struct {
	sess *session.Session
	rel  string
}

// placeOf places a client URI; outside every root is an error a person can act on, with the first
// root's place.
func (s *Server) placeOf(uri string) (place, error) {
	abs, err := pathOfURI(uri)
	if err != nil {
		return place{sess: s.session()}, err
	}
	var best place
	for _, sess := range s.sessions() {
		if rel, ok := sess.RelPath(abs); ok && (best.sess == nil || len(sess.Root()) > len(best.sess.Root())) {
			best = place{sess, rel}
		}
	}
	if best.sess == nil {
		return place{sess: s.session()}, fmt.Errorf("%s is outside the workspace %s", abs, s.session().Root())
	}
	return best, nil
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

// didChangeWorkspaceFolders serves the roots of the folders added and stops serving a root no folder
// is in any more (the last root stays: a server always has one); open buffers follow their root.
func (s *Server) didChangeWorkspaceFolders(ctx context.Context, p protocol.DidChangeWorkspaceFoldersParams) (any, error) {
	var added []string
	for _, f := range p.Event.Added {
		root, err := folderRoot(f.URI)
		if err != nil {
			return nil, err
		}
		added = append(added, root)
	}
	opened, err := s.openRoots(ctx, added)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	s.mu.Lock()
	for _, f := range p.Event.Removed {
		delete(s.folders, f.URI)
	}
	for i, f := range p.Event.Added {
		s.folders[f.URI] = added[i]
	}
	s.roots = append(s.roots, opened...)
	var closed []*session.Session
	s.roots = slices.DeleteFunc(s.roots, func(r *session.Session) bool {
		for _, root := range s.folders {
			if root == r.Root() {
				return false
			}
		}
		if len(s.roots)-len(closed) == 1 {
			return false
		}
		closed = append(closed, r)
		return true
	})
	s.mu.Unlock()
	for _, sess := range opened {
		s.logf("workspace %s", sess.Root())
		sess.Start()
	}
	s.replaceDocuments()
	for _, sess := range closed {
		s.logf("workspace %s closed", sess.Root())
		if err := sess.Close(); err != nil {
			s.logf("close the index of %s: %v", sess.Root(), err)
		}
	}
	return nil, nil
}

// folderRoot is the root of a workspace folder: its repository (index.FindRoot).
func folderRoot(uri string) (string, error) {
	path, err := pathOfURI(uri)
	if err != nil {
		return "", invalidParams("workspace folder: %v", err)
	}
	root, err := index.FindRoot(path)
	if err != nil {
		return "", invalidParams("workspace folder %s: %v", path, err)
	}
	return root, nil
}

// replaceDocuments places the open buffers again after the roots changed: a buffer whose root is
// gone or that a new root holds moves to the session that answers for it now.
func (s *Server) replaceDocuments() {
	for _, doc := range s.docs.all() {
		pl, _ := s.placeOf(doc.uri)
		if pl == doc.place {
			continue
		}
		if doc.rel != "" {
			doc.sess.BufferClosed(doc.rel)
		}
		moved := *doc
		moved.place = pl
		s.docs.put(&moved)
		if pl.rel != "" {
			pl.sess.Edited(pl.rel, moved.text)
		}
	}
}

var errNoRoot = errors.New("no workspace: the client sent no workspace folder, rootUri or rootPath; open a folder")
