package entity

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// mention is an entity of a file, with how much the file is about it.
type mention struct {
	entity int32
	score  float64
}

func (x mention) better(y mention) bool {
	return x.score > y.score || x.score == y.score && x.entity < y.entity
}

// build turns the chosen terms into entities in their final order, places their files, relates them
// through the files they share, and fills the lookup tables.
func (a *aggregation) build() *Map {
	a.dirCount = make([]int32, len(a.dirNames))
	m := &Map{
		Entities: make([]*Entity, len(a.chosen)),
		byName:   make(map[string]*Entity, len(a.chosen)),
		byWords:  make(map[string]*Entity, len(a.chosen)),
		joined:   map[string]*Entity{},
		byTerm:   map[string][]*Entity{},
		heads:    map[string][]*Entity{},
		files:    map[string][]mention{},
		inferred: map[string][]Inferred{},
	}
	maxRaw := 0.0
	for _, s := range a.chosen {
		maxRaw = math.Max(maxRaw, s.raw)
	}
	for _, s := range a.chosen {
		if maxRaw > 0 {
			s.importance = round(s.raw/maxRaw, 4)
		}
		s.name = nameOf(s.words)
	}
	slices.SortFunc(a.chosen, func(x, y *stat) int {
		if c := cmp.Compare(y.importance, x.importance); c != 0 {
			return c
		}
		return strings.Compare(x.name, y.name)
	})
	perFile := make([][]mention, len(a.files))
	sizes := make([]int32, len(a.files))
	for _, s := range a.chosen {
		for _, p := range s.post {
			sizes[p.file]++
		}
		for _, f := range s.inferred {
			sizes[f.file]++
		}
	}
	for fi, n := range sizes {
		perFile[fi] = make([]mention, 0, n)
	}
	for i, s := range a.chosen {
		e := &Entity{Name: s.name, Terms: strings.Fields(s.words), Confidence: 1,
			Importance: s.importance, Related: []Related{}, BusinessTerms: []string{}}
		if len(s.post) == 0 {
			e.Inferred = true
			e.Confidence = 0
			for _, f := range s.inferred {
				e.Confidence = math.Max(e.Confidence, f.conf)
			}
		}
		e.Files, e.Modules = a.placeFiles(s)
		e.Centrality = centrality(s, e.Importance)
		m.Entities[i] = e
		for _, p := range s.post {
			perFile[p.file] = append(perFile[p.file], mention{int32(i), weight(p) * (0.25 + e.Importance)})
		}
		for _, f := range s.inferred {
			perFile[f.file] = append(perFile[f.file], mention{int32(i), f.conf * (0.25 + e.Importance)})
		}
	}

	pairs := make(map[uint64]int32, len(a.files)*topPerFile*(topPerFile-1)/4)
	inTop := make([]int32, len(a.chosen))
	for fi, ms := range perFile {
		if len(ms) == 0 {
			continue
		}
		m.files[a.files[fi].Path] = ms // sorted when asked for: FileEntities
		top := best(ms, topPerFile, mention.better)
		for i, x := range top {
			inTop[x.entity]++
			for _, y := range top[i+1:] {
				lo, hi := min(x.entity, y.entity), max(x.entity, y.entity)
				pairs[uint64(lo)<<32|uint64(hi)]++
			}
		}
	}
	a.relate(m, pairs, inTop)
	a.business(m)
	for fi, inf := range a.opaque {
		m.inferred[a.files[fi].Path] = inf
	}
	m.index()
	return m
}

// placeFiles orders an entity's files (a type named after it first, then code before tests, then by
// how much the file is about it; files inferred from history last) and lists its folders (those named
// after it first, then by how many of its files they hold).
func (a *aggregation) placeFiles(s *stat) ([]string, []string) {
	// one sortable key per file: defines (bit 63), not a test (62), weight (61..32), then the file
	// inverted so that, in descending order, lower file numbers (paths) come first
	keys := make([]uint64, len(s.post))
	for i, p := range s.post {
		k := uint64(min(weight(p), 1<<30-1)) << 32
		if !a.files[p.file].Test {
			k |= 1 << 62
		}
		if p.flags&fDefines != 0 {
			k |= 1 << 63
		}
		keys[i] = k | uint64(math.MaxUint32-uint32(p.file))
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	inf := slices.Clone(s.inferred)
	slices.SortFunc(inf, func(x, y inferredFile) int {
		if c := cmp.Compare(y.conf, x.conf); c != 0 {
			return c
		}
		return cmp.Compare(x.file, y.file)
	})
	files := make([]string, 0, len(keys)+len(inf))
	var touched []int32
	count := func(fi int32) {
		d := a.dirOf[fi]
		if a.dirCount[d] == 0 {
			touched = append(touched, d)
		}
		a.dirCount[d]++
	}
	for _, k := range keys {
		fi := int32(math.MaxUint32 - uint32(k))
		files = append(files, a.files[fi].Path)
		count(fi)
	}
	for _, f := range inf {
		files = append(files, a.files[f.file].Path)
		count(f.file)
	}

	type dir struct {
		idx   int32
		named bool
		n     int32
	}
	terms := strings.Fields(s.words)
	joined, last := strings.Join(terms, ""), terms[len(terms)-1]
	dirs := make([]dir, 0, len(touched))
	for _, d := range touched {
		n := a.dirCount[d]
		a.dirCount[d] = 0
		if a.dirNames[d] == "." {
			continue
		}
		named := slices.Contains(a.dirWords[d], joined) || slices.Contains(a.dirWords[d], last)
		dirs = append(dirs, dir{d, named, n})
	}
	top := best(dirs, maxModules, func(x, y dir) bool {
		if x.named != y.named {
			return x.named
		}
		if x.n != y.n {
			return x.n > y.n
		}
		return a.dirNames[x.idx] < a.dirNames[y.idx]
	})
	mods := make([]string, len(top))
	for i, d := range top {
		mods[i] = a.dirNames[d.idx]
	}
	return files, mods
}

// best returns the n best of xs, best first, for a strict order better: a selection, cheaper than
// sorting when xs is long and n small.
func best[T any](xs []T, n int, better func(x, y T) bool) []T {
	if n <= 0 {
		return nil
	}
	top := make([]T, 0, min(n, len(xs)))
	for _, x := range xs {
		if len(top) == n && !better(x, top[n-1]) {
			continue
		}
		i := len(top)
		if i < n {
			top = append(top, x)
		} else {
			i--
		}
		for ; i > 0 && better(x, top[i-1]); i-- {
			top[i] = top[i-1]
		}
		top[i] = x
	}
	return top
}

// centrality: infrastructure for technical words or entities living in deployment/database/config
// folders; util for entities found mostly in tests or util folders; core for important entities spread
// over three folders or more; feature for the rest.
func centrality(s *stat, importance float64) string {
	df := float64(len(s.post))
	switch {
	case df == 0:
		return "feature"
	case allInfra(s.words) || float64(s.infraFiles) >= 0.6*df:
		return "infrastructure"
	case testVocabulary(s) || float64(s.utilFiles) >= 0.6*df:
		return "util"
	case importance >= 0.35 && s.dirs >= 3:
		return "core"
	}
	return "feature"
}

// relate turns co-occurrence counts into the related entities of each one: co / sqrt(na * nb), damped
// for pairs seen together only once or twice, skipping an entity's own sub- or super-compounds.
func (a *aggregation) relate(m *Map, pairs map[uint64]int32, inTop []int32) {
	rel := make([][]Related, len(m.Entities))
	for k, n := range pairs { // any order: each list is sorted below, ties broken by name
		co := float64(n)
		i, j := int(k>>32), int(k&0xffffffff)
		ei, ej := m.Entities[i], m.Entities[j]
		w := co / math.Sqrt(float64(inTop[i])*float64(inTop[j])) * co / (co + 1)
		if w < 0.05 || overlaps(ei.Terms, ej.Terms) {
			continue
		}
		w = round(w, 4)
		rel[i] = append(rel[i], Related{Name: ej.Name, Weight: w})
		rel[j] = append(rel[j], Related{Name: ei.Name, Weight: w})
	}
	for i, rs := range rel {
		if len(rs) > 0 {
			m.Entities[i].Related = best(rs, maxRelated, func(x, y Related) bool {
				return x.Weight > y.Weight || x.Weight == y.Weight && x.Name < y.Name
			})
		}
	}
}

// overlaps reports whether one entity's words all belong to the other (RULE and RULE_INDEX).
func overlaps(a, b []string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return !slices.ContainsFunc(a, func(w string) bool { return !slices.Contains(b, w) })
}
