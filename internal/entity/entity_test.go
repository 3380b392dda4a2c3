package entity

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
)

func termOf(c records.Contribution, words string) (records.Term, bool) {
	for _, t := range c.Terms {
		if t.Words == words {
			return t, true
		}
	}
	return records.Term{}, false
}

func TestContributeJava(t *testing.T) {
	src := []byte(`package org.sonar.server.qualityprofile;

public class QualityProfileManager {
  private final RuleRepository ruleRepository;

  public QualityProfile getQualityProfile(String key) {
    return ruleRepository.findQualityProfileByKey(key);
  }
}
`)
	path := "server/src/main/java/org/sonar/server/qualityprofile/QualityProfileManager.java"
	p := parse.NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), path, src)
	if err != nil {
		t.Fatal(err)
	}
	c := Contribute(path, f)
	if c.Path != path || c.Test || c.Names == 0 || c.Plain > c.Names/2 {
		t.Errorf("contribution header: %+v", c)
	}
	qp, ok := termOf(c, "quality profile")
	if !ok || !qp.TypeName || !qp.Defines || !qp.FileName || qp.Count < 3 {
		t.Errorf("quality profile = %+v (QualityProfileManager names it; the manager role is trimmed)", qp)
	}
	if folder, ok := termOf(c, "qualityprofile"); !ok || !folder.Folder {
		t.Errorf("the qualityprofile folder: %+v", folder)
	}
	for _, w := range []string{"src", "main", "java", "org", "get", "manager", "string", "key profile", "get quality"} {
		if _, ok := termOf(c, w); ok {
			t.Errorf("noise %q in the contribution", w)
		}
	}
	if rule, ok := termOf(c, "rule"); !ok || rule.TypeName || !rule.Named {
		t.Errorf("rule (a field's name, no type of this file) = %+v", rule)
	}
	for i := 1; i < len(c.Terms); i++ {
		if c.Terms[i-1].Words >= c.Terms[i].Words {
			t.Fatalf("terms not sorted: %q >= %q", c.Terms[i-1].Words, c.Terms[i].Words)
		}
	}
}

func TestContributeHandMade(t *testing.T) {
	f := &parse.File{Language: "go",
		Definitions: []parse.Definition{
			{Name: "GistStar", Kind: "struct"},
			{Name: "SaveGist", Kind: "method", Parent: "GistStar"},
			{Name: "a", Kind: "function"},
		},
		References: []parse.Reference{{Name: "x1"}, {Name: "gistStar"}, {Name: "err"}},
	}
	c := Contribute("internal/gist_star/star_test.go", f)
	if !c.Test {
		t.Error("star_test.go is a test file")
	}
	if g, _ := termOf(c, "gist"); g.Count != 4 || !g.TypeName || !g.Folder || g.Defines || g.FileName {
		t.Errorf("gist = %+v", g)
	}
	if gs, _ := termOf(c, "gist star"); !gs.Defines || !gs.Folder || gs.Count != 3 {
		t.Errorf("gist star = %+v", gs)
	}
	if s, _ := termOf(c, "star"); !s.FileName || s.Count != 4 {
		t.Errorf("star = %+v", s)
	}
	// a service's name is its subject: GistService defines gist, and makes no compound
	svc := Contribute("gist.go", &parse.File{Definitions: []parse.Definition{{Name: "GistService", Kind: "class"}}})
	if g, _ := termOf(svc, "gist"); !g.Defines {
		t.Errorf("GistService: gist = %+v", g)
	}
	if _, ok := termOf(svc, "gist service"); ok {
		t.Error("GistService made the compound gist service")
	}
	// a, x1 and err carry nothing; GistStore, SaveGist and gistStore do
	if c.Names != 6 || c.Plain != 3 {
		t.Errorf("Names=%d Plain=%d", c.Names, c.Plain)
	}
	if c := Contribute(`src\util\Helpers.py`, nil); c.Path != "src/util/Helpers.py" || !c.Util || len(c.Terms) != 0 {
		t.Errorf("path-only contribution = %+v", c)
	}
}

// A contribution marks tests and examples: the files that show the product's names without being it.
func TestContributionTest(t *testing.T) {
	for p, want := range map[string]bool{
		"rule/index_test.go": true, "tests/test_rule.py": true, "src/test/java/RuleIndexTest.java": true,
		"web/rule.spec.ts": true, "web/__tests__/rule.js": true, "examples/basic/rule.go": true,
		"rule/index.go": false, "src/main/java/Contest.java": false, "latest/rule.py": false, "LICENSE-MIT": false,
	} {
		if got := Contribute(p, nil).Test; got != want {
			t.Errorf("Contribute(%q).Test = %v, want %v", p, got, want)
		}
	}
}

// small builds contributions from hand-made parse results: the shape the engine caches.
func small() []records.Contribution {
	file := func(path string, types []string, funcs []string, refs ...string) records.Contribution {
		f := &parse.File{}
		for _, n := range types {
			f.Definitions = append(f.Definitions, parse.Definition{Name: n, Kind: "class"})
		}
		for _, n := range funcs {
			f.Definitions = append(f.Definitions, parse.Definition{Name: n, Kind: "function"})
		}
		for _, r := range refs {
			f.References = append(f.References, parse.Reference{Name: r})
		}
		return Contribute(path, f)
	}
	return []records.Contribution{
		file("app/gist/gist.py", []string{"Gist"}, []string{"share_gist", "star"}, "GistFile"),
		file("app/gist/gist_file.py", []string{"GistFile"}, []string{"render"}, "Gist"),
		file("app/gist/views.py", nil, []string{"gist_page"}, "Gist", "GistFile", "Release"),
		file("app/release/release.py", []string{"Release"}, []string{"publish_release"}, "Tag"),
		file("app/release/notes.py", []string{"ReleaseNotes"}, []string{"render_notes"}, "Release"),
		file("app/release/tag.py", []string{"Tag"}, []string{"tag_release"}, "Release"),
		file("deploy/docker/database_setup.py", nil, []string{"database_url", "migrate_database"}, "Database"),
		file("deploy/db/database.py", []string{"Database"}, []string{"connect_database"}),
		file("tests/test_gist.py", []string{"TestGist"}, []string{"test_share_gist"}, "Gist", "Fixture"),
		file("tests/test_release.py", []string{"TestRelease"}, []string{"test_publish"}, "Release", "Fixture"),
		file("tests/fixture_data.py", []string{"FixtureData"}, []string{"load_fixture"}, "Gist"),
		file("app/obf/q.py", []string{"q"}, []string{"r", "s1"}, "t", "u2", "v"),
	}
}

func TestAggregateSmall(t *testing.T) {
	m := Aggregate(small(), nil)
	top := names(m.Entities)
	if len(top) < 2 || !slices.Contains(top[:2], "GIST") || !slices.Contains(top[:2], "RELEASE") {
		t.Fatalf("entities = %v", top)
	}
	if e := m.Get("DATABASE"); e == nil || e.Centrality != "infrastructure" {
		t.Errorf("DATABASE = %+v", e)
	}
	if e := m.Get("FIXTURE"); e != nil {
		t.Errorf("test vocabulary became an entity: %+v", e)
	}
	if e := m.Get("GIST_FILE"); e == nil || e.Files[0] != "app/gist/gist_file.py" {
		t.Errorf("GIST_FILE = %+v", e)
	}
	if got := m.FileEntities("app/gist/views.py"); len(got) < 2 || got[0] != "GIST" {
		t.Errorf("FileEntities(views.py) = %v", got)
	}
	if got := m.FileEntities("no/such/file.py"); got != nil {
		t.Errorf("FileEntities of an unknown file = %v", got)
	}
	if m.InferredTerms("app/obf/q.py") != nil {
		t.Error("inferred terms without history")
	}
	if empty := Aggregate(nil, nil); empty == nil || len(empty.Entities) != 0 || empty.Match("gist") != nil || empty.Get("GIST") != nil {
		t.Errorf("empty map = %+v", empty)
	}
	var nilMap *Map
	if nilMap.Get("x") != nil || nilMap.Match("x") != nil || nilMap.Lookup("x") != nil || nilMap.FileEntities("x") != nil {
		t.Error("a nil map must answer nothing")
	}
}

// A two-letter feature folder (a CLI's pr/ commands) is an entity, its identifiers count; a two-letter
// word without such a folder is not; a whole folder name weighs like a type name.
func TestShortFolderTerm(t *testing.T) {
	file := func(path string, defs ...string) records.Contribution {
		f := &parse.File{}
		for _, n := range defs {
			f.Definitions = append(f.Definitions, parse.Definition{Name: n, Kind: "function"})
		}
		f.References = []parse.Reference{{Name: "idOf"}, {Name: "dbConn"}}
		return Contribute(path, f)
	}
	c := file("pkg/cmd/pr/merge/merge.go", "mergeRun", "prNumber")
	if pr, _ := termOf(c, "pr"); !pr.Folder || !pr.FolderName || !pr.Named || pr.Count != 2 {
		t.Errorf("pr = %+v", pr)
	}
	m := Aggregate([]records.Contribution{
		c,
		file("pkg/cmd/pr/view/view.go", "viewRun", "printPrPreview"),
		file("pkg/cmd/pr/pr.go", "NewCmdPR"),
		file("pkg/cmd/issue/view/view.go", "viewRun", "printIssuePreview"),
		file("pkg/cmd/issue/issue.go", "NewCmdIssue"),
		file("pkg/api/client.go", "clientOf", "ghPath"),
		file("pkg/api/http.go", "ghRequest"),
	}, nil)
	if e := m.Get("PR"); e == nil || len(e.Files) != 3 {
		t.Errorf("PR = %+v", e)
	}
	for _, short := range []string{"GH", "ID", "DB"} {
		if e := m.Get(short); e != nil {
			t.Errorf("%s is no folder here, yet an entity: %+v", short, e)
		}
	}
}

// Hand-made history (plain data, as the cache holds it) gives an opaque file its terms.
func TestAggregateInferredFromHandMadeHistory(t *testing.T) {
	at := func(i int) time.Time { return time.Unix(1700000000+int64(i)*3600, 0) }
	hist := &history.Log{Available: true, Head: "h", Commits: []history.Commit{
		{Hash: "5", Time: at(5), Subject: "Release tags sort by date", Files: []string{"app/obf/q.py", "app/release/tag.py"}},
		{Hash: "4", Time: at(4), Subject: "Speed up release publishing", Files: []string{"app/obf/q.py"}},
		{Hash: "3", Time: at(3), Subject: "Release notes link to gists", Files: []string{"app/obf/q.py", "app/release/notes.py"}},
		{Hash: "2", Time: at(2), Subject: "Gist stars", Files: []string{"app/gist/gist.py", "app/gist/views.py"}},
		{Hash: "1", Time: at(1), Subject: "Gist rendering of files", Files: []string{"app/gist/gist_file.py", "app/gist/gist.py"}},
	}}
	m := Aggregate(small(), hist)
	inf := m.InferredTerms("app/obf/q.py")
	if len(inf) == 0 || inf[0].Term != "release" {
		t.Fatalf("InferredTerms(q.py) = %+v", inf)
	}
	if !slices.Contains(m.FileEntities("app/obf/q.py"), "RELEASE") || !slices.Contains(m.Get("RELEASE").Files, "app/obf/q.py") {
		t.Errorf("q.py not attached to RELEASE: %v", m.FileEntities("app/obf/q.py"))
	}
	if g := m.Get("GIST"); !slices.Contains(g.BusinessTerms, "star") {
		t.Errorf("GIST business terms = %v", g.BusinessTerms)
	}
}

// After any sequence of updates the map equals a fresh build: Aggregate depends on the set of
// contributions only, whatever their order, and survives the cache's gob and JSON round trips.
func TestAggregateDeterministic(t *testing.T) {
	w := rulesWorkspace(t)
	want := Aggregate(w.contribs, w.hist)
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 5; round++ {
		shuffled := slices.Clone(w.contribs)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := Aggregate(shuffled, w.hist); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: shuffled contributions give another map", round)
		}
	}

	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(w.contribs); err != nil {
		t.Fatal(err)
	}
	var fromGob []records.Contribution
	if err := gob.NewDecoder(&buf).Decode(&fromGob); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(w.contribs)
	var fromJSON []records.Contribution
	if err := json.Unmarshal(b, &fromJSON); err != nil {
		t.Fatal(err)
	}
	for name, cs := range map[string][]records.Contribution{"gob": fromGob, "json": fromJSON} {
		if got := Aggregate(cs, w.hist); !reflect.DeepEqual(got, want) {
			t.Errorf("contributions after a %s round trip give another map", name)
		}
	}

	// a sequence of updates: files removed, changed and added back, one at a time
	live := map[string]records.Contribution{}
	for _, c := range w.contribs {
		live[c.Path] = c
	}
	current := func() []records.Contribution {
		var out []records.Contribution
		for _, c := range live {
			out = append(out, c)
		}
		return out
	}
	for i, c := range w.contribs {
		switch i % 3 {
		case 0:
			delete(live, c.Path)
		case 1:
			live[c.Path] = Contribute(c.Path, &parse.File{Definitions: []parse.Definition{{Name: "Changed", Kind: "class"}}})
		}
		Aggregate(current(), w.hist)
	}
	for _, c := range w.contribs {
		live[c.Path] = c
		Aggregate(current(), w.hist)
	}
	if got := Aggregate(current(), w.hist); !reflect.DeepEqual(got, want) {
		t.Error("the map after a sequence of updates differs from a fresh build")
	}
	gotJSON, _ := json.Marshal(Aggregate(current(), w.hist))
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Error("JSON differs")
	}
}

// Bad input loses nothing and breaks nothing: empty paths, duplicates, junk terms.
func TestAggregateBadInput(t *testing.T) {
	cs := small()
	dup := cs[0]
	junk := []records.Contribution{
		{Path: ""},
		dup,
		{Path: "x.py", Terms: []records.Term{{Words: ""}, {Words: " gist"}, {Words: "a b c d"}, {Words: "gist", Count: -5}}},
	}
	m := Aggregate(append(slices.Clone(cs), junk...), nil)
	g := m.Get("GIST")
	if g == nil {
		t.Fatal("GIST lost")
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(g.Files)))); n != len(g.Files) {
		t.Errorf("duplicate files in GIST: %v", g.Files)
	}
	if !slices.Contains(g.Files, "x.py") {
		t.Errorf("a term with a bad count still counts once: %v", g.Files)
	}
	if Aggregate(junk, nil) == nil {
		t.Error("nil map")
	}
}

// benchContributions builds 1,000 files of 10 definitions and 30 references each, shaped like real code:
// 60 packages, each with a pool of identifiers made of its own topic words and of words of a shared
// vocabulary (Zipf-distributed); files use mostly the names of their own package.
func benchContributions() []records.Contribution {
	rng := rand.New(rand.NewSource(7))
	vocab := make([]string, 600)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("%c%c%cword", 'a'+i%26, 'a'+(i/26)%26, 'k'+i%7)
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	title := func(s string) string { return string(s[0]-32) + s[1:] }
	const packages = 60
	pools := make([][]string, packages)
	for p := range pools {
		topic := []string{vocab[rng.Intn(len(vocab))], vocab[rng.Intn(len(vocab))], vocab[rng.Intn(len(vocab))]}
		for n := 0; n < 40; n++ {
			name := ""
			for w := 0; w < []int{1, 1, 2, 2, 3}[rng.Intn(5)]; w++ {
				word := topic[rng.Intn(len(topic))]
				if rng.Intn(10) < 3 {
					word = vocab[zipf.Uint64()]
				}
				if w > 0 || n < 10 {
					word = title(word)
				}
				name += word
			}
			pools[p] = append(pools[p], name)
		}
	}
	var out []records.Contribution
	for i := 0; i < 1000; i++ {
		pkg := i % packages
		pool := pools[pkg]
		f := &parse.File{}
		for d := 0; d < 10; d++ {
			kind := "method"
			if d < 2 {
				kind = "class"
			}
			f.Definitions = append(f.Definitions, parse.Definition{Name: pool[rng.Intn(len(pool))], Kind: kind})
		}
		for r := 0; r < 30; r++ {
			from := pool
			if rng.Intn(10) < 3 {
				from = pools[rng.Intn(packages)]
			}
			f.References = append(f.References, parse.Reference{Name: from[rng.Intn(len(from))]})
		}
		path := fmt.Sprintf("%s/%s/%s_%d.go", vocab[pkg%12], pools[pkg][0], pool[rng.Intn(len(pool))], i)
		out = append(out, Contribute(path, f))
	}
	return out
}

func benchHistory(contribs []records.Contribution) *history.Log {
	rng := rand.New(rand.NewSource(9))
	l := &history.Log{Available: true, Head: "h"}
	for i := 0; i < 5000; i++ {
		c := history.Commit{Hash: fmt.Sprint(i), Time: time.Unix(int64(1700000000-i*600), 0),
			Subject: fmt.Sprintf("Improve %s handling of %s", contribs[rng.Intn(len(contribs))].Terms[0].Words, contribs[rng.Intn(len(contribs))].Terms[1].Words)}
		for j := 0; j < 1+rng.Intn(4); j++ {
			c.Files = append(c.Files, contribs[rng.Intn(len(contribs))].Path)
		}
		l.Commits = append(l.Commits, c)
	}
	return l
}

// BenchmarkAggregate: 1,000 files, 10,000 definitions; target < 30 ms per aggregation.
// On a shared machine wall time varies with the load; cpu-ms/op (process CPU time, GC included) does not.
func BenchmarkAggregate(b *testing.B) {
	cs := benchContributions()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		Aggregate(cs, nil)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(len(Aggregate(cs, nil).Entities)), "entities")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAggregateWithHistory adds 5,000 commits (business and inferred terms); the history's own
// index is built once, before the timer, as the engine keeps one Log across aggregations.
func BenchmarkAggregateWithHistory(b *testing.B) {
	cs := benchContributions()
	hist := benchHistory(cs)
	hist.FileTerms(cs[0].Path)
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		Aggregate(cs, hist)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
