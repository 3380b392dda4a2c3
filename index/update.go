package index

// Updating: the files a build or an update lists, planned (kept, read again, removed) and applied as
// one new snapshot.

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/internal/walk"
)

// Update re-reads the given workspace-relative paths (created, changed, deleted or renamed files; a
// folder stands for the files under it) and publishes a new snapshot.
func (ix *Index) Update(ctx context.Context, paths []string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.matcher == nil {
		m, err := walk.NewMatcher(ix.root, ix.cfg.WalkOptions())
		if err != nil {
			return fmt.Errorf("read ignore files: %w", err)
		}
		ix.matcher = m
	}
	old := ix.Snapshot()
	var changes []fileStat
	skipped := make(map[string]string, len(old.Skipped))
	for p, r := range old.Skipped {
		skipped[p] = r
	}
	seen := map[string]bool{}
	for _, p := range paths {
		p = filepath.ToSlash(filepath.Clean(p))
		if p == "." || strings.HasPrefix(p, "../") || filepath.IsAbs(p) || seen[p] {
			continue
		}
		seen[p] = true
		delete(skipped, p)
		changes = append(changes, ix.statPath(p, skipped)...)
		// a folder that disappeared takes its files with it
		for q := range old.files.Entries() {
			if strings.HasPrefix(q, p+"/") && !seen[q] {
				seen[q] = true
				changes = append(changes, ix.statPath(q, skipped)...)
			}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	_, err := ix.apply(ctx, changes, false, skipped, func() *history.Log { return old.History }, nil)
	ix.scheduleSave()
	return err
}

// statPath describes one path for apply: gone, ignored or skipped paths come back as not existing.
func (ix *Index) statPath(p string, skipped map[string]string) []fileStat {
	abs := filepath.Join(ix.root, filepath.FromSlash(p))
	fi, err := os.Stat(abs)
	if err != nil || ix.matcher.Ignored(p, fi != nil && fi.IsDir()) {
		return []fileStat{{path: p}}
	}
	if fi.IsDir() {
		// a new folder: its files are listed by the walk rules
		var out []fileStat
		res, err := walk.Walk(context.Background(), abs, ix.cfg.WalkOptions())
		if err != nil {
			return nil
		}
		for _, f := range res.Files {
			q := p + "/" + f.Path
			if !ix.matcher.Ignored(q, false) {
				out = append(out, fileStat{path: q, size: f.Size, mod: f.ModTime.UnixNano(), exists: true})
			}
		}
		return out
	}
	if !fi.Mode().IsRegular() {
		return []fileStat{{path: p}}
	}
	if fi.Size() > ix.maxFileSize() {
		skipped[p] = "too large"
		return []fileStat{{path: p}}
	}
	return []fileStat{{path: p, size: fi.Size(), mod: fi.ModTime().UnixNano(), exists: true}}
}

type fileStat struct {
	path      string
	size, mod int64
	exists    bool
}

// apply reads and parses the given files, updates the stores and publishes the next snapshot. With
// full set, files not in the list are removed (a full build); otherwise the list is a set of changes.
// gitLog gives the history the snapshot derives from, once the files are read. It goes as a build
// does: decide what to read, read and store it a batch at a time, drop what left, derive and publish.
func (ix *Index) apply(ctx context.Context, list []fileStat, full bool, skipped map[string]string, gitLog func() *history.Log, progress Progress) (Stats, error) {
	old := ix.Snapshot()
	files, work := ix.plan(old, list, full, skipped)
	if len(work) >= bigBuild && os.Getenv("GOGC") == "" {
		// a large build keeps every record it makes while parse trees come and go: collecting twice
		// as often keeps its peak a third lower (1.6 GB -> 1.1 GB on a 23,000-file tree) for a
		// tenth more time
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	b := &batchWriter{ix: ix, old: old, files: files, skipped: skipped, read: map[string]*Record{}}
	stopped, err := b.load(ctx, work, progress)
	if err != nil {
		return Stats{}, err
	}
	if stopped {
		if b.wrote {
			ix.keepPartial(old, b.read, skipped, gitLog())
		}
		return Stats{}, fmt.Errorf("index %s: %w", ix.root, ctx.Err())
	}
	removedIDs := ix.removed(old, files, b.read)
	next := store.NewFiles(files)
	hist := gitLog()
	// new or removed chunks always derive anew; otherwise every record is compared
	same := ix.lastParsed == 0 && !b.wrote && len(removedIDs) == 0 && old.derivesFrom(next, hist)
	if !same {
		if len(removedIDs) > 0 {
			if err := b.write(removedIDs, nil); err != nil {
				return Stats{}, err
			}
		}
		ix.gen++
		if err := ix.markGeneration(); err != nil {
			return Stats{}, err
		}
		ix.dirty = true
	}
	if full {
		forgetSkips(skipped, files)
	}
	var snap *Snapshot
	if same {
		// nothing to derive again (a warm start, a save without changes): only read times or skips moved
		snap = old.withRecords(next, skipped)
		ix.dirty = ix.dirty || !maps.Equal(old.files.Entries(), files) || !maps.Equal(old.Skipped, skipped)
	} else {
		snap = newSnapshot(ix.root, ix.gen, next, skipped, hist)
	}
	ix.snap.Store(snap)
	ix.vectors.Kick(ix.gen)
	return snap.Stats(), nil
}

// plan decides what apply reads: the entries that stay as they are, and the files to read, in path
// order (the files ReadFirst names are then taken first; the stores' answers do not depend on the order
// they were filled in). Files gone, secret or of no language leave the entries; the last two are
// skipped.
func (ix *Index) plan(old *Snapshot, list []fileStat, full bool, skipped map[string]string) (map[string]*store.Entry, []fileStat) {
	files := make(map[string]*store.Entry, old.files.Len()+len(list))
	if !full {
		maps.Copy(files, old.files.Entries())
	}
	var work []fileStat
	for _, f := range list {
		if !f.exists {
			delete(files, f.path)
			continue
		}
		if walk.SecretName(path.Base(f.path)) {
			skipped[f.path] = walk.ReasonSecret // never read
			delete(files, f.path)
			continue
		}
		if parse.LanguageOf(f.path) == "" {
			// no grammar for its name; its first bytes tell a binary file from text of another kind
			skipped[f.path] = "unsupported"
			if walk.BinaryFile(filepath.Join(ix.root, filepath.FromSlash(f.path))) {
				skipped[f.path] = walk.ReasonBinary
			}
			delete(files, f.path)
			continue
		}
		if e := old.files.Entries()[f.path]; e != nil && e.Unchanged(f.size, f.mod) && !ix.fromBuffer(f.path) {
			files[f.path] = e
			continue
		}
		work = append(work, f)
	}
	slices.SortFunc(work, func(a, b fileStat) int { return strings.Compare(a.path, b.path) })
	return files, work
}

// removed are the chunks of what left the index without being read (a file deleted, or replaced by
// another record); their vectors go now.
func (ix *Index) removed(old *Snapshot, files map[string]*store.Entry, read map[string]*Record) []string {
	var ids []string
	for p, e := range old.files.Entries() {
		if _, done := read[p]; done {
			continue
		}
		if ne := files[p]; ne == e || ne != nil && ne.Head().Hash == e.Head().Hash {
			continue
		}
		ids = append(ids, chunkIDs(e.Record(p))...)
		ix.vectors.Remove(p)
	}
	return ids
}

// forgetSkips drops, after a full build, the skip reasons of files no longer listed: a reason only
// lasts as long as the file does.
func forgetSkips(skipped map[string]string, files map[string]*store.Entry) {
	for p, reason := range skipped {
		if reason == "unsupported" || reason == "unreadable" || reason == walk.ReasonSecret || walkReason(reason) ||
			parse.LanguageOf(p) == "" { // a binary file of no language, told by this build's plan
			continue
		}
		if files[p] == nil || files[p].Head().Skip == "" {
			delete(skipped, p)
		}
	}
}

// keepPartial saves what a build stopped midway leaves: the records of the files its batches wrote and
// the old records of the rest, which is what the lexical index holds. The next start reads only the
// files still out of line, so a first index interrupted by closing the editor goes on where it stopped.
func (ix *Index) keepPartial(old *Snapshot, read map[string]*Record, skipped map[string]string, hist *history.Log) {
	if ix.cache == "" {
		return
	}
	files := maps.Clone(old.files.Entries())
	for p, r := range read {
		if r == nil {
			delete(files, p)
		} else {
			files[p] = store.EntryOf(r)
		}
	}
	ix.gen++
	// the partial state has no derived part: the next start derives it
	if err := store.Save(ix.cache, &store.State{Root: ix.root, Generation: ix.gen, Records: store.NewFiles(files), Skipped: skipped, History: hist}); err != nil {
		ix.warn("%v", err)
		return
	}
	if err := ix.markGeneration(); err != nil {
		ix.warn("%v", err)
		return
	}
	ix.dirty = false // the saved state holds the snapshot's records and more
	ix.vectors.Kick(ix.gen)
}

// markGeneration records in the lexical index the generation whose chunks it holds, which the next
// start compares with the saved state's.
func (ix *Index) markGeneration() error {
	var g [8]byte
	binary.BigEndian.PutUint64(g[:], ix.gen)
	if err := ix.lex.SetMeta("generation", g[:]); err != nil {
		return fmt.Errorf("write lexical generation: %w", err)
	}
	return nil
}

func walkReason(r string) bool {
	switch r {
	case "vendored", "too large", "symlink outside root", "symlink loop":
		return true
	}
	return false
}
