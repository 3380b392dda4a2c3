package watch

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// addTree watches rel and every folder below it that the rules keep, and records their files. With
// report the files go into the pending batch: in a new folder they may predate its watch.
func (w *Watcher) addTree(rel string, report bool) {
	stack := []string{rel}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		watched := w.addWatch(dir)
		entries, err := os.ReadDir(w.abs(dir))
		if err != nil {
			continue // gone already, or unreadable: nothing to list
		}
		files := map[string]bool{}
		if watched {
			w.dirs[dir] = files
		}
		for _, e := range entries {
			child := join(dir, e.Name())
			if e.IsDir() {
				if !w.matcher.Ignored(child, true) {
					stack = append(stack, child)
				}
				continue
			}
			if w.matcher.Ignored(child, false) {
				continue
			}
			files[e.Name()] = true
			if report {
				w.pending[child] = true
			}
		}
	}
}

// addWatch watches one folder; hitting the watch limit switches to periodic rescans.
func (w *Watcher) addWatch(rel string) bool {
	err := w.fsw.Add(w.abs(rel))
	if err == nil {
		return true
	}
	if errors.Is(err, syscall.ENOSPC) {
		if !w.limited && !w.hitLimit {
			w.warn("inotify watch limit reached (raise the sysctl fs.inotify.max_user_watches); " +
				"changes in unwatched folders are found by a full rescan every " + w.opts.Rescan.String())
		}
		w.hitLimit, w.limited = true, true
	}
	return false
}

// dropTree forgets a folder that went away, with every folder below it: their known files become
// pending, and their watches go, since a moved folder's watch keeps reporting its old path.
func (w *Watcher) dropTree(rel string) {
	for dir, files := range w.dirs {
		if dir != rel && !strings.HasPrefix(dir, rel+"/") {
			continue
		}
		for name := range files {
			w.pending[join(dir, name)] = true
		}
		_ = w.fsw.Remove(w.abs(dir)) // the kernel may have dropped it already
		delete(w.dirs, dir)
	}
	w.recheck = true
}

// rewatch watches again the folders that lost their watch to a moved folder's old path. inotify
// gives a moved folder's new path the descriptor of its old one, and fsnotify keeps it under the old
// path; dropping that path (ours, or fsnotify's own on IN_MOVE_SELF) unwatches the new one. Their
// files go pending, since events in between were lost or named after the old path.
func (w *Watcher) rewatch() {
	if w.fsw == nil || w.limited {
		return // periodic rescans cover what is not watched
	}
	watched := map[string]bool{}
	for _, p := range w.fsw.WatchList() {
		watched[p] = true
	}
	for dir := range w.dirs {
		if !watched[w.abs(dir)] {
			w.addTree(dir, true)
		}
	}
}

// resyncTree brings the watches in line with the tree and the current rules after events were lost
// or the rules changed.
func (w *Watcher) resyncTree() {
	if w.fsw == nil {
		return
	}
	// stale watches first: adding a moved folder's new path would otherwise revive its old name
	for dir := range w.dirs {
		if st, err := os.Lstat(w.abs(dir)); err != nil || !st.IsDir() {
			_ = w.fsw.Remove(w.abs(dir))
			delete(w.dirs, dir)
		}
	}
	old := w.dirs
	w.dirs = map[string]map[string]bool{}
	w.hitLimit = false
	w.addTree("", false)
	w.addGitWatches()
	for dir := range old {
		if _, ok := w.dirs[dir]; !ok {
			_ = w.fsw.Remove(w.abs(dir))
		}
	}
	w.limited = w.hitLimit
}

// addGitWatches watches .git and .git/info themselves (not below): HEAD tells of a branch switch,
// info/exclude holds ignore rules.
func (w *Watcher) addGitWatches() {
	if w.fsw == nil {
		return
	}
	for _, dir := range []string{".git", ".git/info"} {
		if st, err := os.Stat(w.abs(dir)); err == nil && st.IsDir() {
			w.addWatch(dir)
		}
	}
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
