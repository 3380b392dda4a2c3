// Package walk lists the files of a workspace that the index should see, applying .gitignore,
// .ignore, .git/info/exclude and configured excludes, and says why it skipped what it skipped.
package walk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Options change what a walk leaves out.
type Options struct {
	MaxFileSize int64    // 0 means 1 MiB
	Excludes    []string // gitignore-syntax patterns relative to the root
	Vendored    bool     // true: do not skip the vendored/dependency folders
}

// DefaultMaxFileSize is the size above which a file is skipped unless the options say otherwise.
const DefaultMaxFileSize = 1 << 20

// File is a file a walk lists, with the size and time a build compares.
type File struct {
	Path    string    `json:"path"` // slash-separated, relative to the root
	Size    int64     `json:"size"`
	ModTime time.Time `json:"modTime"`
}

// Skip is a file or folder left out for a reason worth telling; plain ignore-rule matches are not
// reported (there are too many).
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Reasons in Skip.
const (
	ReasonVendored         = "vendored" // once per dependency folder
	ReasonTooLarge         = "too large"
	ReasonSymlinkOutside   = "symlink outside root"
	ReasonSymlinkLoop      = "symlink loop"      // the target is the link's own folder or one above it
	ReasonSymlinkDuplicate = "symlink duplicate" // the target is already listed under another path
	ReasonBrokenSymlink    = "broken symlink"
	ReasonUnreadable       = "unreadable"
	ReasonSpecial          = "not a regular file" // fifos, sockets, devices: reading them could block
)

// Result is what a walk lists and what it left out, and why.
type Result struct {
	Files   []File   `json:"files"`
	Skipped []Skip   `json:"skipped"`
	Listing *Listing `json:"-"` // what Recheck needs, from Walk; nil from Recheck
}

// Walk lists root in one pass, reading each folder's ignore files as it enters the folder. Symlinks are
// followed only to targets inside root, after the real tree, so a file reached both ways is listed
// under its real path. An error means root itself could not be read or ctx ended.
func Walk(ctx context.Context, root string, opts Options) (*Result, error) {
	w, err := newWalker(ctx, root, opts, true)
	if err != nil {
		return nil, err
	}
	if err := w.run(); err != nil {
		return nil, err
	}
	sort.Slice(w.res.Files, func(i, j int) bool { return w.res.Files[i].Path < w.res.Files[j].Path })
	sort.Slice(w.res.Skipped, func(i, j int) bool {
		a, b := w.res.Skipped[i], w.res.Skipped[j]
		return a.Path < b.Path || (a.Path == b.Path && a.Reason < b.Reason)
	})
	w.res.Listing = w.listing()
	return w.res, nil
}

// walker is one traversal, shared by Walk (listFiles) and NewMatcher (dirRules) so both follow the
// same folders and read the same ignore files.
type walker struct {
	ctx       context.Context
	opts      Options
	maxSize   int64
	realRoot  string
	excludes  []pattern
	listFiles bool
	res       *Result
	dirRules  map[string]*rules // filled when not nil
	seenDirs  map[string]bool   // real paths of folders entered
	seenFiles map[string]bool   // real paths of files listed
	links     []link

	began        time.Time
	dirStamps    []Stamp
	ignoreStamps []Stamp
}

// link is a symlink met during the traversal, resolved once the real tree is done.
type link struct {
	abs        string
	parts      []string
	parentReal string
	rules      *rules
}

func newWalker(ctx context.Context, root string, opts Options, listFiles bool) (*walker, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace root %s: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("workspace root %s is not a folder", root)
	}
	excludes, err := parseExcludes(opts.Excludes)
	if err != nil {
		return nil, err
	}
	max := opts.MaxFileSize
	if max <= 0 {
		max = DefaultMaxFileSize
	}
	return &walker{
		ctx:       ctx,
		opts:      opts,
		maxSize:   max,
		realRoot:  real,
		excludes:  excludes,
		listFiles: listFiles,
		res:       &Result{Files: []File{}, Skipped: []Skip{}},
		seenDirs:  map[string]bool{},
		seenFiles: map[string]bool{},
		began:     time.Now(),
	}, nil
}

func (w *walker) run() error {
	if err := w.dir(w.realRoot, nil, nil); err != nil {
		return err
	}
	// follow may find more links inside the folders it enters
	for i := 0; i < len(w.links); i++ {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if err := w.follow(w.links[i]); err != nil {
			return err
		}
	}
	return nil
}

// dir lists one folder: real is its resolved path on disk, parts its path from the root.
func (w *walker) dir(real string, parts []string, parent *rules) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	w.seenDirs[real] = true
	if w.listFiles {
		// before the folder is read: a change after it moves the time past the stamp
		w.dirStamps = append(w.dirStamps, w.stamp(real, true))
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		if len(parts) == 0 {
			return fmt.Errorf("read workspace root: %w", err)
		}
		w.skip(strings.Join(parts, "/"), ReasonUnreadable)
		return nil
	}
	// lowest priority first; like git, ignore files that are symlinks are not read
	var hasGit, hasGitignore, hasIgnore bool
	for _, e := range entries {
		switch e.Name() {
		case ".git":
			hasGit = e.IsDir()
		case gitignoreName:
			hasGitignore = e.Type().IsRegular()
		case ignoreName:
			hasIgnore = e.Type().IsRegular()
		}
	}
	var present []string
	if hasGit {
		present = append(present, infoExcludePath)
		if w.listFiles {
			// inside .git, whose changes do not move this folder's time
			w.ignoreStamps = append(w.ignoreStamps, w.stamp(filepath.Join(real, filepath.FromSlash(infoExcludePath)), false))
		}
	}
	if hasGitignore {
		present = append(present, gitignoreName)
	}
	if hasIgnore {
		present = append(present, ignoreName)
	}
	if w.listFiles {
		for _, name := range present {
			if name != infoExcludePath {
				w.ignoreStamps = append(w.ignoreStamps, w.stamp(filepath.Join(real, name), false))
			}
		}
	}
	r, unreadable := readRules(real, parts, present, parent)
	for _, p := range unreadable {
		w.skip(p, ReasonUnreadable)
	}
	if w.dirRules != nil && r != parent {
		w.dirRules[strings.Join(parts, "/")] = r
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		child := append(parts[:len(parts):len(parts)], name)
		childReal := filepath.Join(real, name)
		switch t := e.Type(); {
		case t.IsDir():
			if !w.enterable(child, r) || w.seenDirs[childReal] {
				continue
			}
			if err := w.dir(childReal, child, r); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			w.links = append(w.links, link{abs: childReal, parts: child, parentReal: real, rules: r})
		case w.listFiles:
			if ignoredBy(w.excludes, r, child, false) {
				continue
			}
			info, err := e.Info()
			w.file(childReal, child, info, err)
		}
	}
	return nil
}

// enterable applies the folder-level rules: always-skipped names, vendored folders, ignore patterns.
func (w *walker) enterable(parts []string, r *rules) bool {
	name := parts[len(parts)-1]
	if alwaysSkipped[name] {
		return false
	}
	if !w.opts.Vendored && vendoredNames[name] {
		w.skip(strings.Join(parts, "/"), ReasonVendored)
		return false
	}
	return !ignoredBy(w.excludes, r, parts, true)
}

func (w *walker) file(real string, parts []string, info fs.FileInfo, err error) {
	rel := strings.Join(parts, "/")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return // removed while we looked
	case err != nil:
		w.skip(rel, ReasonUnreadable)
	case !info.Mode().IsRegular():
		w.skip(rel, ReasonSpecial)
	case info.Size() > w.maxSize:
		w.skip(rel, ReasonTooLarge)
	case !readable(real, info):
		w.skip(rel, ReasonUnreadable)
	default:
		w.seenFiles[real] = true
		w.res.Files = append(w.res.Files, File{Path: rel, Size: info.Size(), ModTime: info.ModTime()})
	}
}

// follow resolves a symlink: only targets inside the root, each real folder or file once.
func (w *walker) follow(l link) error {
	rel := strings.Join(l.parts, "/")
	if ignoredBy(w.excludes, l.rules, l.parts, false) {
		return nil
	}
	target, err := filepath.EvalSymlinks(l.abs)
	if err != nil {
		_, serr := os.Stat(l.abs)
		switch {
		case errors.Is(serr, syscall.ELOOP):
			w.skip(rel, ReasonSymlinkLoop)
		case errors.Is(err, fs.ErrNotExist) || errors.Is(serr, fs.ErrNotExist):
			w.skip(rel, ReasonBrokenSymlink)
		default:
			w.skip(rel, ReasonUnreadable)
		}
		return nil
	}
	if !within(w.realRoot, target) {
		w.skip(rel, ReasonSymlinkOutside)
		return nil
	}
	info, err := os.Stat(target)
	if err != nil {
		w.skip(rel, ReasonUnreadable)
		return nil
	}
	if info.IsDir() {
		if !w.enterable(l.parts, l.rules) {
			return nil
		}
		if w.seenDirs[target] {
			if within(target, l.parentReal) {
				w.skip(rel, ReasonSymlinkLoop)
			} else {
				w.skip(rel, ReasonSymlinkDuplicate)
			}
			return nil
		}
		return w.dir(target, l.parts, l.rules)
	}
	if !w.listFiles {
		return nil
	}
	if w.seenFiles[target] {
		w.skip(rel, ReasonSymlinkDuplicate)
		return nil
	}
	w.file(target, l.parts, info, nil)
	return nil
}

func (w *walker) skip(rel, reason string) {
	if w.listFiles {
		w.res.Skipped = append(w.res.Skipped, Skip{Path: rel, Reason: reason})
	}
}

// within reports whether p is root or below it (both cleaned, absolute).
func within(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}
