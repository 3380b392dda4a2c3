package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
)

// initializeParams is the part of InitializeParams the server reads; decoding the library's full
// struct would fail on capabilities newer than LSP 3.15 that editors send.
type initializeParams struct {
	RootURI               string                     `json:"rootUri"`
	RootPath              string                     `json:"rootPath"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
	InitializationOptions json.RawMessage            `json:"initializationOptions"`
	Capabilities          struct {
		Window *struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Workspace *struct {
			DidChangeWatchedFiles *struct {
				DynamicRegistration bool `json:"dynamicRegistration"`
			} `json:"didChangeWatchedFiles"`
		} `json:"workspace"`
	} `json:"capabilities"`
}

type clientCaps struct {
	progress     bool // window.workDoneProgress
	watchedFiles bool // workspace.didChangeWatchedFiles.dynamicRegistration
}

// settings are the options an editor sends in initializationOptions and didChangeConfiguration; unset
// fields keep the workspace's .ctxmap.yaml values.
type settings struct {
	Budget      *int      `json:"budget"`
	Format      *string   `json:"format"`
	Tokenizer   *string   `json:"tokenizer"`
	Exclude     *[]string `json:"exclude"`
	MaxFileSize *int64    `json:"maxFileSize"`
	Vendored    *bool     `json:"vendored"`
	History     *int      `json:"history"`
	Vectors     *bool     `json:"vectors"`
	Lexicon     *string   `json:"lexicon"`
	Ranker      *string   `json:"ranker"`
	Fill        *bool     `json:"fill"`
	Tight       *bool     `json:"tight"`
	// the whole embedding block, in place of the file's
	Embedding *index.Embedding `json:"embedding"`
}

// parseSettings decodes editor options; unknown keys are reported, not fatal, since editors share one
// settings object between versions.
func parseSettings(raw json.RawMessage, warn func(string)) (settings, error) {
	var st settings
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return st, nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return st, fmt.Errorf("the options must be a JSON object: %v", err)
	}
	if inner, ok := keys["ctxmap"]; ok && len(bytes.TrimSpace(inner)) > 0 && bytes.TrimSpace(inner)[0] == '{' {
		return parseSettings(inner, warn)
	}
	known := map[string]bool{}
	t := reflect.TypeOf(st)
	for i := 0; i < t.NumField(); i++ {
		known[t.Field(i).Tag.Get("json")] = true
	}
	for k := range keys {
		if !known[k] {
			warn(fmt.Sprintf("unknown option %s ignored", index.Quote(k)))
		}
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("options: %s", jsonProblem(err))
	}
	return st, nil
}

// config lays the settings over the workspace's .ctxmap.yaml and checks the result.
func (st settings) config(root string) (index.Config, error) {
	cfg, err := index.LoadConfig(root)
	if err != nil {
		return cfg, err
	}
	given(&cfg.Budget, st.Budget)
	given(&cfg.Format, st.Format)
	given(&cfg.Tokenizer, st.Tokenizer)
	given(&cfg.Exclude, st.Exclude)
	given(&cfg.MaxFileSize, st.MaxFileSize)
	given(&cfg.Vendored, st.Vendored)
	given(&cfg.History, st.History)
	if st.Vectors != nil {
		cfg.Vectors = st.Vectors // the pointer: nil is the default
	}
	given(&cfg.Lexicon, st.Lexicon)
	given(&cfg.Embedding, st.Embedding)
	given(&cfg.Ranker, st.Ranker)
	given(&cfg.Fill, st.Fill)
	given(&cfg.Tight, st.Tight)
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// given puts a setting in *to when the editor gave it.
func given[T any](to *T, setting *T) {
	if setting != nil {
		*to = *setting
	}
}

func (s *Server) initialize(ctx context.Context, p initializeParams) (any, error) {
	roots, err := s.rootsOf(p)
	if err != nil {
		return nil, err
	}
	st, err := parseSettings(p.InitializationOptions, func(msg string) {
		s.logf("initializationOptions: %s", msg)
	})
	if err != nil {
		return nil, invalidParams("initializationOptions: %v", err)
	}
	s.mu.Lock()
	s.settings = st
	s.mu.Unlock()
	sessions, err := s.openRoots(ctx, roots)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	s.mu.Lock()
	s.phase = running
	s.roots = sessions
	if w := p.Capabilities.Window; w != nil {
		s.caps.progress = w.WorkDoneProgress
	}
	if w := p.Capabilities.Workspace; w != nil && w.DidChangeWatchedFiles != nil {
		s.caps.watchedFiles = w.DidChangeWatchedFiles.DynamicRegistration
	}
	s.mu.Unlock()
	for _, sess := range sessions {
		s.logf("workspace %s", sess.Root())
	}
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{},
			},
			HoverProvider:           true,
			CodeLensProvider:        &protocol.CodeLensOptions{},
			DocumentSymbolProvider:  true,
			WorkspaceSymbolProvider: true,
			ExecuteCommandProvider:  &protocol.ExecuteCommandOptions{Commands: append([]string(nil), commandNames...)},
			Workspace: &protocol.ServerCapabilitiesWorkspace{
				WorkspaceFolders: &protocol.ServerCapabilitiesWorkspaceFolders{Supported: true, ChangeNotifications: true},
			},
		},
		ServerInfo: &protocol.ServerInfo{Name: "ctxmap", Version: s.opts.Version},
	}, nil
}

// rootsOf picks the workspace's roots: the repository (index.FindRoot) of each workspace folder, the
// first folder's first, else of rootUri, else of rootPath, else of the server's own default.
func (s *Server) rootsOf(p initializeParams) ([]string, error) {
	folders := map[string]string{}
	var roots []string
	for _, f := range p.WorkspaceFolders {
		root, err := folderRoot(f.URI)
		if err != nil {
			return nil, err
		}
		folders[f.URI] = root
		roots = append(roots, root)
	}
	s.mu.Lock()
	s.folders = folders
	s.mu.Unlock()
	if len(roots) > 0 {
		return roots, nil
	}
	root, err := s.rootOf(p)
	return []string{root}, err
}

// rootOf is the repository of rootUri, else of rootPath, else of the server's own default.
func (s *Server) rootOf(p initializeParams) (string, error) {
	var root string
	switch {
	case p.RootURI != "":
		path, err := pathOfURI(p.RootURI)
		if err != nil {
			return "", invalidParams("rootUri: %v", err)
		}
		root = path
	case p.RootPath != "":
		root = p.RootPath
	case s.opts.Root != "":
		root = s.opts.Root
	default:
		return "", invalidParams("%v", errNoRoot)
	}
	// the repository the folder is in: its nearest folder with .ctxmap.yaml or .git
	abs, err := index.FindRoot(root)
	if err != nil {
		return "", invalidParams("workspace %s: %v", root, err)
	}
	return abs, nil
}

func (s *Server) initialized(context.Context) (any, error) {
	s.mu.Lock()
	caps := s.caps
	s.mu.Unlock()
	for _, sess := range s.sessions() {
		sess.Start()
	}
	if caps.watchedFiles {
		// asked on its own goroutine: the client answers through the read loop
		go s.registerWatchedFiles()
	}
	return nil, nil
}

func (s *Server) shutdown(context.Context) (any, error) {
	s.mu.Lock()
	s.phase = shuttingDown
	s.mu.Unlock()
	s.closeRoots()
	return nil, nil
}

func (s *Server) exit(context.Context) (any, error) {
	s.mu.Lock()
	s.exited = true
	s.mu.Unlock()
	return nil, s.conn.Close()
}

// configurationParams are workspace/didChangeConfiguration's parameters, the settings left for
// parseSettings.
type configurationParams struct {
	Settings json.RawMessage `json:"settings"`
}

func (s *Server) didChangeConfiguration(_ context.Context, p configurationParams) (any, error) {
	st, err := parseSettings(p.Settings, func(msg string) {
		s.logMessage(protocol.MessageTypeWarning, "ctxmap settings: "+msg)
	})
	if err != nil {
		return nil, invalidParams("settings: %v", err)
	}
	// every root's configuration checked before any is changed
	sessions := s.sessions()
	cfgs := make([]index.Config, len(sessions))
	for i, sess := range sessions {
		if cfgs[i], err = st.config(sess.Root()); err != nil {
			return nil, invalidParams("settings: %v (the previous settings stay in force)", err)
		}
	}
	s.mu.Lock()
	s.settings = st
	s.mu.Unlock()
	for i, sess := range sessions {
		if sess.Reconfigure(cfgs[i]) {
			s.logMessage(protocol.MessageTypeInfo, "ctxmap settings changed: indexing "+sess.Root()+" again")
		}
	}
	return nil, nil
}

// jsonProblem says what is wrong with a JSON value in words a person can act on.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			return fmt.Sprintf("expected %s, got a JSON %s", kindName(te.Type.Kind().String()), te.Value)
		}
		return fmt.Sprintf("%s must be %s, not a JSON %s", field, kindName(te.Type.String()), te.Value)
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, err)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown argument " + f
	}
	return strings.TrimPrefix(msg, "json: ")
}

func kindName(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a whole number"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "an object"
}
