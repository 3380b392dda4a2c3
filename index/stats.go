package index

// What an index holds, counted, and how the counts are said.

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
)

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
	SkippedFiles []SkippedFile  `json:"skippedFiles,omitempty"` // every one, by path
	History      string         `json:"history"`
	Commits      int            `json:"commits"`
	// files the build read and parsed (not those a partial pack parsed for it); from a running process
	// (ctxmap index asking it), those it parsed since the last such question or its start
	Parsed   int      `json:"parsed"`
	Seconds  float64  `json:"seconds"`
	Cache    string   `json:"cache"`
	Vectors  string   `json:"vectors"` // the embedding model, or "off: " and why
	Warnings []string `json:"warnings,omitempty"`
}

// SkippedFile is a file left out, with the reason.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

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
func Counts(m map[string]int, number func(int) string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %s", k, number(m[k]))
	}
	return strings.Join(parts, ", ")
}

// errEmpty marks a workspace with no file the index reads: nothing a pack or a map could hold.
var errEmpty = errors.New("nothing to read")

// Empty says why the index holds no file, nil when it holds some: the folder is empty, or every file
// in it was skipped, and why.
func (st Stats) Empty() error {
	if st.Files > 0 {
		return nil
	}
	if len(st.Skipped) == 0 {
		return fmt.Errorf("%w: %s is empty (or every file in it is ignored)", errEmpty, st.Root)
	}
	var langs string
	if st.Skipped["unsupported"] > 0 {
		langs = "; ctxmap reads " + strings.Join(parse.Languages(), ", ")
	}
	return fmt.Errorf("%w: every file in %s was skipped (%s)%s", errEmpty, st.Root, Counts(st.Skipped, strconv.Itoa), langs)
}

// Parsed counts the files the index read and parsed since it was opened, by every build and update.
func (ix *Index) Parsed() int { return int(ix.parsed.Load()) }
