package index

// Saving: the state file written after a quiet spell, and on Close.

import (
	"time"

	"github.com/ctxmap/ctxmap/internal/store"
)

// saveDelay lets a burst of edits share one cache write.
const saveDelay = 2 * time.Second

func (ix *Index) scheduleSave() {
	if ix.cache == "" || !ix.dirty {
		return
	}
	if ix.saver != nil {
		ix.saver.Stop()
	}
	ix.saver = time.AfterFunc(saveDelay, func() {
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if err := ix.saveLocked(); err != nil {
			ix.warn("%v", err)
		}
	})
}

func (ix *Index) saveLocked() error {
	if ix.cache == "" || !ix.dirty {
		return nil
	}
	s := ix.Snapshot()
	err := store.Save(ix.cache, &store.State{Root: ix.root, Generation: s.Generation, Records: s.files, Skipped: s.Skipped, History: s.History, Derived: derivedOf(s), Listing: ix.listing})
	if err == nil {
		ix.dirty = false
	}
	return err
}

// Close writes what is pending and releases the stores.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.saver != nil {
		ix.saver.Stop()
	}
	err := ix.saveLocked()
	ix.vectors.Close()
	if cerr := ix.lex.Close(); err == nil {
		err = cerr
	}
	ix.lock.Release() // after every store is written and closed
	return err
}
