package query

import "github.com/ctxmap/ctxmap/internal/history"

// maxRefs bounds the issues a text's references are followed to: a list of twenty links is a
// changelog, not a pointer.
const maxRefs = 5

// findRefs are the earlier issues and pull requests the prose names ("a follow up to #3112"), outside
// code blocks and stack frames, at most maxRefs of them.
func findRefs(d *document) []int {
	var out []int
	seen := map[int]bool{}
	for _, l := range d.lines {
		if l.code || l.frame || l.fence {
			continue
		}
		for _, n := range history.IssueRefs(l.raw) {
			if !seen[n] && len(out) < maxRefs {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}
