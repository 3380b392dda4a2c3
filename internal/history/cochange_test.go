package history

import (
	"fmt"
	"testing"
)

// The files that changed with a file, most confident first; a pair seen once, or only in a mass
// commit, is no companion.
func TestCompanions(t *testing.T) {
	r := newRepo(t)
	r.commit("start", map[string]string{"lexer.hpp": "v0", "README.md": "v0"})
	for i := 1; i <= 3; i++ { // the header and its amalgamation change together
		r.commit(fmt.Sprintf("fix %d", i), map[string]string{"json.hpp": fmt.Sprint("v", i), "single/json.hpp": fmt.Sprint("v", i)})
	}
	r.commit("lexer too", map[string]string{"json.hpp": "v4", "single/json.hpp": "v4", "lexer.hpp": "v1"})
	r.commit("docs once", map[string]string{"json.hpp": "v5", "README.md": "v1"})
	mass := map[string]string{"json.hpp": "v6"}
	for i := range 30 {
		mass[fmt.Sprintf("gen/f%d.hpp", i)] = "x"
	}
	mass["lexer.hpp"] = "v2"
	r.commit("reformat everything", mass)
	log := read(t, r.dir, 0)

	got := log.Companions("json.hpp", 2, 10)
	if len(got) != 1 || got[0].Path != "single/json.hpp" || got[0].Commits != 4 {
		t.Fatalf("companions of json.hpp: %+v (want single/json.hpp alone, in 4 commits: lexer.hpp shares one small commit, README.md one)", got)
	}
	if c := got[0].Confidence; c <= 0.5 || c > 1 {
		t.Errorf("confidence %.2f: the amalgamation changed in most of json.hpp's commits", c)
	}
	if got := log.Companions("json.hpp", 1, 10); len(got) != 3 || got[0].Path != "single/json.hpp" {
		t.Errorf("with one shared commit enough: %+v", got)
	}
	if got := log.Companions("json.hpp", 1, 1); len(got) != 1 {
		t.Errorf("k=1 gave %d", len(got))
	}
	if got := log.Companions("nowhere.go", 1, 10); got != nil {
		t.Errorf("a file never committed has companions: %+v", got)
	}
}
