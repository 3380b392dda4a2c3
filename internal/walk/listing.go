package walk

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Listing is what a walk saw, kept to tell later, without walking again, whether a walk would list
// the same files: a file created, removed or renamed changes its folder's time; an ignore file
// changes its own.
type Listing struct {
	Root    string
	Options Options
	Files   []string // the files listed, slash paths from the root
	Skipped []Skip
	Dirs    []Stamp // every folder entered, by its real path
	Ignores []Stamp // every ignore file looked for; Size -1: it was not there
}

// Stamp is a path's size and modification time (unix nanoseconds) when the walk met it; a time of -1
// was too close to the walk to be trusted (see stamp).
type Stamp struct {
	Path string
	Size int64
	Mod  int64
}

// racyWindow: a change within this long before the walk may not have moved a folder's time yet, as
// file times tick coarser than nanoseconds; such a stamp never matches (as git treats a racy entry).
const racyWindow = 2 * time.Second

func (w *walker) stamp(real string, dir bool) Stamp {
	st := Stamp{Path: real, Size: -1}
	info, err := os.Stat(real)
	if err != nil || info.IsDir() != dir {
		return st
	}
	st.Size, st.Mod = info.Size(), info.ModTime().UnixNano()
	if dir {
		st.Size = 0
	}
	if info.ModTime().After(w.began.Add(-racyWindow)) {
		st.Mod = -1
	}
	return st
}

// listing is what the walk saw.
func (w *walker) listing() *Listing {
	l := &Listing{Root: w.realRoot, Options: w.opts, Files: make([]string, len(w.res.Files)), Skipped: w.res.Skipped, Dirs: w.dirStamps, Ignores: w.ignoreStamps}
	for i, f := range w.res.Files {
		l.Files[i] = f.Path
	}
	return l
}

// Recheck gives what Walk(ctx, root, opts) would, from the listing of an earlier walk, when no folder
// and no ignore file has changed since and every listed file is still a listable file: the files
// are only looked at again for their sizes and times. ok is false when a walk is needed.
func Recheck(ctx context.Context, root string, opts Options, l *Listing) (res *Result, ok bool) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil || l == nil || l.Root != real || !sameOptions(l.Options, opts) {
		return nil, false
	}
	limit := opts.MaxFileSize
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	for _, s := range l.Skipped {
		if s.Reason == ReasonTooLarge {
			if info, err := os.Stat(filepath.Join(real, filepath.FromSlash(s.Path))); err != nil || info.Size() <= limit {
				return nil, false
			}
		}
	}
	res = &Result{Files: make([]File, len(l.Files)), Skipped: l.Skipped}
	stamps := len(l.Dirs) + len(l.Ignores)
	var bad atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for !bad.Load() && ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				switch {
				case i < len(l.Dirs):
					if !unchanged(l.Dirs[i], true) {
						bad.Store(true)
					}
				case i < stamps:
					if !unchanged(l.Ignores[i-len(l.Dirs)], false) {
						bad.Store(true)
					}
				case i < stamps+len(l.Files):
					p := l.Files[i-stamps]
					info, err := os.Stat(filepath.Join(real, filepath.FromSlash(p)))
					if err != nil || !info.Mode().IsRegular() || info.Size() > limit {
						bad.Store(true)
						continue
					}
					res.Files[i-stamps] = File{Path: p, Size: info.Size(), ModTime: info.ModTime()}
				default:
					return
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() || ctx.Err() != nil {
		return nil, false
	}
	return res, true
}

func unchanged(s Stamp, dir bool) bool {
	info, err := os.Stat(s.Path)
	if s.Size < 0 {
		return err != nil // still not there
	}
	return err == nil && s.Mod >= 0 && info.IsDir() == dir && info.ModTime().UnixNano() == s.Mod && (dir || info.Size() == s.Size)
}

func sameOptions(a, b Options) bool {
	return a.MaxFileSize == b.MaxFileSize && a.Vendored == b.Vendored && slices.Equal(a.Excludes, b.Excludes)
}

// Same reports whether two listings hold the same (an empty list and none are the same).
func (l *Listing) Same(o *Listing) bool {
	if l == nil || o == nil {
		return l == o
	}
	return l.Root == o.Root && sameOptions(l.Options, o.Options) && slices.Equal(l.Files, o.Files) &&
		slices.Equal(l.Skipped, o.Skipped) && slices.Equal(l.Dirs, o.Dirs) && slices.Equal(l.Ignores, o.Ignores)
}
