package walk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Ignore files read at every level, lowest priority first; within one folder .ignore overrides
// .gitignore, and a deeper folder overrides its parents.
const (
	gitignoreName   = ".gitignore"
	ignoreName      = ".ignore"
	infoExcludePath = ".git/info/exclude"
)

// Folders never listed and never reported.
var alwaysSkipped = map[string]bool{".git": true, ".hg": true, ".svn": true, ".idea": true, ".vscode": true}

// Dependency and cache folders skipped unless Options.Vendored is set.
var vendoredNames = map[string]bool{
	"node_modules": true, "vendor": true, "bower_components": true,
	".venv": true, "venv": true, "__pycache__": true, ".tox": true,
}

// rules are the patterns a folder's ignore files add, chained to the nearest ancestor that has any.
type rules struct {
	parent   *rules
	patterns []pattern
}

// pattern is one gitignore line. Git matches a pattern against the whole path of each file and folder
// and never looks below an excluded folder (Walk does not enter it; Matcher checks each folder first).
// The library instead tries a slash-free pattern against every element of the path, so "!*/" would
// re-include every file below any folder, and lets a pattern with a slash match a mere prefix, so "/*"
// would exclude "src/a.go" even with "src" re-included. Hence: name patterns go to the library with
// only the domain and the last element; patterns with a slash are matched element by element here.
type pattern struct {
	name    gitignore.Pattern // slash-free patterns
	glob    []string          // the elements of a pattern with a slash, "**" for any number of folders
	domain  []string          // the folder holding the ignore file
	include bool
	dirOnly bool
}

func newPattern(line string, domain []string) pattern {
	line = bracketNegation(line)
	p := pattern{domain: domain}
	body := line
	if strings.HasPrefix(body, "!") {
		p.include, body = true, body[1:]
	}
	if !strings.HasSuffix(body, "\\ ") {
		body = strings.TrimRight(body, " ")
	}
	if strings.HasSuffix(body, "/") {
		p.dirOnly, body = true, strings.TrimSuffix(body, "/")
	}
	if !strings.Contains(body, "/") {
		p.name = gitignore.ParsePattern(line, domain)
		return p
	}
	for _, el := range strings.Split(strings.TrimPrefix(body, "/"), "/") {
		for el != "**" && strings.Contains(el, "**") {
			el = strings.ReplaceAll(el, "**", "*") // only a whole element is special
		}
		if el == "**" && len(p.glob) > 0 && p.glob[len(p.glob)-1] == "**" {
			continue // "**/**" is "**"
		}
		p.glob = append(p.glob, el)
	}
	return p
}

// bracketNegation spells git's "[!a]" the way path.Match understands it, "[^a]".
func bracketNegation(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' && i+1 < len(line) {
			b.WriteString(line[i : i+2])
			i++
			continue
		}
		if line[i] == '[' && i+1 < len(line) && line[i+1] == '!' {
			b.WriteString("[^")
			i++
			continue
		}
		b.WriteByte(line[i])
	}
	return b.String()
}

func (p pattern) match(parts []string, isDir bool) gitignore.MatchResult {
	if len(parts) <= len(p.domain) {
		return gitignore.NoMatch
	}
	if p.name != nil {
		switch {
		case len(parts) == len(p.domain)+1:
			return p.name.Match(parts, isDir)
		case len(p.domain) == 0:
			return p.name.Match(parts[len(parts)-1:], isDir)
		}
		short := make([]string, 0, len(p.domain)+1)
		short = append(append(short, parts[:len(p.domain)]...), parts[len(parts)-1])
		return p.name.Match(short, isDir)
	}
	for i, d := range p.domain {
		if parts[i] != d {
			return gitignore.NoMatch
		}
	}
	if (p.dirOnly && !isDir) || !matchElements(p.glob, parts[len(p.domain):]) {
		return gitignore.NoMatch
	}
	if p.include {
		return gitignore.Include
	}
	return gitignore.Exclude
}

// matchElements matches the whole path: "**" stands for any number of folders, or at the end for
// everything inside (at least one element). A glob with "**" is matched over a table of its elements
// against the path's, each pair at most once: trying every split for every "**" in turn took time
// exponential in their number (sixteen of them over a path 24 deep ran for minutes).
func matchElements(glob, parts []string) bool {
	if !slices.Contains(glob, "**") {
		if len(glob) != len(parts) {
			return false
		}
		for i, g := range glob {
			if ok, err := path.Match(g, parts[i]); err != nil || !ok {
				return false
			}
		}
		return true
	}
	// ok[p] says whether glob[g:] matches parts[p:], for the g of the row being filled, last first
	np := len(parts)
	ok := make([]bool, np+1)
	ok[np] = true
	below := make([]bool, np+1)
	for g := len(glob) - 1; g >= 0; g-- {
		copy(below, ok)
		switch {
		case glob[g] == "**" && g == len(glob)-1:
			for p := range ok {
				ok[p] = p < np
			}
		case glob[g] == "**":
			ok[np] = below[np]
			for p := np - 1; p >= 0; p-- {
				ok[p] = below[p] || ok[p+1]
			}
		default:
			ok[np] = false
			for p := np - 1; p >= 0; p-- {
				ok[p] = false
				if below[p+1] {
					m, err := path.Match(glob[g], parts[p])
					ok[p] = err == nil && m
				}
			}
		}
	}
	return ok[0]
}

// ignoredBy applies the configured excludes first (a repository file cannot re-include what the
// user excluded), then the folder chain from the deepest folder up; the first pattern that decides wins.
func ignoredBy(excludes []pattern, r *rules, parts []string, isDir bool) bool {
	if res := lastMatch(excludes, parts, isDir); res != gitignore.NoMatch {
		return res == gitignore.Exclude
	}
	for ; r != nil; r = r.parent {
		if res := lastMatch(r.patterns, parts, isDir); res != gitignore.NoMatch {
			return res == gitignore.Exclude
		}
	}
	return false
}

func lastMatch(ps []pattern, parts []string, isDir bool) gitignore.MatchResult {
	for i := len(ps) - 1; i >= 0; i-- {
		if res := ps[i].match(parts, isDir); res != gitignore.NoMatch {
			return res
		}
	}
	return gitignore.NoMatch
}

// parsePatterns reads gitignore syntax; domain is the folder holding the file, as path parts.
func parsePatterns(data []byte, domain []string) []pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var ps []pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, newPattern(line, domain))
	}
	return ps
}

// parseExcludes turns configured patterns into root-level patterns, rejecting malformed globs that the
// matcher would otherwise silently never match.
func parseExcludes(excludes []string) ([]pattern, error) {
	var ps []pattern
	for _, e := range excludes {
		line := strings.TrimSpace(e)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for _, part := range strings.Split(strings.TrimPrefix(line, "!"), "/") {
			if _, err := path.Match(part, ""); err != nil {
				return nil, fmt.Errorf("exclude pattern %q: %w", e, err)
			}
		}
		ps = append(ps, newPattern(line, nil))
	}
	return ps, nil
}

// maxIgnoreFile caps the size of an ignore file read.
const maxIgnoreFile = 4 << 20

// readRules reads the ignore files present in one folder (real on disk, parts its path from the
// root) and returns the chain for its children, plus the ignore files it could not read.
func readRules(real string, parts []string, present []string, parent *rules) (*rules, []string) {
	var ps []pattern
	var unreadable []string
	for _, name := range present {
		// a FIFO or a link to a device in its place is not read: it could block or never end
		data, err := ReadRegular(filepath.Join(real, filepath.FromSlash(name)), maxIgnoreFile)
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				unreadable = append(unreadable, path.Join(append(append([]string{}, parts...), name)...))
			}
			continue
		}
		ps = append(ps, parsePatterns(data, parts)...)
	}
	if len(ps) == 0 {
		return parent, unreadable
	}
	return &rules{parent: parent, patterns: ps}, unreadable
}

// Matcher answers whether a path is ignored with the same rules as Walk. It never changes once built,
// so it is safe for concurrent use; build a new one when an ignore file changes.
type Matcher struct {
	excludes []pattern
	dirs     map[string]*rules // folder (slash path, "" for the root) -> its chain, only folders with patterns
	vendored bool
}

// NewMatcher reads every ignore file under root once, following the same folders as Walk.
func NewMatcher(root string, opts Options) (*Matcher, error) {
	w, err := newWalker(context.Background(), root, opts, false)
	if err != nil {
		return nil, err
	}
	w.dirRules = map[string]*rules{}
	if err := w.run(); err != nil {
		return nil, err
	}
	return &Matcher{excludes: w.excludes, dirs: w.dirRules, vendored: opts.Vendored}, nil
}

// Ignored reports whether rel (slash-separated, relative to the root) is left out of the index: by an
// ignore rule on it or on any folder above it, by being inside .git and the like, or inside a vendored
// folder. Paths outside the root are ignored.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	rel = path.Clean(strings.TrimPrefix(filepath.ToSlash(rel), "/"))
	if rel == "." {
		return false
	}
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return true
	}
	parts := strings.Split(rel, "/")
	r := m.dirs[""]
	for i, name := range parts {
		dir := isDir || i < len(parts)-1
		if name == ".git" || (dir && alwaysSkipped[name]) || (dir && !m.vendored && vendoredNames[name]) {
			return true
		}
		if ignoredBy(m.excludes, r, parts[:i+1], dir) {
			return true
		}
		if dir {
			if next, ok := m.dirs[strings.Join(parts[:i+1], "/")]; ok {
				r = next
			}
		}
	}
	return false
}

// IsIgnoreFile reports whether rel is a file whose change alters the rules.
func (m *Matcher) IsIgnoreFile(rel string) bool {
	rel = path.Clean(filepath.ToSlash(rel))
	base := path.Base(rel)
	return base == gitignoreName || base == ignoreName ||
		rel == infoExcludePath || strings.HasSuffix(rel, "/"+infoExcludePath)
}
