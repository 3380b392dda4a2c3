package index

import (
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/index/entity"
	"github.com/ctxmap/ctxmap/index/history"
	"github.com/ctxmap/ctxmap/index/lexical"
	"github.com/ctxmap/ctxmap/index/parse"
)

// Snapshot is an immutable view of the index: requests read one while the writer prepares the next.
type Snapshot struct {
	Root       string
	Generation uint64
	Updated    time.Time
	Files      map[string]*Record // every file seen, content-skipped ones included (Record.Skip set)
	Paths      []string           // indexed files (parsed), sorted
	Symbols    map[string][]SymbolRef
	Lower      map[string][]string // lower-cased symbol name -> the names as written
	Entities   *entity.Map
	History    *history.Log
	Graph      *Graph
	Skipped    map[string]string // path -> reason, for files the walk or content checks left out

	// derived on first use by queries
	namesOnce sync.Once
	names     []string // symbol names, sorted
	litsOnce  sync.Once
	lits      []literalRef
	statsOnce sync.Once
	stats     lexical.Stats
}

// lexicalStats are BM25's collection statistics, summed over the chunks of this snapshot's files.
func (s *Snapshot) lexicalStats() *lexical.Stats {
	s.statsOnce.Do(func() {
		for _, r := range s.Files {
			for _, c := range r.Chunks {
				s.stats.Add(c.Terms)
			}
		}
	})
	return &s.stats
}

// SymbolNames are the names of all definitions, sorted.
func (s *Snapshot) SymbolNames() []string {
	s.namesOnce.Do(func() {
		s.names = make([]string, 0, len(s.Symbols))
		for n := range s.Symbols {
			s.names = append(s.names, n)
		}
		sort.Strings(s.names)
	})
	return s.names
}

// literalRef is a message-like string of the code, cut into the fixed pieces an error message must show.
type literalRef struct {
	path   string
	line   int
	text   string
	pieces []string
}

func (s *Snapshot) literals() []literalRef {
	s.litsOnce.Do(func() {
		for _, p := range s.Paths {
			for _, l := range s.Files[p].File.Literals {
				if pieces := literalPieces(l.Text); len(pieces) > 0 {
					s.lits = append(s.lits, literalRef{path: p, line: l.Line, text: l.Text, pieces: pieces})
				}
			}
		}
	})
	return s.lits
}

// SymbolRef places one definition: Records[Path].File.Definitions[Def].
type SymbolRef struct {
	Path string
	Def  int
}

// Definition returns the definition a SymbolRef points at.
func (s *Snapshot) Definition(r SymbolRef) (parse.Definition, bool) {
	rec := s.Files[r.Path]
	if rec == nil || rec.File == nil || r.Def < 0 || r.Def >= len(rec.File.Definitions) {
		return parse.Definition{}, false
	}
	return rec.File.Definitions[r.Def], true
}

// newSnapshot derives everything that spans files (symbols, graph, entities) from the records. It is a
// pure function of its inputs, which is what makes an updated index equal to a fresh build.
func newSnapshot(root string, gen uint64, files map[string]*Record, skipped map[string]string, hist *history.Log) *Snapshot {
	s := &Snapshot{
		Root: root, Generation: gen, Updated: time.Now(), Files: files, Skipped: skipped, History: hist,
		Symbols: map[string][]SymbolRef{}, Lower: map[string][]string{},
	}
	var contribs []entity.Contribution
	for p, r := range files {
		if r.File == nil {
			continue
		}
		s.Paths = append(s.Paths, p)
	}
	sort.Strings(s.Paths)
	for _, p := range s.Paths {
		r := files[p]
		contribs = append(contribs, r.Entity)
		for i, d := range r.File.Definitions {
			if d.Name == "" || d.Kind == "section" {
				continue
			}
			if _, seen := s.Symbols[d.Name]; !seen {
				l := strings.ToLower(d.Name)
				s.Lower[l] = append(s.Lower[l], d.Name)
			}
			s.Symbols[d.Name] = append(s.Symbols[d.Name], SymbolRef{Path: p, Def: i})
		}
	}
	s.Entities = entity.Aggregate(contribs, hist)
	s.Graph = buildGraph(s)
	return s
}

// Stats counts what a snapshot holds.
type Stats struct {
	Root         string         `json:"root"`
	Files        int            `json:"files"`
	Definitions  int            `json:"definitions"`
	References   int            `json:"references"`
	Chunks       int            `json:"chunks"`
	Entities     int            `json:"entities"`
	Languages    map[string]int `json:"languages"`
	Skipped      map[string]int `json:"skipped"`
	SkippedFiles []SkippedFile  `json:"skippedFiles,omitempty"`
	History      string         `json:"history"`
	Commits      int            `json:"commits"`
	Parsed       int            `json:"parsed"`
	Seconds      float64        `json:"seconds"`
	Cache        string         `json:"cache"`
	Warnings     []string       `json:"warnings,omitempty"`
}

// SkippedFile is a file left out, with the reason.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

const maxListedSkips = 200

// Stats counts the snapshot's contents.
func (s *Snapshot) Stats() Stats {
	st := Stats{Root: s.Root, Languages: map[string]int{}, Skipped: map[string]int{}}
	for _, p := range s.Paths {
		r := s.Files[p]
		st.Files++
		st.Definitions += len(r.File.Definitions)
		st.References += len(r.File.References)
		st.Chunks += len(r.Chunks)
		st.Languages[r.Language]++
	}
	skipped := make([]string, 0, len(s.Skipped))
	for p := range s.Skipped {
		skipped = append(skipped, p)
	}
	sort.Strings(skipped)
	for _, p := range skipped {
		reason := s.Skipped[p]
		st.Skipped[reason]++
		if reason != "unsupported" && len(st.SkippedFiles) < maxListedSkips {
			st.SkippedFiles = append(st.SkippedFiles, SkippedFile{Path: p, Reason: reason})
		}
	}
	if s.Entities != nil {
		st.Entities = len(s.Entities.Entities)
	}
	switch {
	case s.History == nil:
		st.History = "not read"
	case !s.History.Available:
		st.History = "unavailable: " + s.History.Reason
	default:
		st.Commits = len(s.History.Commits)
		st.History = "ok"
	}
	return st
}
