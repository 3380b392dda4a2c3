package rank

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/shoptest"
)

// referrers may skip a file only when it names none of the primaries' definitions: also for a name
// defined in too many files to make graph edges, and for a primary found under a name its file does not
// define.
func TestReferrersHoldEveryFileNamingAPrimary(t *testing.T) {
	files := map[string]string{}
	for _, f := range shoptest.Files(t) {
		files[f.Name] = string(f.Data)
	}
	for p, c := range map[string]string{
		"jobs/caller.py": "from jobs.a import handle\nfrom jobs.pay import settle\n\ndef main():\n    handle()\n    settle()\n",
		"jobs/pay.py":    "def settle():\n    return 2\n",
	} {
		files[p] = c
	}
	for c := 'a'; c <= 'h'; c++ {
		files[fmt.Sprintf("jobs/%c.py", c)] = "def handle():\n    return 1\n"
	}
	s := testView(t, files)
	r := &ranker{s: s, a: query.Analyze("x", nil), without: map[string]bool{}}
	check := func(prims []primary, names map[string]int) bool {
		got := r.referrers(names, prims)
		for _, q := range s.Paths {
			if slices.Contains(got, q) {
				continue
			}
			for _, ref := range s.Record(q).File.References {
				if pi, ok := names[ref.Name]; ok && q != prims[pi].path {
					t.Errorf("%s names %s but is not among the referrers of %s", q, ref.Name, prims[pi].path)
					break
				}
			}
		}
		return len(got) < len(s.Paths)
	}
	narrowed := 0
	for _, p := range s.Paths {
		for _, d := range s.Record(p).File.Definitions {
			if check([]primary{{path: p, def: d}}, map[string]int{d.Name: 0}) {
				narrowed++
			}
		}
	}
	if narrowed == 0 {
		t.Error("no definition's referrers were narrowed by the graph")
	}
	// a primary under a name defined elsewhere only: its file has no edge from the callers
	check([]primary{{path: "jobs/a.py", def: s.Record("jobs/pay.py").File.Definitions[0]}}, map[string]int{"settle": 0})
}
