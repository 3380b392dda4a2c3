package lexicon

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/words"
)

func weightOf(l *Lexicon, from, to string) float64 {
	for _, s := range l.Synonyms(from) {
		if s.Word == to {
			return s.Weight
		}
	}
	return 0
}

func TestBuiltin(t *testing.T) {
	l := Builtin()
	if l.Len() < 300 {
		t.Fatalf("builtin lexicon has %d words with synonyms, want a few hundred", l.Len())
	}
	cases := []struct {
		from, to string
		want     float64
	}{
		{"delete", "remove", Strong},
		{"remove", "delete", Strong}, // symmetric
		{"delete", "drop", Moderate},
		{"delete", "clear", Weak},
		{"error", "exception", Strong},
		{"config", "setting", Strong}, // "settings" stemmed
		{"auth", "login", Strong},
		{"auth", "authentication", Strong},
		{"parse", "deserialize", Strong},
		{"http", "request", Moderate},
		{"request", "response", Moderate},
	}
	for _, c := range cases {
		if got := weightOf(l, c.from, c.to); got != c.want {
			t.Errorf("%s -> %s = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	// Oneway: authentication is a strong synonym of auth, not the other way at that grade.
	if got := weightOf(l, "authentication", "auth"); got != Strong {
		t.Errorf("authentication -> auth = %v (group), want %v", got, Strong)
	}
	if got := weightOf(l, "database", "db"); got != Strong {
		t.Errorf("database -> db = %v, want %v", got, Strong)
	}
	// Lookups take stems, so an inflected query word finds the same entry.
	if got := weightOf(l, words.Stem("deleting"), "remove"); got != Strong {
		t.Errorf("deleting -> remove = %v, want %v", got, Strong)
	}
}

func TestBuiltinSortedAndReachable(t *testing.T) {
	l := Builtin()
	for from, list := range l.syn {
		if words.Normalize(from) == "" || words.Stopword(from) {
			t.Errorf("key %q is a stopword or too short: queries never contain it", from)
		}
		for i, s := range list {
			if s.Word == from {
				t.Errorf("%q lists itself", from)
			}
			if words.Stopword(s.Word) || len(s.Word) < 2 {
				t.Errorf("%q -> %q: the synonym is a stopword", from, s.Word)
			}
			if s.Weight <= 0 || s.Weight > 1 {
				t.Errorf("%q -> %q weight %v outside (0, 1]", from, s.Word, s.Weight)
			}
			if i > 0 && list[i-1].Weight < s.Weight {
				t.Errorf("%q: synonyms not best first: %v", from, list)
			}
		}
	}
}

func TestSynonymsIsACopy(t *testing.T) {
	l := Builtin()
	got := l.Synonyms("delete")
	got[0].Weight = 0.01
	if l.Synonyms("delete")[0].Weight == 0.01 {
		t.Fatal("Synonyms exposes the lexicon's own slice")
	}
	var none *Lexicon
	if none.Synonyms("delete") != nil || none.Len() != 0 {
		t.Fatal("a nil lexicon has no synonyms")
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lexicon.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	path := writeFile(t, `# project words
synonyms:
  Rule:
    strong: [Check]
    moderate: [constraints]
    0.45: [lint]
groups:
  - weak: [profile, ruleset, preset]
oneway:
  qp:
    strong: qualityprofile
ignore: [log]
`)
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		from, to string
		want     float64
	}{
		{"rule", "check", Strong},
		{"check", "rule", Strong},
		{"rule", "constraint", Moderate}, // stemmed
		{"rules", "lint", 0.45},          // lookup stems too
		{"lint", "rule", 0.45},
		{"profile", "ruleset", Weak},
		{"preset", "profile", Weak},
		{"qp", "qualityprofile", Strong},
		{"qualityprofile", "qp", 0}, // oneway
	}
	for _, c := range cases {
		if got := weightOf(l, c.from, c.to); got != c.want {
			t.Errorf("%s -> %s = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	if !l.ignore["log"] {
		t.Error("ignore list not read")
	}
}

func TestLoadEmptyAndMissing(t *testing.T) {
	l, err := Load(writeFile(t, "# nothing yet\n"))
	if err != nil || l.Len() != 0 {
		t.Fatalf("empty file: %v, %d words", err, l.Len())
	}
	if _, err := Load(filepath.Join(t.TempDir(), "absent.yaml")); err == nil || !strings.Contains(err.Error(), "read lexicon") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name, content string
		line          string // "file:line" suffix expected
		want          string
	}{
		{"unknown key", "synonym:\n  a: {strong: [b]}\n", ":1:", `unknown key "synonym"`},
		{"synonyms is a list", "synonyms:\n  - delete\n", ":2:", "synonyms must be a mapping"},
		{"entry not a mapping", "synonyms:\n  delete: [remove]\n", ":2:", "synonyms.delete must be a mapping of grade"},
		{"unknown grade", "synonyms:\n  delete:\n    strng: [remove]\n", ":3:", `unknown grade "strng"`},
		{"weight too big", "synonyms:\n  delete:\n    1.5: [remove]\n", ":3:", "weight 1.5 is outside (0, 1]"},
		{"weight zero", "synonyms:\n  delete:\n    0: [remove]\n", ":3:", "weight 0 is outside (0, 1]"},
		{"weight negative", "groups:\n  - -0.2: [a, b]\n", ":2:", "weight -0.2 is outside (0, 1]"},
		{"phrase", "synonyms:\n  delete:\n    weak: [clean up]\n", ":3:", `"clean up" is not one word`},
		{"identifier", "synonyms:\n  signIn:\n    strong: [login]\n", ":2:", `"signIn" is not one word`},
		{"nested list", "synonyms:\n  delete:\n    strong: [[remove]]\n", ":3:", "expected a word, found a list"},
		{"words not a list", "synonyms:\n  delete:\n    strong: {remove: 1}\n", ":3:", "must be a list of words"},
		{"groups not a list", "groups:\n  strong: [a, b]\n", ":2:", "groups must be a list"},
		{"group of one", "groups:\n  - strong: [alone]\n", ":2:", "at least two words"},
		{"group with two grades", "groups:\n  - strong: [a, b]\n    weak: [c, d]\n", ":2:", "a group must be one grade"},
		{"ignore not words", "ignore:\n  log: true\n", ":2:", "ignore must be a list of words"},
		{"top level list", "- delete\n", ":1:", "the file must be a mapping"},
		{"bad yaml", "synonyms:\n  delete: [remove\n", "line", "yaml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.content)
			_, err := Load(path)
			if err == nil {
				t.Fatalf("no error for %q", c.content)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, c.line) || !strings.Contains(msg, c.want) {
				t.Errorf("error %q, want %q at %s%s", msg, c.want, path, c.line)
			}
		})
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	path := writeFile(t, "synonyms:\n  delete:\n    strng: [remove]\n    2: [erase]\nextra: 1\n")
	_, err := Load(path)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{path + ":3:", path + ":4:", path + ":5:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %s", err, want)
		}
	}
}

func TestWith(t *testing.T) {
	base := Builtin()
	project, err := Parse("project.yaml", []byte(`
synonyms:
  delete:
    weak: [remove]
  rule:
    strong: [check]
ignore: [log]
`))
	if err != nil {
		t.Fatal(err)
	}
	l := base.With(project)
	if got := weightOf(l, "delete", "remove"); got != Weak {
		t.Errorf("project should override delete -> remove: %v", got)
	}
	if got := weightOf(l, "delete", "erase"); got != Strong {
		t.Errorf("builtin delete -> erase lost: %v", got)
	}
	if got := weightOf(l, "rule", "check"); got != Strong {
		t.Errorf("project extension missing: %v", got)
	}
	if len(l.Synonyms("log")) != 0 || weightOf(l, "trace", "log") != 0 {
		t.Error("ignored word still expands or is reached")
	}
	if got := weightOf(base, "delete", "remove"); got != Strong {
		t.Errorf("With changed its receiver: %v", got)
	}
	if got := weightOf(base.With(nil), "delete", "remove"); got != Strong {
		t.Errorf("With(nil) lost entries: %v", got)
	}
}

func TestWithPairs(t *testing.T) {
	base := Builtin()
	l := base.WithPairs([]Pair{
		{A: "Rules", B: "profile", Weight: 1},
		{A: "quality", B: "gate", Weight: 0.5},
		{A: "delete", B: "remove", Weight: 0.1}, // curated: kept
		{A: "same", B: "same", Weight: 1},
		{A: "two words", B: "x", Weight: 1},
		{A: "fine", B: "nonpositive", Weight: 0},
	})
	cases := []struct {
		from, to string
		want     float64
	}{
		{"rule", "profile", Moderate},
		{"profile", "rule", Moderate},
		{"quality", "gate", Weak + (Moderate-Weak)*0.5},
		{"delete", "remove", Strong},
		{"fine", "nonpositive", 0},
	}
	for _, c := range cases {
		if got := weightOf(l, c.from, c.to); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s -> %s = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	if len(l.Synonyms("same")) != 0 {
		t.Error("a word related to itself")
	}
	if weightOf(base, "rule", "profile") != 0 {
		t.Error("WithPairs changed its receiver")
	}
}

func TestBuiltinParses(t *testing.T) {
	if _, err := Parse("builtin.yaml", builtinYAML); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkParseBuiltin(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("builtin.yaml", builtinYAML); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSynonyms(b *testing.B) {
	l := Builtin()
	for b.Loop() {
		l.Synonyms("config")
	}
}

func TestInsideFindsWordsInARunOfChinese(t *testing.T) {
	got := Builtin().Inside("反序列化配置文件失败")
	want := []string{"反序列化", "配置", "文件"}
	if !slices.Equal(got, want) {
		t.Errorf("Inside = %q, want %q", got, want)
	}
	if Builtin().Inside("deserialize") != nil {
		t.Error("words of a spaced language found inside")
	}
}
