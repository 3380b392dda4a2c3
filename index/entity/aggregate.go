package entity

import (
	"cmp"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/index/history"
	"github.com/ctxmap/ctxmap/index/words"
)

// Entity is one business term of the project and where it lives.
type Entity struct {
	Name          string    `json:"name"`       // UPPER_SNAKE: RULE, QUALITY_PROFILE
	Terms         []string  `json:"terms"`      // the stemmed words it stands for: [quality profile]
	Importance    float64   `json:"importance"` // 0..1, the most important entity has 1
	Centrality    string    `json:"centrality"` // core, feature, util, infrastructure
	Files         []string  `json:"files"`      // most relevant first: defines a type named after it, then by mentions
	Modules       []string  `json:"modules"`    // folders holding its files, those named after it first
	Related       []Related `json:"related"`    // by weight, at most maxRelated
	BusinessTerms []string  `json:"businessTerms"`
	Confidence    float64   `json:"confidence"` // 1 for terms seen in code; lower for terms inferred from history
	Inferred      bool      `json:"inferred,omitempty"`
}

// Related is another entity that lives in the same files, with an Ochiai-like co-occurrence weight.
type Related struct {
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
}

// Inferred is a term recovered from history for a file whose identifiers carry no meaning.
type Inferred struct {
	Term       string  `json:"term"`
	Confidence float64 `json:"confidence"`
}

// Map is the entity map of a workspace. It is immutable: safe for concurrent readers.
type Map struct {
	Entities []*Entity `json:"entities"` // by importance, then name

	byName   map[string]*Entity   // QUALITY_PROFILE
	byWords  map[string]*Entity   // "quality profile"
	joined   map[string]*Entity   // "qualityprofile"
	byTerm   map[string][]*Entity // every word of an entity -> entities, best first
	heads    map[string][]*Entity // last word of a compound -> compounds, best first
	files    map[string][]string
	inferred map[string][]Inferred
}

const (
	maxRelated      = 10
	maxModules      = 10
	maxBusiness     = 8
	topPerFile      = 10  // entities of a file that take part in co-occurrence
	businessFiles   = 40  // files of an entity whose history gives its business terms
	businessTop     = 300 // entities (by importance) that get business terms
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
)

type posting struct {
	file  int32
	count int32
	flags uint8
}

type stat struct {
	words                                      string
	post                                       []posting
	mentions                                   int
	typeFiles, defFiles, folderFiles, nameFile int // structural presence, in files that are not tests
	namedFiles                                 int // files (not tests) defining something named with it
	testFiles, utilFiles, infraFiles, dirs     int
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
func Aggregate(contribs []Contribution, hist *history.Log) *Map {
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
	files    []Contribution
	hist     *history.Log
	dirOf    []int32 // file -> index of its folder
	dirNames []string
	dirWords [][]string // the words of each folder's own name
	dirCount []int32    // scratch space of placeFiles, all zero between calls
	stats    []stat           // by term id
	ids      map[string]int32 // term -> id
	chosen   []*stat // the entities, by raw importance then words
	opaque   map[int32][]Inferred
}

// prepare drops contributions without a path, merges those that share one (order-independently), and
// sorts by path.
func prepare(contribs []Contribution) []Contribution {
	byPath := make(map[string]int, len(contribs))
	out := make([]Contribution, 0, len(contribs))
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
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func merge(a, b Contribution) Contribution {
	m := Contribution{Path: a.Path, Names: a.Names + b.Names, Plain: a.Plain + b.Plain,
		Test: a.Test || b.Test, Util: a.Util || b.Util, Infra: a.Infra || b.Infra}
	terms := map[string]Term{}
	for _, t := range append(append([]Term(nil), a.Terms...), b.Terms...) {
		o := terms[t.Words]
		terms[t.Words] = Term{Words: t.Words, Count: o.Count + t.Count, TypeName: o.TypeName || t.TypeName,
			Defines: o.Defines || t.Defines, Folder: o.Folder || t.Folder, FileName: o.FileName || t.FileName}
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
		if n := fill[e.id]; n > 0 && flat[at-1].file == e.file { // a term listed twice by one file
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

func flagsOf(t Term) uint8 {
	var f uint8
	if t.TypeName {
		f |= fType
	}
	if t.Defines {
		f |= fDefines
	}
	if t.Folder {
		f |= fFolder
	}
	if t.FileName {
		f |= fFileName
	}
	if t.Named {
		f |= fNamed
	}
	return f
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
			s.mentions += int(p.count)
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
			if p.flags&fType != 0 {
				s.typeFiles++
			}
			if p.flags&fDefines != 0 {
				s.defFiles++
			}
			if p.flags&fFolder != 0 {
				s.folderFiles++
			}
			if p.flags&fFileName != 0 {
				s.nameFile++
			}
			if p.flags&fNamed != 0 {
				s.namedFiles++
			}
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
	share := func(k int) float64 { return math.Min(1, 2*float64(k)/df) }
	structure := 1 + 0.5*share(s.typeFiles) + 0.5*share(s.folderFiles) + 0.25*share(s.nameFile)
	if s.defFiles > 0 {
		structure += 0.5
	}
	rarity := math.Max(0, 1-math.Pow(df/n, 4))
	intensity := 1 + 0.1*math.Log2(1+float64(s.mentions)/df)
	raw := spread * structure * rarity * intensity
	if allInfra(s.words) {
		raw *= 0.6
	}
	if float64(s.testFiles) >= 0.6*df {
		raw *= 0.5
	}
	return raw
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
		if strings.IndexByte(k, ' ') < 0 {
			if (df >= 3 || df >= 2 && structural > 0) && structural+s.namedFiles > 0 && !a.namespace(s) {
				all = append(all, s)
			}
			continue
		}
		if df >= 2 && (structural >= 2 || s.defFiles >= 1) {
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
	return s.typeFiles == 0 && s.nameFile == 0 && s.defFiles == 0 && s.folderFiles*3 >= len(a.files) &&
		s.mentions <= 2*df
}

func sortStats(ss []*stat) {
	slices.SortFunc(ss, func(x, y *stat) int {
		if c := cmp.Compare(y.raw, x.raw); c != 0 {
			return c
		}
		return strings.Compare(x.words, y.words)
	})
}

// infer gives the files whose identifiers say nothing (most names without a meaningful word) the terms
// of the commits that touched them, attaches each file to the entity of its term, and makes entities of
// terms that the code never shows.
func (a *aggregation) infer() {
	if a.hist == nil {
		return
	}
	a.opaque = map[int32][]Inferred{}
	total := float64(len(a.hist.Commits))
	for fi, c := range a.files {
		if c.Names < 2 || c.Plain*4 < c.Names*3 {
			continue
		}
		n := a.hist.FileCommits(c.Path)
		if n == 0 {
			continue
		}
		var inf []Inferred
		for _, tc := range a.hist.FileTerms(c.Path) {
			if len(tc.Term) < 3 || noise[tc.Term] || words.Stopword(tc.Term) {
				continue
			}
			consistency := float64(tc.Count) / float64(n)
			share := float64(a.hist.TermCommits(tc.Term)) / math.Max(1, total)
			conf := consistency * float64(n) / float64(n+1) * (1 - share*share)
			if conf >= minInferredConf {
				inf = append(inf, Inferred{Term: tc.Term, Confidence: round(conf, 3)})
			}
		}
		sort.Slice(inf, func(i, j int) bool {
			if inf[i].Confidence != inf[j].Confidence {
				return inf[i].Confidence > inf[j].Confidence
			}
			return inf[i].Term < inf[j].Term
		})
		if len(inf) > 5 {
			inf = inf[:5]
		}
		if len(inf) > 0 {
			a.opaque[int32(fi)] = inf
		}
	}
	if len(a.opaque) == 0 {
		return
	}
	byWord := map[string]*stat{}
	inCompound := map[string]*stat{}
	for _, s := range a.chosen { // best first: the first compound holding a word is the best one
		if strings.IndexByte(s.words, ' ') < 0 {
			byWord[s.words] = s
			continue
		}
		for _, w := range strings.Fields(s.words) {
			if inCompound[w] == nil {
				inCompound[w] = s
			}
		}
	}
	fresh := map[string]*stat{}
	ids := make([]int32, 0, len(a.opaque))
	for fi := range a.opaque {
		ids = append(ids, fi)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, fi := range ids {
		for _, inf := range a.opaque[fi] {
			s := byWord[inf.Term]
			if s == nil {
				s = inCompound[inf.Term]
			}
			if s == nil {
				if inf.Confidence < inferEntityConf {
					continue
				}
				s = fresh[inf.Term]
				if s == nil {
					s = &stat{words: inf.Term}
					fresh[inf.Term] = s
				}
			}
			if k := len(s.inferred); k > 0 && s.inferred[k-1].file == fi || hasFile(s.post, fi) {
				continue // two terms of one file led to the same entity, or the code already names it
			}
			s.inferred = append(s.inferred, inferredFile{file: fi, conf: inf.Confidence})
		}
	}
	n := float64(len(a.files))
	for _, s := range fresh {
		df := float64(len(s.inferred))
		dirs := map[int32]bool{}
		sum := 0.0
		for _, f := range s.inferred {
			dirs[a.dirOf[f.file]] = true
			sum += f.conf
		}
		s.dirs = len(dirs)
		s.raw = (math.Log2(1+df) + 0.5*math.Log2(1+float64(s.dirs))) * math.Max(0, 1-(df/n)*(df/n)) * sum / df
		a.chosen = append(a.chosen, s)
	}
	sortStats(a.chosen)
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

func (a *aggregation) build() *Map {
	a.dirCount = make([]int32, len(a.dirNames))
	m := &Map{
		Entities: make([]*Entity, len(a.chosen)),
		byName:   make(map[string]*Entity, len(a.chosen)),
		byWords:  make(map[string]*Entity, len(a.chosen)),
		joined:   map[string]*Entity{},
		byTerm:   map[string][]*Entity{},
		heads:    map[string][]*Entity{},
		files:    map[string][]string{},
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
	}
	slices.SortFunc(a.chosen, func(x, y *stat) int {
		if c := cmp.Compare(y.importance, x.importance); c != 0 {
			return c
		}
		return strings.Compare(nameOf(x.words), nameOf(y.words))
	})
	// per file: the entities in it, with how much the file is about each
	type mention struct {
		entity int32
		score  float64
	}
	perFile := make([][]mention, len(a.files))
	for i, s := range a.chosen {
		e := &Entity{Name: nameOf(s.words), Terms: strings.Fields(s.words), Confidence: 1,
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

	pairs := map[uint64]int32{}
	inTop := make([]int32, len(a.chosen))
	for fi, ms := range perFile {
		if len(ms) == 0 {
			continue
		}
		slices.SortFunc(ms, func(x, y mention) int {
			if c := cmp.Compare(y.score, x.score); c != 0 {
				return c
			}
			return cmp.Compare(x.entity, y.entity)
		})
		names := make([]string, len(ms))
		for i, x := range ms {
			names[i] = m.Entities[x.entity].Name
		}
		m.files[a.files[fi].Path] = names
		top := ms[:min(len(ms), topPerFile)]
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
	type ranked struct {
		key  uint64 // defines, not a test, weight: higher first
		file int32
	}
	post := make([]ranked, len(s.post))
	for i, p := range s.post {
		k := uint64(weight(p)) // at most 6 * 2^20
		if !a.files[p.file].Test {
			k |= 1 << 62
		}
		if p.flags&fDefines != 0 {
			k |= 1 << 63
		}
		post[i] = ranked{k, p.file}
	}
	slices.SortFunc(post, func(x, y ranked) int {
		if c := cmp.Compare(y.key, x.key); c != 0 {
			return c
		}
		return cmp.Compare(x.file, y.file)
	})
	inf := slices.Clone(s.inferred)
	slices.SortFunc(inf, func(x, y inferredFile) int {
		if c := cmp.Compare(y.conf, x.conf); c != 0 {
			return c
		}
		return cmp.Compare(x.file, y.file)
	})
	files := make([]string, 0, len(post)+len(inf))
	var touched []int32
	count := func(fi int32) {
		d := a.dirOf[fi]
		if a.dirCount[d] == 0 {
			touched = append(touched, d)
		}
		a.dirCount[d]++
	}
	for _, p := range post {
		files = append(files, a.files[p.file].Path)
		count(p.file)
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
	better := func(x, y dir) bool {
		if x.named != y.named {
			return x.named
		}
		if x.n != y.n {
			return x.n > y.n
		}
		return a.dirNames[x.idx] < a.dirNames[y.idx]
	}
	// only the best maxModules are kept: a selection, not a sort of all the folders
	var top []dir
	for _, d := range dirs {
		if len(top) == maxModules && !better(d, top[maxModules-1]) {
			continue
		}
		i := len(top)
		if i < maxModules {
			top = append(top, d)
		} else {
			i--
		}
		for ; i > 0 && better(d, top[i-1]); i-- {
			top[i] = top[i-1]
		}
		top[i] = d
	}
	mods := make([]string, len(top))
	for i, d := range top {
		mods[i] = a.dirNames[d.idx]
	}
	return files, mods
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
	case float64(s.testFiles) >= 0.6*df || float64(s.utilFiles) >= 0.6*df:
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
	keys := make([]uint64, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		co := float64(pairs[k])
		i, j := int(k>>32), int(k&0xffffffff)
		ei, ej := m.Entities[i], m.Entities[j]
		if overlaps(ei.Terms, ej.Terms) {
			continue
		}
		w := co / math.Sqrt(float64(inTop[i])*float64(inTop[j])) * co / (co + 1)
		if w < 0.05 {
			continue
		}
		w = round(w, 4)
		rel[i] = append(rel[i], Related{Name: ej.Name, Weight: w})
		rel[j] = append(rel[j], Related{Name: ei.Name, Weight: w})
	}
	for i, rs := range rel {
		sort.Slice(rs, func(x, y int) bool {
			if rs[x].Weight != rs[y].Weight {
				return rs[x].Weight > rs[y].Weight
			}
			return rs[x].Name < rs[y].Name
		})
		if len(rs) > maxRelated {
			rs = rs[:maxRelated]
		}
		if rs != nil {
			m.Entities[i].Related = rs
		}
	}
}

// overlaps reports whether one entity's words all belong to the other (RULE and RULE_INDEX).
func overlaps(a, b []string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for _, w := range a {
		found := false
		for _, x := range b {
			if x == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// business gives the most important entities the words of the commit messages of their main files,
// weighted by how specific each word is in the whole history.
func (a *aggregation) business(m *Map) {
	if a.hist == nil {
		return
	}
	total := float64(len(a.hist.Commits))
	cache := map[string][]history.TermCount{}
	counts := map[string]int{}
	weighted := map[string]float64{}
	for i, e := range m.Entities {
		if i >= businessTop {
			break
		}
		own := map[string]bool{}
		for _, t := range e.Terms {
			own[t] = true
		}
		clear(counts)
		clear(weighted)
		for r, f := range e.Files[:min(len(e.Files), businessFiles)] {
			tc, ok := cache[f]
			if !ok {
				tc = a.hist.FileTerms(f)
				cache[f] = tc
			}
			fw := 1 / (1 + float64(r)/10) // the files most about the entity speak for it most
			for _, t := range tc {
				counts[t.Term] += t.Count
				weighted[t.Term] += float64(t.Count) * fw
			}
		}
		type scored struct {
			term  string
			score float64
		}
		var best []scored
		for t, n := range counts {
			if n < 2 || own[t] || len(t) < 3 || noise[t] || words.Stopword(t) {
				continue
			}
			idf := math.Log(1 + total/float64(max(1, a.hist.TermCommits(t))))
			best = append(best, scored{t, weighted[t] * idf})
		}
		sort.Slice(best, func(x, y int) bool {
			if best[x].score != best[y].score {
				return best[x].score > best[y].score
			}
			return best[x].term < best[y].term
		})
		for _, b := range best[:min(len(best), maxBusiness)] {
			e.BusinessTerms = append(e.BusinessTerms, b.term)
		}
	}
}
