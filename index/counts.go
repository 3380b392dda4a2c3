package index

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/internal/pack"
)

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
