// Package entity builds the entity map of a workspace: the business terms of the project (RULE,
// QUALITY_PROFILE, GIST...) found in paths, type names and identifiers, each linked to its files,
// folders, related entities and the words of the commit messages that touched its files.
//
// It works in two steps so that an update stays cheap: Contribute reads one file (cached by content),
// Aggregate combines all contributions into a Map, a pure function of its inputs.
package entity

import (
	"path"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/words"
)

// maxCompound is the longest compound kept: longer runs of words are names, not concepts.
const maxCompound = 3

var typeKinds = map[string]bool{"class": true, "struct": true, "interface": true, "trait": true, "enum": true, "type": true}

// Contribute extracts the terms of one file from its path and, when f is not nil, its definitions and
// references.
func Contribute(p string, f *parse.File) records.Contribution {
	if p == "" {
		return records.Contribution{} // no path: Aggregate leaves it out
	}
	p = strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, "\\", "/")), "./")
	c := records.Contribution{Path: p, Test: records.IsTest(p) || records.IsExample(p)}
	terms := map[string]*records.Term{}
	get := func(w string) *records.Term {
		t := terms[w]
		if t == nil {
			t = &records.Term{Words: w}
			terms[w] = t
		}
		return t
	}

	dir, file := path.Split(p)
	for _, seg := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		if seg == "" || seg == "." {
			continue
		}
		low := strings.ToLower(seg)
		c.Util = c.Util || utilFolders[low]
		c.Infra = c.Infra || infraFolders[low]
		rs := runs(seg)
		for _, run := range rs {
			eachTerm(run, func(w string, whole bool) {
				t := get(w)
				t.Count++
				t.Folder = true
				t.FolderName = t.FolderName || whole && len(rs) == 1
			})
		}
		if shortFolder(low) {
			t := get(low)
			t.Count++
			t.Folder = true
			t.FolderName = true
		}
	}
	for _, run := range runs(fileStem(file)) {
		eachTerm(run, func(w string, whole bool) {
			t := get(w)
			t.Count++
			t.FileName = true
		})
	}
	for _, w := range shortWords(fileStem(file)) {
		t := get(w)
		t.Count++
		t.FileName = true
	}

	if f != nil {
		type split struct {
			runs  []run
			short []string
		}
		seen := map[string]split{} // names repeat: split each once
		name := func(n string) split {
			sp, ok := seen[n]
			if !ok {
				sp = split{runs(n), shortWords(n)}
				seen[n] = sp
				c.Names++
				if len(sp.runs) == 0 {
					c.Plain++
				}
			}
			return sp
		}
		for _, d := range f.Definitions {
			if d.Name == "" {
				continue
			}
			isType := typeKinds[d.Kind]
			sp := name(d.Name)
			for _, w := range sp.short {
				t := get(w)
				t.Count++
				t.Named = true
				t.TypeName = t.TypeName || isType
			}
			for _, r := range sp.runs {
				eachTerm(r, func(w string, whole bool) {
					t := get(w)
					t.Count++
					t.Named = true
					if isType {
						t.TypeName = true
						t.Defines = t.Defines || whole
					}
				})
			}
		}
		for _, ref := range f.References {
			if ref.Name == "" {
				continue
			}
			sp := name(ref.Name)
			for _, w := range sp.short {
				get(w).Count++
			}
			for _, r := range sp.runs {
				eachTerm(r, func(w string, whole bool) { get(w).Count++ })
			}
		}
	}

	c.Terms = make([]records.Term, 0, len(terms))
	for _, t := range terms {
		c.Terms = append(c.Terms, *t)
	}
	sort.Slice(c.Terms, func(i, j int) bool { return c.Terms[i].Words < c.Terms[j].Words })
	return c
}

// run is a sequence of adjacent meaningful words of one name; noise words end a run.
type run []string

// runs splits a name into its runs of meaningful stemmed words: "getQualityProfileDto" -> [quality
// profile]; "ruleToProfile" -> [rule] [profile].
func runs(name string) []run {
	var out []run
	var cur run
	for _, part := range words.Split(name) {
		w := words.Normalize(part)
		if w == "" || noise[w] || len(w) < 3 {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, w)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// shortFolder reports whether a folder is named by a two-letter word that can name a feature (pr/,
// ui/ is not one): too short to trust inside identifiers, clear enough as a whole folder name.
func shortFolder(seg string) bool {
	return len(seg) == 2 && seg[0] >= 'a' && seg[0] <= 'z' && seg[1] >= 'a' && seg[1] <= 'z' &&
		!shortNoise[seg] && !words.Stopword(seg)
}

// shortWords lists the two-letter words of a name that could name a feature (prNumber -> pr). They
// count only where a folder of that name makes them a term (see choose).
func shortWords(name string) []string {
	var out []string
	for _, part := range words.Split(name) {
		if shortFolder(part) {
			out = append(out, part)
		}
	}
	return out
}

// eachTerm calls fn for every single word of the run and every compound of two or three adjacent words
// once role words (service, controller...) are trimmed from its ends, so that QualityProfileService
// gives quality, profile, service and the compound "quality profile". whole marks the term that is the
// entire (trimmed) run: the one a type of that name is named after.
func eachTerm(r run, fn func(w string, whole bool)) {
	core := r
	for len(core) > 0 && infra[core[0]] {
		core = core[1:]
	}
	for len(core) > 0 && infra[core[len(core)-1]] {
		core = core[:len(core)-1]
	}
	for _, w := range r {
		fn(w, len(core) == 0 && len(r) == 1 || len(core) == 1 && core[0] == w)
	}
	if len(core) < 2 {
		return
	}
	for n := 2; n <= maxCompound && n <= len(core); n++ {
		for i := 0; i+n <= len(core); i++ {
			fn(strings.Join(core[i:i+n], " "), n == len(core))
		}
	}
}

// fileStem is a file name without its extensions: "RuleIndex.java" -> RuleIndex, "rule.test.ts" ->
// rule.test (the remaining dots split words anyway).
func fileStem(name string) string {
	name = strings.TrimLeft(name, ".")
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	return name
}
