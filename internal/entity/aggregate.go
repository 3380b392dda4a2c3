package entity

import (
	"cmp"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/records"
)

const (
	maxRelated      = 10
	maxModules      = 10
	maxBusiness     = 8
	topPerFile      = 10  // entities of a file that take part in co-occurrence
	businessFiles   = 24  // files of an entity whose history gives its business terms
	businessTop     = 200 // entities (by importance) that get business terms
	subsumeShare    = 0.8 // a word found mostly inside one compound is that compound
	minInferredConf = 0.3 // inferred terms weaker than this are not reported
	inferEntityConf = 0.4 // an inferred term makes an entity of its own from this confidence
)

// Per-file flags of a term, from Term's booleans.
const (
	fType uint8 = 1 << iota
	fDefines
	fFolder
	fFileName
	fNamed
	fFolderName
)

type posting struct {
	file  int32
	count int32
	flags uint8
}

type stat struct {
	words, name                                string // "quality profile", QUALITY_PROFILE
	post                                       []posting
	mentions                                   int32
	typeFiles, defFiles, folderFiles, nameFile int32 // structural presence, in files that are not tests
	namedFiles                                 int32 // files (not tests) defining something named with it
	folderNameFiles                            int32 // files (not tests) under a folder named exactly this
	testFiles, utilFiles, infraFiles, dirs     int32
	raw, importance                            float64
	inferred                                   []inferredFile // opaque files attached by history
}

type inferredFile struct {
	file int32
	conf float64
}

// Aggregate combines the contributions of all files, and the history when there is one, into the
// entity map. It is a pure function of its inputs: the order of contribs does not matter, and the same
// inputs always give the same map. hist may be nil or unavailable.
func Aggregate(contribs []records.Contribution, hist *history.Log) *Map {
	files := prepare(contribs)
	if hist != nil && !hist.Available {
		hist = nil
	}
	a := &aggregation{files: files, hist: hist}
	a.collect()
	a.fold()
	a.measure()
	a.choose()
	a.infer()
	return a.build()
}

type aggregation struct {
	files    []records.Contribution
	hist     *history.Log
	dirOf    []int32 // file -> index of its folder
	dirNames []string
	dirWords [][]string       // the words of each folder's own name
	dirCount []int32          // scratch space of placeFiles, all zero between calls
	stats    []stat           // by term id
	ids      map[string]int32 // term -> id
	chosen   []*stat          // the entities, by raw importance then words
	opaque   map[int32][]Inferred
}

// prepare drops contributions without a path, merges those that share one (order-independently), and
// sorts by path.
func prepare(contribs []records.Contribution) []records.Contribution {
	byPath := make(map[string]int, len(contribs))
	out := make([]records.Contribution, 0, len(contribs))
	for _, c := range contribs {
		if c.Path == "" {
			continue
		}
		if i, ok := byPath[c.Path]; ok {
			out[i] = merge(out[i], c)
			continue
		}
		byPath[c.Path] = len(out)
		out = append(out, c)
	}
	slices.SortFunc(out, func(x, y records.Contribution) int { return strings.Compare(x.Path, y.Path) })
	return out
}

func merge(a, b records.Contribution) records.Contribution {
	m := records.Contribution{Path: a.Path, Names: a.Names + b.Names, Plain: a.Plain + b.Plain,
		Test: a.Test || b.Test, Util: a.Util || b.Util, Infra: a.Infra || b.Infra}
	terms := map[string]records.Term{}
	for _, t := range append(append([]records.Term(nil), a.Terms...), b.Terms...) {
		o := terms[t.Words]
		terms[t.Words] = records.Term{Words: t.Words, Count: o.Count + t.Count, Named: o.Named || t.Named,
			TypeName: o.TypeName || t.TypeName, Defines: o.Defines || t.Defines, Folder: o.Folder || t.Folder,
			FileName: o.FileName || t.FileName, FolderName: o.FolderName || t.FolderName}
	}
	for _, t := range terms {
		m.Terms = append(m.Terms, t)
	}
	sort.Slice(m.Terms, func(i, j int) bool { return m.Terms[i].Words < m.Terms[j].Words })
	return m
}

// collect gathers the postings of every term. Terms are numbered first and their postings laid out in
// one array (a counting sort), which keeps the allocations independent of the number of terms.
func (a *aggregation) collect() {
	type entry struct {
		id int32
		posting
	}
	total := 0
	for _, c := range a.files {
		total += len(c.Terms)
	}
	ids := make(map[string]int32, total/8)
	var words []string
	entries := make([]entry, 0, total)
	dirIdx := map[string]int32{}
	a.dirOf = make([]int32, len(a.files))
	for fi, c := range a.files {
		d := path.Dir(c.Path)
		di, ok := dirIdx[d]
		if !ok {
			di = int32(len(a.dirNames))
			dirIdx[d] = di
			a.dirNames = append(a.dirNames, d)
			var ws []string
			for _, r := range runs(path.Base(d)) {
				ws = append(ws, r...)
			}
			a.dirWords = append(a.dirWords, ws)
		}
		a.dirOf[fi] = di
		for _, t := range c.Terms {
			if !validWords(t.Words) {
				continue
			}
			id, ok := ids[t.Words]
			if !ok {
				id = int32(len(words))
				ids[t.Words] = id
				words = append(words, t.Words)
			}
			entries = append(entries, entry{id, posting{file: int32(fi), count: int32(max(1, min(t.Count, 1<<20))), flags: flagsOf(t)}})
		}
	}
	start := make([]int32, len(words)+1)
	for _, e := range entries {
		start[e.id+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	flat := make([]posting, len(entries))
	fill := make([]int32, len(words))
	a.stats = make([]stat, len(words))
	for _, e := range entries { // in file order, so each term's postings come sorted by file
		s, at := &a.stats[e.id], start[e.id]+fill[e.id]
		if fill[e.id] > 0 && flat[at-1].file == e.file { // a term listed twice by one file
			flat[at-1].count += e.count
			flat[at-1].flags |= e.flags
			continue
		}
		flat[at] = e.posting
		fill[e.id]++
		s.words = words[e.id]
	}
	for id := range a.stats {
		a.stats[id].post = flat[start[id] : start[id]+fill[id] : start[id]+fill[id]]
	}
	a.ids = ids
}

// validWords guards against cached contributions from elsewhere: words without surrounding spaces.
func validWords(w string) bool {
	return w != "" && len(w) <= 120 && w[0] != ' ' && w[len(w)-1] != ' '
}

func flagsOf(t records.Term) uint8 {
	return flag(t.TypeName, fType) | flag(t.Defines, fDefines) | flag(t.Folder, fFolder) |
		flag(t.FileName, fFileName) | flag(t.Named, fNamed) | flag(t.FolderName, fFolderName)
}

// has is 1 when flags hold f, else 0.
func has(flags, f uint8) int32 {
	if flags&f != 0 {
		return 1
	}
	return 0
}

// flag is f when on, else nothing.
func flag(on bool, f uint8) uint8 {
	if on {
		return f
	}
	return 0
}

// fold merges a single word that is a compound written without separators (a "qualityprofile" folder)
// into that compound.
func (a *aggregation) fold() {
	into := map[int32]int32{} // single word -> the compound it folds into (the first, if several)
	var buf []byte
	for i := range a.stats {
		k := a.stats[i].words
		if strings.IndexByte(k, ' ') < 0 {
			continue
		}
		buf = buf[:0]
		for j := 0; j < len(k); j++ {
			if k[j] != ' ' {
				buf = append(buf, k[j])
			}
		}
		j, ok := a.ids[string(buf)]
		if !ok {
			continue
		}
		if c, ok := into[j]; !ok || k < a.stats[c].words {
			into[j] = int32(i)
		}
	}
	// each compound has one joined form, so the merges are independent of each other and of order
	for j, k := range into {
		c, single := &a.stats[k], &a.stats[j]
		c.post = mergePostings(c.post, single.post)
		single.post = nil
	}
}

func mergePostings(x, y []posting) []posting {
	out := make([]posting, 0, len(x)+len(y))
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case j == len(y) || i < len(x) && x[i].file < y[j].file:
			out = append(out, x[i])
			i++
		case i == len(x) || y[j].file < x[i].file:
			out = append(out, y[j])
			j++
		default:
			out = append(out, posting{file: x[i].file, count: x[i].count + y[j].count, flags: x[i].flags | y[j].flags})
			i++
			j++
		}
	}
	return out
}

// measure counts, for every term, where it appears; then scores it.
func (a *aggregation) measure() {
	seenDir := make([]*stat, len(a.dirNames))
	n := float64(len(a.files))
	for i := range a.stats {
		s := &a.stats[i]
		if len(s.post) < 2 {
			continue // never an entity: not worth measuring
		}
		for _, p := range s.post {
			c := &a.files[p.file]
			s.mentions += p.count
			if seenDir[a.dirOf[p.file]] != s {
				seenDir[a.dirOf[p.file]] = s
				s.dirs++
			}
			if c.Util {
				s.utilFiles++
			}
			if c.Infra {
				s.infraFiles++
			}
			if c.Test {
				s.testFiles++
				continue // tests mirror the code they test: their names add no structure
			}
			s.typeFiles += has(p.flags, fType)
			s.defFiles += has(p.flags, fDefines)
			s.folderFiles += has(p.flags, fFolder)
			s.nameFile += has(p.flags, fFileName)
			s.namedFiles += has(p.flags, fNamed)
			s.folderNameFiles += has(p.flags, fFolderName)
		}
		s.raw = rawImportance(s, n)
	}
}

// rawImportance rewards spread (files, folders), presence in type, folder and file names, and rarity:
// a word in every file is not important, one in half of them loses 6%, so that the central concept of
// a small workspace keeps its rank.
func rawImportance(s *stat, n float64) float64 {
	df := float64(len(s.post))
	if df == 0 || n == 0 {
		return 0
	}
	spread := math.Log2(1+df) + 0.5*math.Log2(1+float64(s.dirs))
	share := func(k int32) float64 { return math.Min(1, 2*float64(k)/df) }
	structure := 1 + 0.5*share(s.typeFiles) + 0.5*share(s.folderFiles) + 0.25*share(s.nameFile)
	if s.defFiles > 0 || s.folderNameFiles > 0 {
		structure += 0.5 // a type or a folder is named after it: the project calls it by that name
	}
	intensity := 1 + 0.1*math.Log2(1+float64(s.mentions)/df)
	raw := spread * structure * rarity(df, n) * intensity
	if allInfra(s.words) && share(s.folderFiles) < 0.3 {
		// a technical word that names the project's own feature folders (a CLI's repo/ commands) is
		// business there
		raw *= 0.6
	}
	if generic[s.words] {
		raw *= 0.5
	}
	if testVocabulary(s) {
		raw *= 0.5
	}
	return raw
}

// testVocabulary: a term found mostly in tests (mock, fixture, assert). Each code file has a test
// beside it and often fixtures too, so a feature's own word can reach two thirds of them.
func testVocabulary(s *stat) bool {
	return float64(s.testFiles) >= 0.75*float64(len(s.post))
}

// rarity is 0 for a word in every file and close to 1 for a word in less than half of them.
func rarity(df, n float64) float64 {
	return math.Max(0, 1-math.Pow(df/n, 4))
}

func allInfra(ws string) bool {
	for ws != "" {
		w, rest, _ := strings.Cut(ws, " ")
		if w != "" && !infra[w] {
			return false
		}
		ws = rest
	}
	return true
}

// choose keeps the terms that recur and that the project itself names: single words in two files or
// more (three without any structural presence) that name a definition, a file or a folder somewhere
// (a word only ever seen in calls, like substring or equals, is a library's vocabulary); compounds named
// by a type or a folder and found in two files or more. Then it drops the words and compounds that only
// ever appear inside a longer compound (quality and profile alone, PROFILE_EXPORTER beside
// QUALITY_PROFILE_EXPORTER).
func (a *aggregation) choose() {
	var all []*stat
	inCompound := map[string][]*stat{}
	for i := range a.stats { // the order does not matter: the result is sorted
		s := &a.stats[i]
		k, df := s.words, len(s.post)
		if df < 2 {
			continue
		}
		structural := s.typeFiles + s.folderFiles + s.nameFile
		if len(k) == 2 && s.folderFiles == 0 {
			continue // a two-letter word is a term only where it names a folder of the product
		}
		if strings.IndexByte(k, ' ') < 0 {
			if (df >= 3 || df >= 2 && structural > 0) && structural+s.namedFiles > 0 && !a.namespace(s) {
				all = append(all, s)
			}
			continue
		}
		if structural >= 2 || s.defFiles >= 1 {
			all = append(all, s)
			for _, w := range strings.Fields(k) {
				inCompound[w] = append(inCompound[w], s)
			}
		}
	}
	for _, s := range all {
		if s.defFiles == 0 && a.subsumed(s, inCompound) {
			continue
		}
		a.chosen = append(a.chosen, s)
	}
	sortStats(a.chosen)
}

// subsumed reports whether a longer compound holds the words of s and most of its files.
func (a *aggregation) subsumed(s *stat, inCompound map[string][]*stat) bool {
	ws := strings.Fields(s.words)
	for _, c := range inCompound[ws[0]] {
		if len(c.words) <= len(s.words) || float64(len(c.post)) < subsumeShare*float64(len(s.post)) {
			continue
		}
		if strings.Contains(" "+c.words+" ", " "+s.words+" ") {
			return true
		}
	}
	return false
}

// namespace recognises the folders of a package prefix (org/sonar/server in every Java file): a word
// found in many paths and nowhere else, neither in a type nor a file name nor the code.
func (a *aggregation) namespace(s *stat) bool {
	df := len(s.post)
	return s.typeFiles == 0 && s.nameFile == 0 && s.defFiles == 0 && int(s.folderFiles)*3 >= len(a.files) &&
		int(s.mentions) <= 2*df
}

func sortStats(ss []*stat) {
	slices.SortFunc(ss, func(x, y *stat) int {
		if c := cmp.Compare(y.raw, x.raw); c != 0 {
			return c
		}
		return strings.Compare(x.words, y.words)
	})
}

func hasFile(post []posting, fi int32) bool {
	i := sort.Search(len(post), func(i int) bool { return post[i].file >= fi })
	return i < len(post) && post[i].file == fi
}

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

// weight is how much a file is about a term: mentions, multiplied by its structural presence.
func weight(p posting) float64 {
	w := 1.0
	if p.flags&fDefines != 0 {
		w += 2
	}
	if p.flags&fType != 0 {
		w++
	}
	if p.flags&fFolder != 0 {
		w++
	}
	if p.flags&fFileName != 0 {
		w++
	}
	return float64(p.count) * w
}

func nameOf(ws string) string {
	return strings.ToUpper(strings.ReplaceAll(ws, " ", "_"))
}
