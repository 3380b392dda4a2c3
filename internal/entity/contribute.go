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
	"github.com/ctxmap/ctxmap/internal/words"
)

// Contribution is what one file says about entities. It is plain data (gob and JSON round-trip it) so
// the engine can cache it with the file.
type Contribution struct {
	Path  string `json:"path"`
	Terms []Term `json:"terms,omitempty"` // sorted by Words
	Names int    `json:"names,omitempty"` // distinct identifiers defined or referenced
	Plain int    `json:"plain,omitempty"` // of those, the ones without a meaningful word (a, b, x1)
	Test  bool   `json:"test,omitempty"`  // a test, fixture or example file: not the product's own code
	Util  bool   `json:"util,omitempty"`  // under a util/helper/common folder
	Infra bool   `json:"infra,omitempty"` // under a deployment/database/config folder
}

// Term is one single word or compound (two or three words) and where the file shows it.
type Term struct {
	Words    string `json:"words"`              // stemmed words joined by a space: "rule", "quality profile"
	Count    int    `json:"count"`              // mentions in the path and identifiers
	Named    bool   `json:"named,omitempty"`    // in the name of something defined here (function, field, type...)
	TypeName bool   `json:"typeName,omitempty"` // in the name of a class/struct/interface/enum/trait/type defined here
	Defines  bool   `json:"defines,omitempty"`  // a type named after exactly this is defined here (Rule, QualityProfileDto)
	Folder   bool   `json:"folder,omitempty"`   // in a folder name of the path
	// FolderName: a folder of the path is named by exactly this (pkg/cmd/release/, quality_profile/)
	FolderName bool `json:"folderName,omitempty"`
	FileName   bool `json:"fileName,omitempty"` // in the file name
}

// maxCompound is the longest compound kept: longer runs of words are names, not concepts.
const maxCompound = 3

var typeKinds = map[string]bool{"class": true, "struct": true, "interface": true, "trait": true, "enum": true, "type": true}

// Contribute extracts the terms of one file from its path and, when f is not nil, its definitions and
// references.
func Contribute(p string, f *parse.File) Contribution {
	if p == "" {
		return Contribution{} // no path: Aggregate leaves it out
	}
	p = strings.TrimPrefix(path.Clean(strings.ReplaceAll(p, "\\", "/")), "./")
	c := Contribution{Path: p, Test: isTestPath(p)}
	terms := map[string]*Term{}
	get := func(w string) *Term {
		t := terms[w]
		if t == nil {
			t = &Term{Words: w}
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

	c.Terms = make([]Term, 0, len(terms))
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

// isTestPath recognises test files by the conventions of the common languages, and the files of
// example folders.
func isTestPath(p string) bool {
	dir, file := path.Split(strings.ToLower(p))
	for _, seg := range strings.Split(dir, "/") {
		switch seg {
		case "test", "tests", "__tests__", "testdata", "testing", "spec", "specs", "fixtures", "e2e", "it",
			"example", "examples", "sample", "samples", "demo", "demos":
			return true
		}
	}
	orig := path.Base(p)
	stem := fileStem(orig)
	switch {
	case strings.HasSuffix(file, "_test.go"), strings.HasPrefix(file, "test_"), strings.HasSuffix(stem, "_test"),
		strings.HasSuffix(stem, "_spec"), file == "conftest.py",
		strings.Contains(file, ".test."), strings.Contains(file, ".spec."):
		return true
	}
	// RuleIndexTest.java, RuleIndexTests.cs, RuleSpec.scala, RuleIT.java
	for _, suf := range []string{"Test", "Tests", "Spec", "IT"} {
		if strings.HasSuffix(stem, suf) && len(stem) > len(suf) {
			return true
		}
	}
	return false
}
