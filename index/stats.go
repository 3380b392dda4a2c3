package index

// What an index holds, counted, and how the counts are said.

import (
	"sort"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Stats counts what a snapshot holds (see records.Stats).
type Stats = records.Stats

// SkippedFile is a file left out, with the reason.
type SkippedFile = records.SkippedFile

// Stats counts the snapshot's contents.
func (s *Snapshot) Stats() Stats {
	st := Stats{Root: s.Root, Languages: map[string]int{}, Skipped: map[string]int{}}
	for _, p := range s.Paths {
		h := s.files.Entries()[p].Head()
		st.Files++
		st.Definitions += h.Defs
		st.References += h.Refs
		st.Chunks += h.ChunkCount
		st.Languages[h.Language]++
	}
	// a file skipped for its content keeps the reason in its record: a run that kept the record without
	// reading the file counts it as the run that read it did
	reasons := make(map[string]string, len(s.Skipped))
	for p, e := range s.files.Entries() {
		if skip := e.Head().Skip; skip != "" {
			reasons[p] = skip
		}
	}
	for p, r := range s.Skipped {
		reasons[p] = r
	}
	skipped := make([]string, 0, len(reasons))
	for p := range reasons {
		skipped = append(skipped, p)
	}
	sort.Strings(skipped)
	for _, p := range skipped {
		reason := reasons[p]
		st.Skipped[reason]++
		st.SkippedFiles = append(st.SkippedFiles, SkippedFile{Path: p, Reason: reason})
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

// Thousands writes n with a comma between each three digits (7,842), as packs and the front ends say
// their counts.
func Thousands(n int) string { return pack.Thousands(n) }

// Counts writes counts by name (languages, skip reasons) most first, then by name: "go 12, python 3";
// number writes each count.
func Counts(m map[string]int, number func(int) string) string { return records.Counts(m, number) }

// Parsed counts the files the index read and parsed since it was opened, by every build and update.
func (ix *Index) Parsed() int { return int(ix.parsed.Load()) }
