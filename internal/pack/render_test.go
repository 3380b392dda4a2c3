package pack

import (
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// source is a file of testdata/src split into lines.
type source struct {
	path  string
	lines []string
}

func readSource(t *testing.T, path string) source {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "src", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return source{path: path, lines: strings.Split(strings.TrimRight(string(b), "\n"), "\n")}
}

// span finds the lines from the first one starting with from through the next one starting with to,
// 1-based, so the tests name code by its text, not by line numbers.
func (s source) span(t *testing.T, from, to string) (int, int, string) {
	t.Helper()
	for i, l := range s.lines {
		if !strings.HasPrefix(l, from) {
			continue
		}
		for j := i; j < len(s.lines); j++ {
			if strings.HasPrefix(s.lines[j], to) {
				return i + 1, j + 1, strings.Join(s.lines[i:j+1], "\n")
			}
		}
	}
	t.Fatalf("%s: no lines from %q to %q", s.path, from, to)
	return 0, 0, ""
}

func goldenCandidates(t *testing.T) []Candidate {
	idx := readSource(t, "rules/index.go")
	tests := readSource(t, "rules/index_test.go")
	py := readSource(t, "app/analysis.py")
	var out []Candidate
	add := func(c Candidate, s source, from, to string) {
		c.Path = "rules/" + filepath.Base(s.path)
		if s.path == py.path {
			c.Path = s.path
		}
		c.StartLine, c.EndLine, c.Full = s.span(t, from, to)
		out = append(out, c)
	}
	add(Candidate{Kind: "definition", Bucket: "definitions", Symbol: "RuleIndex.Active", Language: "go", Score: 0.92,
		Why:     []string{"exact identifier `RuleIndex`", "stack frame 1", "entity RULE"},
		Compact: "// Active returns the rules a profile activates, sorted by key.\nfunc (x *RuleIndex) Active(profile string) ([]*Rule, error)",
	}, idx, "// Active returns", "}")
	add(Candidate{Kind: "definition", Bucket: "definitions", Symbol: "RuleIndex", Language: "go", Score: 0.81,
		Why:      []string{"exact identifier `RuleIndex`", "entity RULE"},
		Compact:  "// RuleIndex holds the rules of every profile by key, for lookups while an analysis runs.\ntype RuleIndex struct",
		Standard: "// RuleIndex holds the rules of every profile by key, for lookups while an analysis runs.\ntype RuleIndex struct\n    byKey map[string]*Rule\n    byProfile map[string][]string\n    loaded bool\n    func (x *RuleIndex) Active(profile string) ([]*Rule, error)",
	}, idx, "// RuleIndex holds", "}")
	add(Candidate{Kind: "snippet", Bucket: "snippets", Language: "go", Score: 0.7,
		Why:     []string{"error message \"profile %q: %w\""},
		Compact: "return nil, fmt.Errorf(\"profile %q: %w\", profile, ErrNoRules)",
	}, idx, "\tif len(keys) == 0 {", "\t}")
	add(Candidate{Kind: "test", Bucket: "tests", Symbol: "TestActiveSorted", Language: "go", Score: 0.5,
		Why:     []string{"tests `RuleIndex.Active`"},
		Compact: "func TestActiveSorted(t *testing.T)",
	}, tests, "func TestActiveSorted", "}")
	add(Candidate{Kind: "caller", Bucket: "callers", Symbol: "Analysis.run", Language: "python", Score: 0.4,
		Why:     []string{"calls `RuleIndex.Active`"},
		Compact: "def run(self, path: str) -> list:",
	}, py, "    def run", "        return issues")
	add(Candidate{Kind: "definition", Bucket: "snippets", Symbol: "Rule.Describe", Language: "go", Score: 0.35,
		Why:     []string{"entity RULE"},
		Compact: "// Describe renders a rule for the report, with `backticks` and ]]> kept verbatim.\nfunc (r *Rule) Describe() string",
	}, idx, "// Describe renders", "}")
	add(Candidate{Kind: "definition", Bucket: "definitions", Symbol: "NewRuleIndex", Language: "go", Score: 0.3,
		Why:     []string{"defines `RuleIndex`"},
		Compact: "// NewRuleIndex builds an index from the rules and the profiles that activate them.\nfunc NewRuleIndex(rules []*Rule, profiles map[string][]string) *RuleIndex",
	}, idx, "// NewRuleIndex builds", "}")
	add(Candidate{Kind: "import", Bucket: "imports", Language: "go", Score: 0.2,
		Why:     []string{"imports of a top file"},
		Compact: "errors\nfmt\nsort\nstrings",
	}, idx, "import (", ")")
	return out
}

var goldenEntities = []Entity{
	{Name: "RULE", Importance: 0.91, Files: []string{"rules/index.go", "rules/index_test.go", "app/analysis.py"}, Related: []string{"PROFILE", "ANALYSIS"}},
	{Name: "PROFILE", Importance: 0.64, Files: []string{"rules/index.go"}, Related: []string{"RULE"}},
}

const goldenQuery = "RuleIndex.Active crashes with a nil rule when a profile lists a stale key\n\npanic: runtime error: invalid memory address"

func TestGolden(t *testing.T) {
	tok := tokenizer(t, "o200k_base")
	cands := goldenCandidates(t)
	for _, format := range []string{"markdown", "xml", "json"} {
		p, err := Assemble(goldenQuery, bugFix, goldenEntities, cands, Options{Budget: 620, Tokenizer: tok, Format: format, Shares: bugFixShares})
		if err != nil {
			t.Fatal(err)
		}
		checkPack(t, format, p, cands, tok)
		got := []byte(p.Text)
		name := "pack.md"
		switch format {
		case "xml":
			name = "pack.xml"
		case "json":
			name = "pack.json"
			if got, err = json.MarshalIndent(p, "", "  "); err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
		}
		path := filepath.Join("testdata", "golden", name)
		if _, differs := filetest.Golden(t, path, got, *update); differs {
			t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", format, path, got)
		}
	}
}

// The golden pack shows what the ranking asked for: the snippet inside Active is not repeated, the
// top definition is whole, and code with fences and "]]>" survives both formats.
func TestGoldenContent(t *testing.T) {
	tok := tokenizer(t, "")
	cands := goldenCandidates(t)
	p, err := Assemble(goldenQuery, bugFix, goldenEntities, cands, Options{Budget: 900, Tokenizer: tok, Shares: bugFixShares})
	if err != nil {
		t.Fatal(err)
	}
	// the top file comes first, as one block in line order: its imports, then its definitions
	if i := slices.IndexFunc(p.Items, func(it Item) bool { return it.Symbol == "RuleIndex.Active" }); i < 0 || p.Items[i].Size != sizeFull {
		t.Errorf("RuleIndex.Active not in full: %+v", p.Items)
	}
	if p.Items[0].Path != "rules/index.go" || strings.Count(p.Text, "### rules/index.go") != 1 {
		t.Errorf("the top file is not one block, first: %+v", p.Items[0])
	}
	for _, it := range p.Items {
		if it.Kind == "snippet" {
			t.Errorf("the snippet inside Active's body was shown again: %+v", it)
		}
	}
	if n := strings.Count(p.Text, "ErrNoRules)"); n != 1 {
		t.Errorf("the error line appears %d times", n)
	}
	if !strings.HasPrefix(p.Text, "# Context: RuleIndex.Active crashes with a nil") || strings.Contains(p.Text, "panic:") {
		t.Errorf("the title must be the query's first line only:\n%s", p.Text[:200])
	}
	for _, want := range []string{"- intent: bug_fix (0.90)", fmt.Sprintf("- pack: %d of 900 tokens (o200k_base): definitions ", p.Tokens)} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("header lacks %q", want)
		}
	}
	head, _, _ := strings.Cut(p.Text, "\n### ")
	if n := tok.Count(head + "\n"); float64(n) > maxHeaderShare*float64(p.Tokens) {
		t.Errorf("the header takes %d of the pack's %d tokens", n, p.Tokens)
	}
	if got := tok.Count(p.Text); got != p.Tokens {
		t.Errorf("the pack says %d tokens and holds %d", p.Tokens, got)
	}
	if strings.Contains(p.Text, "Describe") && !strings.Contains(p.Text, "````go\n") {
		t.Error("code with a ``` run needs a longer fence")
	}
}

// The XML pack parses, its sections follow the buckets, and CDATA gives back the code byte for byte.
func TestXMLWellFormed(t *testing.T) {
	tok := tokenizer(t, "")
	cands := goldenCandidates(t)
	cands = append(cands, Candidate{Kind: "snippet", Path: "odd/control.go", StartLine: 1, EndLine: 2, Why: []string{`quotes " & <tags>`},
		Full: "s := \"\x01bell\" // a control character XML forbids\nend := \"]]>]]>\""})
	for _, seed := range []uint64{1, 2} {
		cands = append(cands, genCandidates(seed, 40)...)
	}
	p, err := Assemble(goldenQuery+" <&>", bugFix, goldenEntities, cands, Options{Budget: 12000, Tokenizer: tok, Format: "xml"})
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]string{}
	for _, c := range cands {
		full[c.Path+"#"+c.Symbol+"#"+lineRange(c.StartLine, c.EndLine, "")] = strings.TrimRight(c.Full, "\n")
	}
	type item struct {
		Kind  string `xml:"kind,attr"`
		Path  string `xml:"path,attr"`
		Lines string `xml:"lines,attr"`
		Sym   string `xml:"symbol,attr"`
		Size  string `xml:"size,attr"`
		Why   string `xml:"why,attr"`
		Code  string `xml:",chardata"`
	}
	dec := xml.NewDecoder(strings.NewReader(p.Text))
	var sections []string
	items, compared, depth := 0, 0, 0
	for {
		tk, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the XML pack does not parse: %v\n%s", err, p.Text)
		}
		switch e := tk.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 && e.Name.Local != "query" && e.Name.Local != "intent" && e.Name.Local != "entities" && e.Name.Local != "budget" && e.Name.Local != "omitted" {
				sections = append(sections, e.Name.Local)
			}
			if e.Name.Local == "item" {
				var it item
				if err := dec.DecodeElement(&it, &e); err != nil {
					t.Fatal(err)
				}
				depth--
				items++
				want, ok := full[it.Path+"#"+it.Sym+"#"+it.Lines]
				if ok && it.Size == sizeFull && !strings.Contains(want, "\x01") {
					compared++
					if got := strings.TrimSuffix(strings.TrimPrefix(it.Code, "\n"), "\n"); got != want {
						t.Errorf("CDATA of %s changed the code:\n%q\nwant\n%q", it.Path, got, want)
					}
				}
				if it.Path == "odd/control.go" && !strings.Contains(it.Code, "\uFFFDbell") {
					t.Errorf("a forbidden control character must become U+FFFD: %q", it.Code)
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	if items != len(p.Items) || compared < 5 {
		t.Errorf("parsed %d items (pack has %d), compared %d bodies", items, len(p.Items), compared)
	}
	order := map[string]int{}
	for i, b := range buckets {
		order[xmlSection[b]] = i
	}
	for i := 1; i < len(sections); i++ {
		if order[sections[i]] <= order[sections[i-1]] {
			t.Errorf("sections out of order: %v", sections)
		}
	}
}

func TestMarkdownFence(t *testing.T) {
	for code, want := range map[string]string{
		"plain":               "```",
		"a `tick`":            "```",
		"```go\nx\n```":       "````",
		"x := \"`````\" // 5": "``````",
	} {
		if got := fence(code); got != want {
			t.Errorf("fence(%q) = %q, want %q", code, got, want)
		}
	}
}

// A pack made from part of the workspace says so in its header, in both formats and in its JSON,
// and stays within its budget.
func TestPartialHeader(t *testing.T) {
	tok := tokenizer(t, "")
	partial := &Partial{Files: 240, Total: 38420, Built: 0.35}
	for format, want := range map[string]string{
		"markdown": "- partial: from 240 of 38,420 files; the index is 35% built\n",
		"xml":      `<partial files="240" total="38420" built="0.35"/>`,
	} {
		p, err := Assemble(goldenQuery, bugFix, goldenEntities, goldenCandidates(t), Options{Budget: 900, Tokenizer: tok, Shares: bugFixShares, Format: format, Partial: partial})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Text, want) || p.Tokens > 900 || tok.Count(p.Text) != p.Tokens {
			t.Errorf("%s: %d tokens, counted %d; want %q in:\n%s", format, p.Tokens, tok.Count(p.Text), want, p.Text)
		}
		b, _ := json.Marshal(p)
		if !strings.Contains(string(b), `"partial":{"files":240,"total":38420,"built":0.35}`) {
			t.Errorf("%s: the JSON does not say the pack is partial", format)
		}
	}
	whole, err := Assemble(goldenQuery, bugFix, goldenEntities, goldenCandidates(t), Options{Budget: 900, Tokenizer: tok, Shares: bugFixShares})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(whole); strings.Contains(whole.Text, "partial") || strings.Contains(string(b), `"partial"`) {
		t.Error("a whole pack says it is partial")
	}
}
