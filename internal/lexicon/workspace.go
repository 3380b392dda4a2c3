package lexicon

// The lexicon of one workspace: the built-in lexicon, the project's file over it and the word pairs the
// workspace's entity map relates.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// Workspace makes the lexicon of one workspace and keeps it until the entity map or the project's file
// changes. It is safe for concurrent use.
type Workspace struct {
	file string                           // the project's lexicon, absolute; it need not exist
	root string                           // the workspace the file must stay in, when named relative to it
	warn func(format string, args ...any) // told why a project's file is ignored

	mu  sync.Mutex
	lex *Lexicon
	key workspaceKey
}

// workspaceKey is what a lexicon is made from: the entity map and the project file's version.
type workspaceKey struct {
	entities *entity.Map
	mod      time.Time
	size     int64
}

// NewWorkspace prepares the lexicon of the workspace at root, whose project lexicon is file (relative
// to root; "": .ctxmap/lexicon.yaml). Nothing is read until Lexicon.
func NewWorkspace(root, file string, warn func(format string, args ...any)) *Workspace {
	if file == "" {
		file = filepath.Join(".ctxmap", "lexicon.yaml")
	}
	w := &Workspace{file: file, warn: warn}
	if !filepath.IsAbs(file) {
		w.file, w.root = filepath.Join(root, file), root
	}
	return w
}

// Lexicon is the built-in lexicon, the project's file and pairs mined from entities, made again when
// entities or the file changed since the last call.
func (w *Workspace) Lexicon(entities *entity.Map) *Lexicon {
	key := workspaceKey{entities: entities}
	st, statErr := os.Stat(w.file)
	if statErr == nil {
		key.mod, key.size = st.ModTime(), st.Size()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lex != nil && w.key == key {
		return w.lex
	}
	lex := Builtin()
	if statErr == nil {
		if proj, err := w.load(); err != nil {
			w.warn("project lexicon ignored: %v", err)
		} else {
			lex = lex.With(proj)
		}
	}
	lex = lex.WithPairs(minedPairs(entities))
	w.lex, w.key = lex, key
	return lex
}

// load reads the project's lexicon; named inside the workspace, it may not lead outside it.
func (w *Workspace) load() (*Lexicon, error) {
	if w.root == "" {
		return Load(w.file)
	}
	data, err := walk.ReadInside(w.root, w.file, maxProjectFile)
	if err != nil {
		return nil, fmt.Errorf("read lexicon: %w", err)
	}
	return Parse(w.file, data)
}

// minedPairs are word pairs the workspace itself relates: the single-word entities that co-occur most.
func minedPairs(entities *entity.Map) []Pair {
	if entities == nil {
		return nil
	}
	var out []Pair
	for i, e := range entities.Entities {
		if i >= 300 {
			break
		}
		if len(e.Terms) != 1 {
			continue
		}
		for j, rel := range e.Related {
			if j >= 3 || rel.Weight < 0.3 {
				break
			}
			other := entities.Get(rel.Name)
			if other == nil || len(other.Terms) != 1 {
				continue
			}
			out = append(out, Pair{A: e.Terms[0], B: other.Terms[0], Weight: math.Min(0.5, rel.Weight)})
		}
	}
	return out
}
