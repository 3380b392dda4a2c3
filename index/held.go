package index

// Reading a cache another process holds, as that process last saved it (Options.ReadHeld).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/store"
)

// readHeld reads the state of a cache another process holds (the file stays open while its records
// are read: a newer one renamed over it changes nothing here); nil when there is none to read.
// Nothing of the cache is written: the lexical index is kept in memory, and the vectors are read in
// place when search asks for them and they are the state's.
func (ix *Index) readHeld(ctx context.Context, search bool) *store.State {
	state, err := store.Load(ix.cache, ix.root)
	if err != nil || state == nil {
		return nil
	}
	cache := ix.cache
	state.OnDamaged(func(p string, err error) {
		ix.damagedRecords.Add(1)
		ix.warn("cache %s: the record of %s is damaged (%v)", store.StatePath(cache), p, err)
	})
	ix.warn("the cache %s is in use by another ctxmap process; reading it as that process last saved it", cache)
	ix.held, ix.cache, ix.heldSearch = cache, "", search
	ix.lex, _ = bm25.Open("")
	var e embed.Embedder
	off := "the cache is another process's"
	if search {
		e, off = ix.embedder(ctx)
	}
	ix.vectors = ix.newVectors(e, off)
	if e != nil && !ix.vectors.Complete(state.Generation) {
		// a process still embedding, or one that saved its state since
		off = "the cache's vectors are not yet those of its state"
		ix.warn("%s: packs are made without them", off)
		ix.vectors = ix.newVectors(nil, off)
	}
	return state
}

// fillHeld makes the lexical index of a held cache in memory: the chunks of every file the state
// records, from the file as it is now, read and not parsed. A file whose content is no longer what
// the state recorded is left out of it, and said: the process that holds the cache reads it again.
func (ix *Index) fillHeld(ctx context.Context, progress Progress) error {
	s := ix.Snapshot()
	var docs []bm25.Doc
	changed := 0
	for i, p := range s.Paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		if progress != nil {
			progress(i+1, len(s.Paths))
		}
		r := s.Record(p)
		if r == nil || r.File == nil {
			continue
		}
		src, err := ix.ReadFile(p)
		if err != nil || contentHash(src) != r.Hash {
			changed++
			continue
		}
		for _, c := range records.Chunks(p, r.File, src, ix.cfg.Mappings) {
			docs = append(docs, bm25.Doc{ID: c.ID, Fields: bm25.NewFields(c.Name, c.Path, c.Doc, c.Code)})
		}
	}
	if changed > 0 {
		ix.warn("%d files changed since the cache was saved: their words are left out of this pack", changed)
	}
	if err := ix.lex.Replace(nil, docs); err != nil {
		return fmt.Errorf("lexical index of the held cache: %w", err)
	}
	return nil
}

// contentHash is a file's content as a record keeps it.
func contentHash(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:16])
}
