package index

// Opening an index: the configuration, the cache folder and its lock, the stores, and what the state
// file holds (checked, and rebuilt when broken).

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/lexicon"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// Open prepares the index of a root: configuration, cache, stores. It reads what a previous run left in
// the cache but does not look at the files; call Build for that.
func Open(ctx context.Context, opts Options) (*Index, error) {
	root, err := walk.Root(opts.Root)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("workspace %s is not a folder", root)
	}
	ix := &Index{root: root, logf: opts.Logf, overlay: map[string][]byte{}, reread: map[string]bool{}}
	if ix.logf == nil {
		ix.logf = func(string, ...any) {}
	}
	if opts.Config != nil {
		ix.cfg = *opts.Config
	} else if ix.cfg, err = LoadConfig(root); err != nil {
		return nil, err
	}
	if err := ix.cfg.Validate(); err != nil {
		return nil, err
	}
	for _, msg := range ix.cfg.Ignored {
		ix.warn("%s", msg)
	}
	ix.workspaceLexicon = lexicon.NewWorkspace(root, ix.cfg.Lexicon, ix.warn)
	if !opts.InMemory {
		if ix.cache, err = cacheFolder(opts, root); err != nil {
			return nil, err
		}
		if walk.Inside(root, ix.cache) {
			return nil, fmt.Errorf("cache folder %s is inside the workspace %s", ix.cache, root)
		}
		// the cache holds the workspace's code: for its owner only; one that cannot be made or kept
		// private is not used, and the index is kept in memory, as when another process holds it
		if err := privateFolder(ix.cache); err != nil {
			ix.warn("%v; indexing in memory", err)
			ix.cache = ""
		}
	}
	if opts.Packs {
		// the tokenizer takes a quarter of a second to load: it loads while the index opens and builds
		go pack.NewTokenizer(ix.cfg.Tokenizer) // a bad name is reported by the request
	}
	state := ix.openStores(ctx, opts)
	if state != nil {
		ix.gen, ix.listing = state.Generation, state.Listing
		ix.snap.Store(snapshotOf(state, root))
	} else {
		ix.snap.Store(newSnapshot(root, 0, store.NewFiles(nil), map[string]string{}, nil))
	}
	return ix, nil
}

// privateFolder makes dir for its owner only, or takes group's and others' rights away from it; the
// owner's own (a user's 0500) are left as they are.
func privateFolder(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create cache folder: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cache folder: %w", err)
	}
	if mode := fi.Mode().Perm(); mode&0o077 != 0 {
		if err := os.Chmod(dir, mode&^0o077); err != nil {
			return fmt.Errorf("restrict cache folder: %w", err)
		}
	}
	return nil
}

// openStores opens the lexical and vector stores and the persisted state, and checks that they agree.
// Anything broken is reported, thrown away and rebuilt: a cache is never trusted over the files.
func (ix *Index) openStores(ctx context.Context, opts Options) *store.State {
	if ix.cache == "" {
		ix.lex, _ = bm25.Open("")
		ix.vectors = ix.newVectors(nil, "the index is kept in memory only")
		return nil
	}
	// One process owns the cache, from before its first store is opened or created until Close: no
	// other process writes, moves or removes anything in it meanwhile.
	lock, err := store.TakeLock(ix.cache)
	if errors.Is(err, store.ErrBusy) && opts.ReadHeld {
		if state := ix.readHeld(ctx, opts.SearchHeld); state != nil {
			return state
		}
	}
	if err != nil {
		if errors.Is(err, store.ErrBusy) {
			ix.warn("the cache %s is in use by another ctxmap process; indexing in memory", ix.cache)
		} else {
			ix.warn("%v; indexing in memory", err)
		}
		ix.cache = ""
		return ix.openStores(ctx, Options{})
	}
	ix.lock = lock
	store.RemoveLeftovers(ix.cache, ix.logf)
	lexDir := filepath.Join(ix.cache, "lexical.bleve")
	lex, err := bm25.Open(lexDir)
	if bm25.IsBusy(err) {
		// a ctxmap from before the owner lock holds the lexical index
		ix.warn("the cache %s is in use by another ctxmap process; indexing in memory", ix.cache)
		ix.lock.Release()
		ix.lock, ix.cache = nil, ""
		return ix.openStores(ctx, Options{})
	}
	rebuilt := err != nil // and said so
	var damaged *bm25.DamagedError
	if errors.As(err, &damaged) {
		ix.warn("cache file %s; %s, rebuilding", err, store.MoveAside(ix.cache, lexDir))
	} else if err != nil {
		ix.warn("lexical index unusable, rebuilding: %v", err)
		os.RemoveAll(lexDir)
	}
	if err != nil {
		if lex, err = bm25.Open(lexDir); err != nil {
			ix.warn("lexical index cannot be created, indexing in memory: %v", err)
			lex, _ = bm25.Open("")
		}
	}
	ix.lex = lex
	state, err := store.Load(ix.cache, ix.root)
	if errors.As(err, new(store.DamagedError)) {
		ix.warn("%v; %s, rebuilding", err, store.MoveAside(ix.cache, store.StatePath(ix.cache)))
	} else if err != nil {
		ix.warn("%v; rebuilding", err)
	}
	if state != nil {
		state.OnDamaged(func(p string, err error) {
			ix.damagedRecords.Add(1)
			ix.warn("cache %s: the record of %s is damaged (%v); the file is read again at the next build", store.StatePath(ix.cache), p, err)
		})
		meta, _ := lex.Meta("generation")
		if len(meta) != 8 || binary.BigEndian.Uint64(meta) != state.Generation {
			if !rebuilt {
				ix.warn("cache %s and its lexical index disagree; rebuilding", ix.cache)
			}
			state = nil
		}
	}
	if state == nil {
		// start the lexical index from nothing so that no chunk of an unknown file survives
		lex.Close()
		os.RemoveAll(lexDir)
		if ix.lex, err = bm25.Open(lexDir); err != nil {
			ix.warn("lexical index cannot be created, indexing in memory: %v", err)
			ix.lex, _ = bm25.Open("")
		}
	}
	ix.vectors = ix.newVectors(ix.embedder(ctx))
	if state != nil {
		ix.vectors.Resume(state.Generation)
	}
	return state
}

// embedder is the configuration's embedding model; without one, off says why.
func (ix *Index) embedder(ctx context.Context) (e embed.Embedder, off string) {
	if !ix.cfg.VectorsOn() {
		return nil, "disabled in the configuration"
	}
	e, err := embed.New(ctx, ix.cfg.Embedding)
	if err != nil {
		ix.warn("vectors off: %v", err)
		return nil, err.Error()
	}
	return e, ""
}
