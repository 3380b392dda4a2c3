package index

// Building: the whole workspace walked and brought in line with the files on disk.

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// Build brings the index in line with the files on disk: a cold build the first time, afterwards only
// what changed since the cache was written is read again.
func (ix *Index) Build(ctx context.Context, progress Progress) (Stats, error) {
	start := time.Now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.held != "" { // another process's cache, as it is
		if ix.heldSearch {
			ix.heldSearch = false
			if err := ix.fillHeld(ctx, progress); err != nil {
				return Stats{}, err
			}
		}
		st := ix.Snapshot().Stats()
		st.Cache, st.Seconds, st.Vectors, st.Warnings = ix.held, time.Since(start).Seconds(), ix.VectorStatus(), ix.Warnings()
		return st, nil
	}
	ix.matcher = nil // read again by the next Update: an ignore file may have changed
	res, same := &walk.Result{Files: ix.only}, true
	walked := ix.walked
	ix.walked = nil
	defer func() { ix.reads = nil }() // what the partial packs parsed serves this build only
	if ix.only == nil {
		listing := ix.listing
		if listing == nil && walked != nil {
			listing = walked.Listing // a partial pack's walk of moments before, rechecked as a saved one is
		}
		res, same = walk.Recheck(ctx, ix.root, ix.cfg.WalkOptions(), listing)
		if same && listing != ix.listing {
			res.Listing, same = listing, false
		} else if !same {
			var err error
			if res, err = walk.Walk(ctx, ix.root, ix.cfg.WalkOptions()); err != nil {
				return Stats{}, fmt.Errorf("list %s: %w", ix.root, err)
			}
		}
	}
	if !same {
		// saved, so that the next start rechecks it instead of walking
		ix.dirty = ix.dirty || ix.cache != "" && !ix.listing.Same(res.Listing)
		ix.listing = res.Listing
	}
	old := ix.Snapshot()
	// git's log is read while the files are: only what is derived at the end needs it
	var hist *history.Log
	var histErr error
	histRead := make(chan struct{})
	go func() {
		defer close(histRead)
		hist, histErr = history.Reread(ctx, ix.root, ix.cfg.HistoryLimit(), old.History)
	}()
	defer func() { <-histRead }()
	gitLog := func() *history.Log {
		<-histRead
		if histErr != nil {
			ix.warn("git history: %v", histErr)
			histErr = nil
		}
		return hist
	}
	seen := make([]fileStat, 0, len(res.Files))
	for _, f := range res.Files {
		seen = append(seen, fileStat{path: f.Path, size: f.Size, mod: f.ModTime.UnixNano(), exists: true})
	}
	skipped := map[string]string{}
	for _, s := range res.Skipped {
		skipped[s.Path] = s.Reason
	}
	st, err := ix.apply(ctx, seen, true, skipped, gitLog, progress)
	if err != nil {
		return st, err
	}
	if err := ix.saveLocked(); err != nil {
		ix.warn("%v", err)
	}
	if ix.lastTaken > 0 {
		ix.logf("build: %d files parsed, %d taken as the partial packs parsed them", ix.lastParsed, ix.lastTaken)
	}
	st = ix.Snapshot().Stats()
	st.Parsed = ix.lastParsed
	st.Seconds = time.Since(start).Seconds()
	st.Cache = ix.cache
	st.Vectors = ix.VectorStatus()
	st.Warnings = ix.Warnings()
	return st, nil
}

// UsePartial has the next Build take what q's partial packs found instead of finding it again. An index
// that was never built takes its files from their walk of moments before: it rechecks the folders'
// and files' times as it does a saved listing's, and walks only when one moved. It takes the files
// they read and parsed as they parsed them, each whose size and time are still those the partial pack
// saw (a file changed since, or open in an editor, is read again); what it leaves goes when it ends.
// A nil q hands nothing over.
func (ix *Index) UsePartial(q *Partial) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.walked, ix.reads = nil, nil
	if q == nil {
		return
	}
	ix.walked = q.walked
	if q.reads != nil && readsAs(q.cfg, ix.cfg) {
		ix.reads = q.reads
	}
}
