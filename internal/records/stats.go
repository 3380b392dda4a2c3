package records

// What an index holds, counted, and how the counts are said.

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

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
