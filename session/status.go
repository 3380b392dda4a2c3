package session

import (
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// Status is the state of the session, as ctxmap.status reports it.
type Status struct {
	Ready       bool      `json:"ready"`
	Indexing    bool      `json:"indexing"`
	Files       int       `json:"files"`
	Definitions int       `json:"definitions"`
	Entities    int       `json:"entities"`
	LastUpdate  time.Time `json:"lastUpdate"`
	Root        string    `json:"root"`
	Pending     int       `json:"pending"` // changes queued, not yet applied
	// the share of the first build done, 0 to 1, while it runs: questions meanwhile get partial packs
	Built   float64 `json:"built,omitempty"`
	Error   string  `json:"error,omitempty"` // why the last full index failed
	Vectors string  `json:"vectors"`         // the embedding model, or "off: " and why
	// the process, for a user who wonders what the server costs: the heap live after the last
	// collection, and the goroutines
	LiveHeap   uint64 `json:"liveHeap"`
	Goroutines int    `json:"goroutines"`
}

// Status reports the session without waiting for the writer.
func (s *Session) Status() Status {
	ready, indexing, pending, lastErr := s.queue.state()
	st := Status{Ready: ready, Indexing: indexing, Root: s.root, Pending: pending}
	if !ready {
		st.Built = s.first.share()
	}
	if lastErr != nil {
		st.Error = lastErr.Error()
	}
	ix, done := s.ix.acquire()
	if ix == nil {
		done()
		st.Error, st.Vectors = ErrNoIndex.Error(), "off: no index"
		return st
	}
	snap := ix.Snapshot()
	st.Vectors = ix.VectorStatus()
	done()
	for _, p := range snap.Paths {
		st.Files++
		st.Definitions += len(snap.Record(p).File.Definitions)
	}
	if snap.Entities != nil {
		st.Entities = len(snap.Entities.Entities)
	}
	st.LastUpdate = snap.Updated.UTC().Truncate(time.Millisecond)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	if live[0].Value.Kind() == metrics.KindUint64 {
		st.LiveHeap = live[0].Value.Uint64()
	}
	st.Goroutines = runtime.NumGoroutine()
	return st
}

// RelPath turns an absolute path into a workspace-relative one; ok is false outside the workspace
// (and for the root itself).
func (s *Session) RelPath(abs string) (string, bool) {
	ix, done := s.ix.acquire()
	defer done()
	if ix == nil {
		return "", false
	}
	rel, ok := ix.RelPath(abs)
	return rel, ok && rel != "."
}

func skippedCount(m map[string]int) int {
	n := 0
	for reason, c := range m {
		if reason != "unsupported" {
			n += c
		}
	}
	return n
}

// reasons are the reasons files were skipped, those of unsupported languages aside.
func reasons(m map[string]int) string {
	some := make(map[string]int, len(m))
	for k, n := range m {
		if k != "unsupported" {
			some[k] = n
		}
	}
	return index.Counts(some, index.Thousands)
}
