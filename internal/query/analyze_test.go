package query

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/lexicon"
	"github.com/ctxmap/ctxmap/internal/words"
)

// readIssue is testdata/issue.md, a realistic issue.
func readIssue(t testing.TB) string { return filetest.Read(t, "testdata/issue.md") }

// A realistic issue: everything the analysis is for, in one text.
func TestAnalyzeIssue(t *testing.T) {
	a := Analyze(readIssue(t), lexicon.Builtin())
	if a.Intent.Name != BugFix || a.Intent.Confidence < traceConfidence {
		t.Errorf("intent %+v", a.Intent)
	}
	var texts []string
	for _, an := range a.Anchors {
		texts = append(texts, an.Text)
	}
	for _, want := range []string{"QualityProfileExporter.export", "_merge_inherited", "RuleKey", "RuleIndex.find_by_key",
		"ctl/profiles/exporter.py:131", "ProfileBackup.restore", "tests/profiles/test_exporter.py"} {
		if !slices.Contains(texts, want) {
			t.Errorf("anchor %q missing from %q", want, texts)
		}
	}
	if len(a.Frames) != 5 || a.Frames[0].Function != "_merge_inherited" || a.Frames[0].Line != 131 {
		t.Errorf("frames %+v", a.Frames)
	}
	if !slices.Contains(a.Errors, "python:S1192") {
		t.Errorf("errors %q", a.Errors)
	}
	terms := termMap(a.Terms)
	if terms["profile"].Source != "query" || terms["export"].Weight != titleWeight {
		t.Errorf("terms %+v", a.Terms)
	}
	if !slices.Contains(a.Identifiers, "QualityProfile") {
		t.Errorf("identifiers %v", a.Identifiers)
	}
	for _, an := range a.Anchors {
		if strings.Contains(an.Text, "example") || strings.Contains(an.Text, "community") {
			t.Errorf("anchor %q from a URL or an e-mail address", an.Text)
		}
	}
}

var plainCapitalised = regexp.MustCompile(`^[A-Z][a-z]+$`)

// checkInvariants holds for any text whatever: what the ranker may rely on.
func checkInvariants(t *testing.T, name string, a *Analysis) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s: "+format, append([]any{name}, args...)...)
	}
	if _, err := ParseIntent(a.Intent.Name); err != nil || a.Intent.Confidence < defaultConfidence || a.Intent.Confidence > 1 {
		fail("intent %+v", a.Intent)
	}
	seen := map[string]bool{}
	for _, an := range a.Anchors {
		switch {
		case seen[an.Text]:
			fail("anchor %q twice", an.Text)
		case kindRank[an.Kind] == 0:
			fail("anchor %q of kind %q", an.Text, an.Kind)
		case an.Kind != KindBacktick && an.Kind != KindCall && an.Kind != KindCode && plainCapitalised.MatchString(an.Text):
			fail("anchor %q (%s) is an English word", an.Text, an.Kind)
		case words.Stopword(strings.ToLower(an.Text)):
			fail("anchor %q (%s) is a stopword", an.Text, an.Kind)
		case (an.Kind == KindPath || an.Kind == KindFileLine) && an.Path == "",
			an.Kind == KindFileLine && an.Line <= 0:
			fail("anchor %+v without its location", an)
		case strings.Contains(an.Text, "://"):
			fail("anchor %q from a URL", an.Text)
		}
		seen[an.Text] = true
	}
	if len(a.Anchors) > maxAnchors {
		fail("%d anchors", len(a.Anchors))
	}
	for i, f := range a.Frames {
		if f.Index != i || f.Line < 0 || !slices.Contains([]string{"python", "go", "java", "javascript", "rust", "c"}, f.Language) {
			fail("frame %d: %+v", i, f)
		}
		if f.Path == "" && f.Function == "" {
			fail("empty frame %+v", f)
		}
	}
	if len(a.Errors) > maxErrors {
		fail("%d errors", len(a.Errors))
	}
	for _, e := range a.Errors {
		if e == "" || len(e) > maxErrorBytes || !utf8.ValidString(e) {
			fail("error message %q", e)
		}
	}
	words := map[string]bool{}
	for _, term := range a.Terms {
		if term.Weight <= 0 || term.Weight > titleWeight || term.Word == "" || words[term.Word] {
			fail("term %+v", term)
		}
		if term.Source != "query" && (term.Weight > 1 || !strings.HasPrefix(term.Source, "lexicon:")) {
			fail("expansion %+v", term)
		}
		words[term.Word] = true
	}
	if len(a.Identifiers) > maxIdentifiers {
		fail("%d identifiers", len(a.Identifiers))
	}
	ids := map[string]bool{}
	for _, id := range a.Identifiers {
		if id == "" || ids[id] {
			fail("identifier %q", id)
		}
		ids[id] = true
	}
}

// The real issues of the benchmark, when the file is there (it is not in CI).
func TestAnalyzeBenchIssues(t *testing.T) {
	f, err := os.Open("../../../shared/bench/dev.jsonl")
	if err != nil {
		t.Skip("benchmark issues not available:", err)
	}
	defer f.Close()
	lex := lexicon.Builtin()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		var rec struct {
			ID   string `json:"instance_id"`
			Text string `json:"problem_statement"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		checkInvariants(t, rec.ID, analyze(rec.Text, lex))
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no issues read")
	}
}

func FuzzAnalyze(f *testing.F) {
	f.Add(readIssue(f))
	f.Add("where is `RuleIndex` defined?")
	f.Add("panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/x/main.go:3 +0x1\n")
	f.Add("```\nunclosed fence ``` `a` \"b c\" 'd e' <!-- x\n")
	f.Add("\tat a.B.c(B.java:1)\nCaused by: x\n   0: f\n at :0\nFile \"\", line , in \n#1 0x0 in f :1")
	f.Add("` `` ``` https:// @@ a@b. ../ ./ / \\ :: :1: 1:2:3 (s) _x_ __ --")
	lex := lexicon.Builtin()
	f.Fuzz(func(t *testing.T, text string) {
		checkInvariants(t, "fuzz", analyze(text, lex))
	})
}

func BenchmarkAnalyze(b *testing.B) {
	text := readIssue(b)
	lex := lexicon.Builtin()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Analyze(text, lex)
	}
}

// Hostile shapes (long lines of unclosed quotes, stray backticks, endless "a:a:a"): the time per byte
// should stay that of an ordinary issue.
func BenchmarkAnalyzeHostile(b *testing.B) {
	inputs := []struct{ name, text string }{
		{"quotes", strings.Repeat(" 'x \"y", 15000)},
		{"backticks", strings.Repeat("` ``", 20000)},
		{"tags", strings.Repeat("<a ", 30000)},
		{"colons", strings.Repeat("a:", 40000)},
		{"frames", "stack backtrace:\n 0: f\n" + strings.Repeat("at x\n", 30000)},
		{"words", strings.Repeat("build the tree ", 15000)},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				Analyze(in.text, nil)
			}
		})
	}
}
