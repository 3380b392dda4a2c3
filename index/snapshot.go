package index

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/rank"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/store"
)

// Snapshot is an immutable view of the index: requests read one while the writer prepares the next.
type Snapshot struct {
	Root       string
	Generation uint64
	Updated    time.Time
	files      *store.Files // every file seen, content-skipped ones included (Record.Skip set)
	Paths      []string     // indexed files (parsed), sorted
	Symbols    map[string][]records.SymbolRef
	Entities   *entity.Map
	History    *history.Log
	Graph      *records.Graph
	Skipped    map[string]string // path -> reason, for files the walk or content checks left out

	// derived on first use by queries
	namesOnce sync.Once
	names     *records.Names
	litsOnce  sync.Once
	lits      []records.Literal
	statsOnce sync.Once
	stats     *bm25.Stats
	generated rank.Generated // which files read as generated copies, judged as requests ask
	// read from the state file at first use, when the snapshot came from one (see snapshotOf)
	savedLits  func() ([]records.Literal, error)
	savedNames []string // the symbol names, sorted
}

// Record is the record of the file at path, nil when the snapshot has none.
func (s *Snapshot) Record(path string) *Record { return s.files.Get(path) }

// lexicalStats are BM25's collection statistics, summed over the chunks of this snapshot's files.
func (s *Snapshot) lexicalStats() *bm25.Stats {
	s.statsOnce.Do(func() {
		if s.stats != nil {
			return
		}
		st := &bm25.Stats{}
		for _, r := range s.files.All() {
			for _, c := range r.Chunks {
				st.Add(c.Terms)
			}
		}
		s.stats = st
	})
	return s.stats
}

// folded are the symbol names that lower-case to l, in the order of their first definitions.
func (s *Snapshot) folded(l string) []string {
	out := s.symbolNames().Folded(l)
	out = slices.DeleteFunc(out, func(n string) bool { return len(s.Symbols[n]) == 0 })
	slices.SortFunc(out, func(a, b string) int {
		x, y := s.Symbols[a][0], s.Symbols[b][0]
		return cmp.Or(strings.Compare(x.Path, y.Path), cmp.Compare(x.Def, y.Def))
	})
	return out
}

// SymbolNames are the names of all definitions, sorted.
func (s *Snapshot) SymbolNames() []string { return s.symbolNames().Sorted }

// namesWithLetters are the symbol names, sorted, that hold every character of pattern, case folded.
func (s *Snapshot) namesWithLetters(pattern string) []string {
	return s.symbolNames().WithLetters(pattern)
}

func (s *Snapshot) symbolNames() *records.Names {
	s.namesOnce.Do(func() {
		names := s.savedNames
		if names == nil { // else read from the state file, sorted
			names = make([]string, 0, len(s.Symbols))
			for n := range s.Symbols {
				names = append(names, n)
			}
			sort.Strings(names)
		}
		s.names = records.NewNames(names)
	})
	return s.names
}

// literals are the message-like strings of the code, cut into the pieces an error message must show.
func (s *Snapshot) literals() []records.Literal {
	s.litsOnce.Do(func() {
		if s.savedLits != nil {
			lits, err := s.savedLits()
			if err == nil {
				s.lits = lits
				return
			}
		}
		for _, p := range s.Paths {
			for _, l := range s.Record(p).File.Literals {
				if pieces := records.LiteralPieces(l.Text); len(pieces) > 0 {
					s.lits = append(s.lits, records.Literal{Path: p, Line: l.Line, Text: l.Text, Pieces: pieces})
				}
			}
		}
	})
	return s.lits
}

// definition returns the definition a SymbolRef points at.
func (s *Snapshot) definition(r records.SymbolRef) (parse.Definition, bool) {
	return r.Definition(s.Record(r.Path))
}

// newSnapshot derives everything that spans files (symbols, graph, entities) from the records. It is a
// pure function of its inputs, which is what makes an updated index equal to a fresh build.
func newSnapshot(root string, gen uint64, fs *store.Files, skipped map[string]string, hist *history.Log) *Snapshot {
	s := &Snapshot{
		Root: root, Generation: gen, Updated: time.Now(), files: fs, Skipped: skipped, History: hist,
		Symbols: map[string][]records.SymbolRef{},
	}
	var contribs []records.Contribution
	for p, e := range fs.Entries() {
		if e.Head().Parsed {
			s.Paths = append(s.Paths, p)
		}
	}
	sort.Strings(s.Paths)
	for _, p := range s.Paths {
		r := s.Record(p)
		contribs = append(contribs, r.Entity)
		for i, d := range r.File.Definitions {
			if d.Name == "" || d.Kind == "section" {
				continue
			}
			s.Symbols[d.Name] = append(s.Symbols[d.Name], records.SymbolRef{Path: p, Def: i})
		}
	}
	// the entities and the graph read the records and the symbols, not each other: derived side by side
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Entities = entity.Aggregate(contribs, hist)
	}()
	s.Graph = records.BuildGraph(s.Paths, s.Symbols, s.Record)
	<-done
	return s
}

// derivesFrom reports whether fs and hist would derive what s holds: the same files, each with the
// same parse (a file read again with the same content keeps its parse), and the same history.
func (s *Snapshot) derivesFrom(fs *store.Files, hist *history.Log) bool {
	if hist != s.History || fs.Len() != s.files.Len() {
		return false
	}
	old := s.files.Entries()
	for p, e := range fs.Entries() {
		o := old[p]
		if o == e {
			continue
		}
		if o == nil {
			return false
		}
		or, r := o.Record(p), e.Record(p)
		if or.Hash != r.Hash || or.File != r.File || or.Skip != r.Skip {
			return false
		}
	}
	return true
}

// withRecords is s with the records and skips replaced by ones that derive the same (derivesFrom).
func (s *Snapshot) withRecords(fs *store.Files, skipped map[string]string) *Snapshot {
	return &Snapshot{
		Root: s.Root, Generation: s.Generation, Updated: time.Now(), files: fs, Skipped: skipped,
		History: s.History, Paths: s.Paths, Symbols: s.Symbols, Entities: s.Entities, Graph: s.Graph,
		stats: s.lexicalStats(), savedLits: s.savedLits,
	}
}
