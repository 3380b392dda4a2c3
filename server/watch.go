package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/watch"
)

// watchDebounce is short: the writer already folds the changes that arrive while it works into one
// update, so a longer wait would only add latency to a single save.
const watchDebounce = 20 * time.Millisecond

// startWatcher follows the disk with the same rules the index walks by; without it, the client's
// file events and ctxmap.reindex still keep the index current.
func (w *workspace) startWatcher() {
	cfg := w.cfg
	wt, err := watch.New(w.root, watch.Options{Debounce: watchDebounce, Walk: cfg.WalkOptions()})
	if err != nil {
		w.srv.logf("watch: %v", err)
		w.srv.logMessage(protocol.MessageTypeWarning, fmt.Sprintf("ctxmap does not watch the disk (%v): changes come from the editor's file events and ctxmap.reindex", err))
		return
	}
	w.watchMu.Lock()
	w.watcher = wt
	w.watchMu.Unlock()
	w.feeds.Add(2)
	go func() {
		defer w.feeds.Done()
		for b := range wt.Batches() {
			if b.Rescan {
				w.requestRescan()
			} else if len(b.Paths) > 0 {
				w.changed(b.Paths)
			}
		}
	}()
	go func() {
		defer w.feeds.Done()
		for msg := range wt.Warnings() {
			w.srv.logMessage(protocol.MessageTypeWarning, "ctxmap: "+msg)
		}
	}()
}

func (w *workspace) stopWatcher() {
	w.watchMu.Lock()
	wt := w.watcher
	w.watcher = nil
	w.watchMu.Unlock()
	if wt != nil {
		if err := wt.Close(); err != nil {
			w.srv.logf("close the watcher: %v", err)
		}
	}
	w.feeds.Wait()
}

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

func (s *Server) didChangeWatchedFiles(_ context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Changes []struct {
			URI  string `json:"uri"`
			Type int    `json:"type"`
		} `json:"changes"`
	}
	if err := decodeParams("workspace/didChangeWatchedFiles", raw, &p); err != nil {
		return nil, err
	}
	ws := s.workspace()
	var rels []string
	for _, c := range p.Changes {
		rel, err := ws.rel(c.URI)
		if err != nil || rel == ".git" || strings.HasPrefix(rel, ".git/") {
			continue // outside the workspace, or git's own files: nothing the index holds
		}
		rels = append(rels, rel)
	}
	if len(rels) > 0 {
		ws.changed(rels)
	}
	return nil, nil
}
