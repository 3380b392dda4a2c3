package entity

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/parse"
	"github.com/ctxmap/ctxmap/internal/records"
)

// workspace is testdata/rules.txtar (a small rules and quality-profiles product in Java, Python and Go) copied
// into a real git repository whose commits carry the messages below, then parsed with the real parser.
type workspace struct {
	dir      string
	contribs []records.Contribution
	hist     *history.Log
	m        *Map
}

const (
	javaMain = "server/src/main/java/org/sonar/server/"
	javaTest = "server/src/test/java/org/sonar/server/"
	obscure  = javaMain + "engine/a.java"
)

// commits, oldest first: each touches the listed files (appending a line), "*" is everything else.
var commits = []struct {
	msg   string
	files []string
}{
	{"Initial import", []string{"*"}},
	{"Fix rule search for long descriptions", []string{javaMain + "rule/index/RuleIndex.java",
		javaMain + "rule/index/RuleQuery.java", javaMain + "rule/ws/SearchAction.java", javaTest + "rule/index/RuleIndexTest.java"}},
	{"Add quality profile export", []string{javaMain + "qualityprofile/QualityProfileExporter.java",
		"scanner/quality_profile/export.py", "api/profiles/quality_profile.go"}},
	{"Support rule parameters with default values in rule creation", []string{javaMain + "rule/RuleCreator.java",
		javaMain + "rule/RuleParam.java"}},
	{"Quality profile backup keeps activation severity", []string{"scanner/quality_profile/backup.py",
		javaMain + "qualityprofile/ActiveRule.java", javaMain + "qualityprofile/RuleActivator.java"}},
	{"Speed up rule evaluation", []string{obscure}},
	{"Fix rule cache invalidation when tags change", []string{obscure}},
	{"Rule tags are evaluated lazily", []string{obscure}},
	{"Inheritance of quality profiles copies activation to children", []string{
		javaMain + "qualityprofile/QualityProfileRepository.java", javaMain + "qualityprofile/RuleActivator.java"}},
}

var (
	wsOnce sync.Once
	wsErr  error
	wsVal  *workspace
)

// rulesWorkspace builds the workspace once for all tests of the package (parsing is the slow part).
func rulesWorkspace(t testing.TB) *workspace {
	t.Helper()
	filetest.NeedGit(t)
	wsOnce.Do(func() { wsVal, wsErr = buildWorkspace() })
	if wsErr != nil {
		t.Fatal(wsErr)
	}
	return wsVal
}

func buildWorkspace() (*workspace, error) {
	dir, err := os.MkdirTemp("", "ctxmap-entity-")
	if err != nil {
		return nil, err
	}
	cleanup = append(cleanup, dir)
	ar, err := txtar.ParseFile(filepath.Join("testdata", "rules.txtar"))
	if err != nil {
		return nil, err
	}
	var all []string
	src := map[string][]byte{}
	for _, f := range ar.Files {
		all = append(all, f.Name)
		src[f.Name] = f.Data
	}
	git := func(n int, args ...string) error {
		_, err := filetest.GitAt(dir, int64(1700000000+n*86400), args...)
		return err
	}
	if err := git(0, "init", "-q"); err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for _, c := range commits[1:] {
		for _, f := range c.files {
			named[f] = true
		}
	}
	for i, c := range commits {
		files := c.files
		if files[0] == "*" {
			files = nil
			for _, f := range all {
				if f != obscure {
					files = append(files, f)
				}
			}
		}
		for _, f := range files {
			if err := touch(src, dir, f, i); err != nil {
				return nil, err
			}
		}
		if err := git(i, "add", "-A"); err != nil {
			return nil, err
		}
		if err := git(i, "commit", "-q", "-m", c.msg); err != nil {
			return nil, err
		}
	}

	w := &workspace{dir: dir}
	p := parse.NewParser()
	defer p.Close()
	for _, f := range all {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		pf, err := p.Parse(context.Background(), f, b)
		if err != nil {
			return nil, err
		}
		w.contribs = append(w.contribs, Contribute(f, pf))
	}
	if w.hist, err = history.Read(context.Background(), dir, 0); err != nil {
		return nil, err
	}
	w.m = Aggregate(w.contribs, w.hist)
	return w, nil
}

// touch writes the archive's file into the repository, with one more comment line per commit after the
// first, so that each commit changes the files it names.
func touch(src map[string][]byte, dir, f string, commit int) error {
	target := filepath.Join(dir, filepath.FromSlash(f))
	b, err := os.ReadFile(target)
	if os.IsNotExist(err) {
		if b, err = slices.Clone(src[f]), nil; b == nil {
			err = fmt.Errorf("testdata/rules.txtar has no file %s", f)
		}
	}
	if err != nil {
		return err
	}
	if commit > 0 {
		mark := "//"
		if strings.HasSuffix(f, ".py") {
			mark = "#"
		}
		b = append(b, fmt.Sprintf("%s change %d\n", mark, commit)...)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	return os.WriteFile(target, b, 0o644)
}

var cleanup []string

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range cleanup {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func names(es []*Entity) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

func TestRulesWorkspaceTopEntities(t *testing.T) {
	w := rulesWorkspace(t)
	if !w.hist.Available || len(w.hist.Commits) != len(commits) {
		t.Fatalf("history: %+v", w.hist)
	}
	top := names(w.m.Entities[:min(8, len(w.m.Entities))])
	t.Logf("top entities: %v", top)
	if len(top) < 2 || !slices.Equal(slices.Sorted(slices.Values(top[:2])), []string{"QUALITY_PROFILE", "RULE"}) {
		t.Fatalf("top two entities = %v, want RULE and QUALITY_PROFILE", top)
	}
	if rule := w.m.Get("RULE"); rule.Importance != 1 || rule.Centrality != "core" || rule.Confidence != 1 || rule.Inferred {
		t.Errorf("RULE = %+v", rule)
	}
	for _, e := range w.m.Entities {
		for _, term := range e.Terms {
			switch term {
			case "src", "main", "java", "org", "util", "helper", "get", "set", "test", "string", "value", "py", "go":
				t.Errorf("noise word %q became part of entity %s", term, e.Name)
			}
		}
		if e.Importance < 0 || e.Importance > 1 || len(e.Files) == 0 {
			t.Errorf("entity %s: importance %v, %d files", e.Name, e.Importance, len(e.Files))
		}
	}
	for i := 1; i < len(w.m.Entities); i++ {
		a, b := w.m.Entities[i-1], w.m.Entities[i]
		if a.Importance < b.Importance || a.Importance == b.Importance && a.Name > b.Name {
			t.Errorf("entities out of order at %d: %s %v, %s %v", i, a.Name, a.Importance, b.Name, b.Importance)
		}
	}
	// QualityProfile classes, quality_profile/ folders and the qualityprofile/ package are one entity
	if w.m.Get("QUALITY") != nil || w.m.Get("PROFILE") != nil || w.m.Get("QUALITYPROFILE") != w.m.Get("QUALITY_PROFILE") {
		t.Errorf("quality profile split into pieces: QUALITY=%v PROFILE=%v", w.m.Get("QUALITY"), w.m.Get("PROFILE"))
	}
}

func TestRulesWorkspaceFilesAndModules(t *testing.T) {
	w := rulesWorkspace(t)
	rule := w.m.Get("rule")
	definesRule := []string{javaMain + "rule/Rule.java", "scanner/rules/rule.py", "api/rules/client.go"}
	if !slices.Contains(definesRule, rule.Files[0]) {
		t.Errorf("first file of RULE = %s, want a file defining a type Rule: %v", rule.Files[0], rule.Files[:5])
	}
	for _, f := range []string{javaMain + "rule/index/RuleIndex.java", javaMain + "qualityprofile/RuleActivator.java", "scanner/rules/loader.py"} {
		if !slices.Contains(rule.Files, f) {
			t.Errorf("RULE misses %s", f)
		}
	}
	if !slices.Contains(rule.Modules, javaMain+"rule") || !slices.Contains(rule.Modules, "scanner/rules") {
		t.Errorf("RULE modules = %v", rule.Modules)
	}
	// test files come after the code that defines the entity
	if i, j := slices.Index(rule.Files, javaTest+"rule/RuleUpdaterTest.java"), slices.Index(rule.Files, javaMain+"rule/RuleUpdater.java"); i < j {
		t.Errorf("test file before its code in RULE.Files: %v", rule.Files)
	}
	qp := w.m.Get("QualityProfile")
	if qp == nil {
		t.Fatal("no QUALITY_PROFILE")
	}
	if !slices.Contains([]string{javaMain + "qualityprofile/QualityProfile.java", "scanner/quality_profile/model.py",
		"api/profiles/quality_profile.go"}, qp.Files[0]) {
		t.Errorf("first file of QUALITY_PROFILE = %s", qp.Files[0])
	}
	if !slices.Contains(qp.Modules, javaMain+"qualityprofile") || !slices.Contains(qp.Modules, "scanner/quality_profile") {
		t.Errorf("QUALITY_PROFILE modules = %v", qp.Modules)
	}
	if fe := w.m.FileEntities(javaMain + "qualityprofile/RuleActivator.java"); !slices.Contains(fe, "RULE") || !slices.Contains(fe, "QUALITY_PROFILE") {
		t.Errorf("entities of RuleActivator.java = %v", fe)
	}
	if fe := w.m.FileEntities(javaMain + "rule/RuleSeverity.java"); len(fe) == 0 || fe[0] != "RULE_SEVERITY" && fe[0] != "RULE" {
		t.Errorf("entities of RuleSeverity.java = %v", fe)
	}
	if util := w.m.FileEntities(javaMain + "util/StringUtils.java"); slices.Contains(util, "UTIL") || slices.Contains(util, "STRING") {
		t.Errorf("noise entities for StringUtils.java: %v", util)
	}
}

func TestRulesWorkspaceRelated(t *testing.T) {
	w := rulesWorkspace(t)
	related := func(e *Entity) []string {
		var out []string
		for _, r := range e.Related {
			out = append(out, r.Name)
			if r.Weight <= 0 || r.Weight > 1 {
				t.Errorf("%s -> %s weight %v", e.Name, r.Name, r.Weight)
			}
		}
		return out
	}
	rule, qp := w.m.Get("RULE"), w.m.Get("QUALITY_PROFILE")
	if !slices.Contains(related(rule), "QUALITY_PROFILE") || !slices.Contains(related(qp), "RULE") {
		t.Errorf("RULE related %v; QUALITY_PROFILE related %v", related(rule), related(qp))
	}
	for _, e := range w.m.Entities {
		if len(e.Related) > maxRelated {
			t.Errorf("%s has %d related entities", e.Name, len(e.Related))
		}
		for _, r := range e.Related {
			other := w.m.Get(r.Name)
			if other == nil || overlaps(e.Terms, other.Terms) {
				t.Errorf("%s related to %s (missing or its own sub-compound)", e.Name, r.Name)
			}
		}
	}
}

func TestRulesWorkspaceBusinessTerms(t *testing.T) {
	w := rulesWorkspace(t)
	rule, qp := w.m.Get("RULE"), w.m.Get("QUALITY_PROFILE")
	t.Logf("RULE business terms %v; QUALITY_PROFILE %v", rule.BusinessTerms, qp.BusinessTerms)
	if !slices.Contains(rule.BusinessTerms, "search") {
		t.Errorf("RULE business terms %v lack 'search' (its index and search files were fixed for it)", rule.BusinessTerms)
	}
	if !slices.Contains(qp.BusinessTerms, "export") || !slices.Contains(qp.BusinessTerms, "activation") {
		t.Errorf("QUALITY_PROFILE business terms %v lack export/activation", qp.BusinessTerms)
	}
	for _, e := range w.m.Entities {
		for _, bt := range e.BusinessTerms {
			if slices.Contains(e.Terms, bt) || bt == "fix" || bt == "add" || bt == "initial" {
				t.Errorf("%s: business term %q is its own term or commit noise", e.Name, bt)
			}
		}
	}
}

func TestRulesWorkspaceMatch(t *testing.T) {
	w := rulesWorkspace(t)
	ms := w.m.Match("Cannot search for words longer than 15 characters in rule descriptions")
	if len(ms) == 0 || ms[0].Entity.Name != "RULE" || !slices.Equal(ms[0].Words, []string{"rule"}) {
		t.Fatalf("Match(issue) = %v", matchNames(ms))
	}
	ms = w.m.Match("Exporting quality profiles is slow when a profile has 5,000 active rules")
	var matched []string
	for _, m := range ms {
		matched = append(matched, m.Entity.Name)
	}
	if len(ms) < 2 || ms[0].Entity.Name != "QUALITY_PROFILE" || !slices.Contains(matched, "ACTIVE_RULE") || !slices.Contains(matched, "RULE") {
		t.Fatalf("Match(quality profiles) = %v", matchNames(ms))
	}
	if !slices.Equal(ms[0].Words, []string{"quality", "profile"}) {
		t.Errorf("QUALITY_PROFILE matched by %v", ms[0].Words)
	}
	if ms := w.m.Match("The qualityprofile endpoint returns 500"); len(ms) == 0 || ms[0].Entity.Name != "QUALITY_PROFILE" {
		t.Errorf("words written together: %v", matchNames(ms))
	}
	// "quality. Profile" spans two sentences: not the compound
	for _, m := range w.m.Match("Improve quality. Profile the startup.") {
		if m.Score >= 1 && m.Entity.Name == "QUALITY_PROFILE" {
			t.Errorf("compound matched across a sentence end: %+v", m)
		}
	}
	if ms := w.m.Match("nothing relevant here at all"); len(ms) != 0 {
		t.Errorf("Match(unrelated) = %v", matchNames(ms))
	}
	if got := names(w.m.Lookup("profiles")); len(got) == 0 || got[0] != "QUALITY_PROFILE" {
		t.Errorf("Lookup(profiles) = %v", got)
	}
	if got := names(w.m.Lookup("quality profile")); !slices.Equal(got, []string{"QUALITY_PROFILE"}) {
		t.Errorf("Lookup(quality profile) = %v", got)
	}
	for _, n := range []string{"quality_profile", "Quality Profiles", "QualityProfile", "qualityprofile"} {
		if e := w.m.Get(n); e == nil || e.Name != "QUALITY_PROFILE" {
			t.Errorf("Get(%q) = %v", n, e)
		}
	}
	if w.m.Get("UNKNOWN_THING") != nil || w.m.Get("") != nil {
		t.Error("Get of an unknown name must be nil")
	}
}

func matchNames(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s(%.2f)", m.Entity.Name, m.Score))
	}
	return out
}

func TestRulesWorkspaceObfuscatedFile(t *testing.T) {
	w := rulesWorkspace(t)
	inf := w.m.InferredTerms(obscure)
	if len(inf) == 0 || inf[0].Term != "rule" || inf[0].Confidence < 0.3 || inf[0].Confidence > 1 {
		t.Fatalf("InferredTerms(a.java) = %+v, want rule first", inf)
	}
	for _, x := range inf[1:] {
		if x.Confidence > inf[0].Confidence {
			t.Errorf("inferred terms out of order: %+v", inf)
		}
	}
	if fe := w.m.FileEntities(obscure); !slices.Contains(fe, "RULE") {
		t.Errorf("FileEntities(a.java) = %v", fe)
	}
	rule := w.m.Get("RULE")
	if rule.Files[len(rule.Files)-1] != obscure {
		t.Errorf("an inferred file comes after the files that name the entity: %v", rule.Files)
	}
	if got := w.m.InferredTerms(javaMain + "rule/RuleIndex.java"); got != nil {
		t.Errorf("a file with meaningful names got inferred terms %+v", got)
	}
}

func TestRulesWorkspaceWithoutHistory(t *testing.T) {
	w := rulesWorkspace(t)
	for _, hist := range []*history.Log{nil, {Reason: "not a git repository"}} {
		m := Aggregate(w.contribs, hist)
		if len(m.Entities) == 0 || m.Entities[0].Name != w.m.Entities[0].Name {
			t.Fatalf("without history the top entity changed: %v", names(m.Entities[:3]))
		}
		for _, e := range m.Entities {
			if len(e.BusinessTerms) != 0 || e.Inferred {
				t.Errorf("%s: history-derived data without history: %+v", e.Name, e)
			}
		}
		if m.InferredTerms(obscure) != nil {
			t.Error("inferred terms without history")
		}
	}
}

// The engine caches contributions (gob) and prints the map (JSON): both must survive a round trip.
func TestRulesWorkspaceJSON(t *testing.T) {
	w := rulesWorkspace(t)
	b, err := json.Marshal(w.m)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Entities []Entity `json:"entities"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Entities) != len(w.m.Entities) || back.Entities[0].Name != w.m.Entities[0].Name ||
		!strings.Contains(string(b), `"businessTerms":[`) || !strings.Contains(string(b), `"related":[`) {
		t.Errorf("JSON of the map: %.300s", b)
	}
}
