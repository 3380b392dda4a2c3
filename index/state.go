package index

// The state file read back: a snapshot made from a saved state, and what a snapshot derives for the
// next save.

import (
	"time"

	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/store"
)

// Record is everything the index keeps about one file (see records.Record).
type Record = records.Record

func chunkIDs(r *Record) []string {
	if r == nil {
		return nil
	}
	ids := make([]string, len(r.Chunks))
	for i, c := range r.Chunks {
		ids[i] = c.ID
	}
	return ids
}

// snapshotOf is the snapshot a loaded state holds: its derived part as saved, or derived again from
// the records when the state has none.
func snapshotOf(st *store.State, root string) *Snapshot {
	d := st.Derived
	if d == nil || d.Entities == nil {
		return newSnapshot(root, st.Generation, st.Records, st.Skipped, st.History)
	}
	s := &Snapshot{Root: root, Generation: st.Generation, Updated: time.Now(), files: st.Records, Skipped: st.Skipped,
		History: st.History, Paths: d.Paths, Symbols: d.Symbols, Entities: d.Entities, stats: &d.Stats, savedNames: d.Names}
	s.savedLits = func() ([]records.Literal, error) {
		lits, err := d.Literals()
		if err != nil {
			return nil, err
		}
		for i := range lits { // the state file keeps no pieces: they are cut again
			lits[i].Pieces = records.LiteralPieces(lits[i].Text)
		}
		return lits, nil
	}
	s.Graph = records.NewGraph(s.Paths, d.Edges)
	return s
}

// derivedOf is what the state file keeps of what s derives.
func derivedOf(s *Snapshot) *store.Derived {
	return &store.Derived{Paths: s.Paths, Symbols: s.Symbols, Names: s.SymbolNames(), Edges: s.Graph.Edges, Stats: *s.lexicalStats(), Entities: s.Entities,
		Literals: func() ([]records.Literal, error) { return s.literals(), nil }}
}
