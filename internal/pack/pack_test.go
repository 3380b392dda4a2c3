package pack

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

var bugFix = Intent{Name: "bug_fix", Confidence: 0.9}

// profile of the bug-fix intent from idea 003.
var bugFixShares = map[string]float64{"definitions": 0.3, "snippets": 0.25, "imports": 0.1, "tests": 0.2, "callers": 0.15}

func assemble(t testing.TB, cands []Candidate, o Options) *Pack {
	t.Helper()
	p, err := Assemble("Fix the crash in RuleIndex when a profile has no rules\nstack trace follows", bugFix, genEntities(1), cands, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// checkPack verifies what must hold for every pack: within budget counted by the encoder itself,
// Tokens exact, sections adding up, items in rank order.
func checkPack(t *testing.T, label string, p *Pack, cands []Candidate, tok *Tokenizer) {
	t.Helper()
	n := whole(tok, p.Text)
	if n > p.Budget {
		t.Errorf("%s: text is %d tokens, budget %d", label, n, p.Budget)
	}
	if p.Tokens != n {
		t.Errorf("%s: Tokens = %d, text re-tokenized = %d", label, p.Tokens, n)
	}
	sum := 0
	for _, it := range p.Items {
		sum += it.Tokens
		if it.Tokens <= 0 || len(it.Why) == 0 || it.Path == "" {
			t.Errorf("%s: item without tokens, why or path: %+v", label, it)
		}
	}
	spent := 0
	for _, v := range p.Sections {
		spent += v
	}
	if spent != sum {
		t.Errorf("%s: sections add to %d, items to %d", label, spent, sum)
	}
	// The generator's scores fall with rank, and an item that took in others carries their best score.
	for i := 1; i < len(p.Items); i++ {
		if p.Items[i].Score > p.Items[i-1].Score {
			t.Errorf("%s: item %d (%s, score %.4f) after a lower score %.4f", label, i, p.Items[i].Path,
				p.Items[i].Score, p.Items[i-1].Score)
		}
	}
	// The text shows each file's code as one block, under one heading.
	if strings.HasPrefix(p.Text, "# Context") {
		for path := range maps.Keys(uniquePaths(p.Items)) {
			if n := strings.Count(p.Text, "### "+path+":"); n > 1 {
				t.Errorf("%s: %s has %d blocks", label, path, n)
			}
		}
	}
}

// uniquePaths are the paths of the items that show code with its place.
func uniquePaths(items []Item) map[string]bool {
	out := map[string]bool{}
	for _, it := range items {
		if it.Kind != "outline" && it.StartLine > 0 {
			out[it.Path] = true
		}
	}
	return out
}

func TestNeverOverBudget(t *testing.T) {
	budgets := []int{100, 200, 500, 2000, 8000, 32000}
	for _, tokName := range []string{"o200k_base", "cl100k_base"} {
		tok := tokenizer(t, tokName)
		for seed := uint64(1); seed <= 6; seed++ {
			cands := genCandidates(seed, 20+int(seed)*30)
			for _, budget := range budgets {
				for _, format := range []string{"markdown", "xml"} {
					p := assemble(t, cands, Options{Budget: budget, Tokenizer: tok, Format: format, Shares: bugFixShares})
					label := fmt.Sprintf("%s seed %d budget %d %s", tokName, seed, budget, format)
					checkPack(t, label, p, cands, tok)
					if budget >= 500 && len(p.Items) == 0 {
						t.Errorf("%s: no items", label)
					}
					// Plenty of candidates: the budget is used, not left idle.
					if budget >= 2000 && budget <= 8000 && p.Tokens < budget*8/10 {
						t.Errorf("%s: used %d of %d tokens", label, p.Tokens, budget)
					}
				}
			}
		}
	}
}

func TestRedistribution(t *testing.T) {
	tok := tokenizer(t, "")
	var cands []Candidate
	for _, c := range genCandidates(5, 240) {
		if c.Kind != "test" {
			c.Bucket = bucketOfKind[c.Kind]
			cands = append(cands, c)
		}
	}
	// Test writing from idea 003: 40% for tests, and there are none.
	shares := map[string]float64{"definitions": 0.4, "snippets": 0.15, "imports": 0.05, "tests": 0.4}
	for _, budget := range []int{2000, 8000} {
		p := assemble(t, cands, Options{Budget: budget, Tokenizer: tok, Shares: shares})
		checkPack(t, "redistribution", p, cands, tok)
		if p.Tokens < budget*9/10 {
			t.Errorf("budget %d: only %d tokens used with 40%% of the budget idle", budget, p.Tokens)
		}
		if p.Sections["tests"] != 0 {
			t.Errorf("tests section %d without test candidates", p.Sections["tests"])
		}
		others := p.Sections["definitions"] + p.Sections["snippets"] + p.Sections["imports"] + p.Sections["callers"]
		if others <= int(0.6*float64(budget)) {
			t.Errorf("budget %d: the other buckets spent %d, no more than their own 60%%", budget, others)
		}
	}
}

// bigType has a long body, a short outline and a one-line card.
func bigType(lines int) Candidate {
	body := []string{"// Registry holds every rule by key.", "type Registry struct {"}
	for i := 0; len(body) < lines-1; i++ {
		body = append(body, fmt.Sprintf("\truleNumber%d map[string]*RuleDefinition // rules loaded from profile %d", i, i))
	}
	body = append(body, "}")
	return Candidate{
		Kind: "definition", Bucket: "definitions", Path: "rules/registry.go", Symbol: "Registry", Language: "go",
		StartLine: 10, EndLine: 10 + lines - 1, Why: []string{"exact identifier `Registry`"},
		Compact:  "// Registry holds every rule by key.\ntype Registry struct",
		Standard: strings.Join(body[:min(len(body), 40)], "\n"),
		Full:     strings.Join(body, "\n"),
	}
}

func TestSizeFallback(t *testing.T) {
	tok := tokenizer(t, "")
	c := bigType(200)
	fullTokens := tok.Count(c.Full)
	cases := []struct {
		budget int
		size   string
	}{
		{fullTokens * 2, sizeFull},
		{fullTokens * 3 / 4, sizeTruncated},
		{fullTokens / 4, sizeStandard},
		{110, sizeCompact},
	}
	for _, cs := range cases {
		p := assemble(t, []Candidate{c}, Options{Budget: cs.budget, Tokenizer: tok, Shares: map[string]float64{"definitions": 1}})
		checkPack(t, cs.size, p, []Candidate{c}, tok)
		if len(p.Items) != 1 {
			t.Fatalf("budget %d: %d items", cs.budget, len(p.Items))
		}
		if got := p.Items[0].Size; got != cs.size {
			t.Errorf("budget %d: size %s, want %s", cs.budget, got, cs.size)
		}
		if !strings.Contains(p.Text, "type Registry struct") {
			t.Errorf("budget %d (%s): the signature is missing", cs.budget, cs.size)
		}
		if cs.size == sizeTruncated {
			if !strings.Contains(p.Text, "more lines)") || strings.Contains(p.Text, "ruleNumber197") {
				t.Errorf("a cut body must end with the marker and leave the tail out")
			}
		}
	}
	// A function has no outline: between full and card comes the cut body.
	fn := c
	fn.Standard = ""
	fn.Compact = "// Registry holds every rule by key.\ntype Registry struct {"
	p := assemble(t, []Candidate{fn}, Options{Budget: fullTokens / 4, Tokenizer: tok, Shares: map[string]float64{"definitions": 1}})
	if len(p.Items) != 1 || p.Items[0].Size != sizeTruncated {
		t.Fatalf("function at a quarter of its size: %+v", p.Items)
	}
	if n := strings.Count(p.Text, "ruleNumber"); n < 10 {
		t.Errorf("the cut kept only %d body lines of a quarter budget", n)
	}
}

func TestTopDefinitionsGetBodies(t *testing.T) {
	tok := tokenizer(t, "")
	cands := []Candidate{bigType(60)}
	for i := 0; i < 30; i++ {
		c := bigType(60)
		c.Path = fmt.Sprintf("rules/other%d.go", i)
		c.Symbol = fmt.Sprintf("Other%d", i)
		cands = append(cands, c)
	}
	p := assemble(t, cands, Options{Budget: 4000, Tokenizer: tok})
	checkPack(t, "top", p, cands, tok)
	if p.Items[0].Path != "rules/registry.go" || p.Items[0].Size != sizeFull {
		t.Errorf("the top definition is %s at %s, want its full body", p.Items[0].Path, p.Items[0].Size)
	}
	cards := 0
	for _, it := range p.Items {
		if it.Size == sizeCompact || it.Size == sizeStandard {
			cards++
		}
	}
	if cards == 0 || len(p.Items) < 10 {
		t.Errorf("expected many lower-ranked items as cards, got %d items, %d cards", len(p.Items), cards)
	}
}

func lines(path string, from, to int, prefix string) Candidate {
	var body []string
	for i := from; i <= to; i++ {
		body = append(body, fmt.Sprintf("%s_line_%d()", prefix, i))
	}
	return Candidate{Kind: "snippet", Path: path, Language: "go", StartLine: from, EndLine: to,
		Why: []string{prefix}, Compact: body[0], Full: strings.Join(body, "\n")}
}

func TestDedupe(t *testing.T) {
	tok := tokenizer(t, "")
	opts := Options{Budget: 4000, Tokenizer: tok}
	t.Run("same range", func(t *testing.T) {
		cands := []Candidate{lines("a.go", 10, 20, "first"), lines("a.go", 10, 20, "again")}
		p := assemble(t, cands, opts)
		if len(p.Items) != 1 || strings.Count(p.Text, "_line_15()") != 1 {
			t.Errorf("a repeated range was shown twice: %+v", p.Items)
		}
	})
	t.Run("inside a body", func(t *testing.T) {
		cands := []Candidate{lines("a.go", 10, 40, "def"), lines("a.go", 15, 20, "snippet"), lines("b.go", 15, 20, "other")}
		p := assemble(t, cands, opts)
		if len(p.Items) != 2 || strings.Count(p.Text, "_line_17()") != 2 {
			t.Errorf("a snippet inside a shown body was shown again: %+v", p.Items)
		}
	})
	t.Run("bigger replaces", func(t *testing.T) {
		cands := []Candidate{lines("a.go", 15, 20, "frame"), lines("a.go", 10, 40, "enclosing")}
		p := assemble(t, cands, opts)
		if len(p.Items) != 1 {
			t.Fatalf("want the enclosing body only, got %+v", p.Items)
		}
		it := p.Items[0]
		if it.StartLine != 10 || it.EndLine != 40 || !reflect.DeepEqual(it.Why, []string{"frame", "enclosing"}) {
			t.Errorf("bigger item %+v: want lines 10-40 with both reasons, the better-ranked first", it)
		}
		if strings.Count(p.Text, "_line_17()") != 1 {
			t.Error("line 17 not shown exactly once")
		}
	})
	t.Run("overlap merges", func(t *testing.T) {
		cands := []Candidate{lines("a.go", 10, 30, "one"), lines("a.go", 25, 50, "two")}
		p := assemble(t, cands, opts)
		checkPack(t, "merge", p, cands, tok)
		if len(p.Items) != 1 {
			t.Fatalf("want one merged item, got %+v", p.Items)
		}
		it := p.Items[0]
		if it.StartLine != 10 || it.EndLine != 50 || it.Size != sizeFull {
			t.Errorf("merged item %+v: want lines 10-50 in full", it)
		}
		for _, l := range []int{10, 27, 50} {
			if n := strings.Count(p.Text, fmt.Sprintf("_line_%d()", l)); n != 1 {
				t.Errorf("line %d shown %d times", l, n)
			}
		}
		if !strings.Contains(p.Text, "one_line_27()") {
			t.Error("where both have a line, the better-ranked text must win")
		}
	})
	t.Run("cards of a type and its method", func(t *testing.T) {
		typ := bigType(300) // a class whose range holds the method
		typ.Path = "a.go"
		typ.StartLine, typ.EndLine = 1, 300
		method := lines("a.go", 100, 110, "method")
		p := assemble(t, []Candidate{typ, method}, Options{Budget: 1500, Tokenizer: tok})
		if len(p.Items) != 2 {
			t.Errorf("a type's outline and a method inside it are both wanted: %+v", p.Items)
		}
	})
}

func TestDeterministic(t *testing.T) {
	tok := tokenizer(t, "")
	cands := genCandidates(9, 150)
	for _, format := range []string{"markdown", "xml", "json"} {
		o := Options{Budget: 6000, Tokenizer: tok, Format: format, Shares: bugFixShares}
		first := assemble(t, cands, o)
		want, _ := json.Marshal(first)
		var wg sync.WaitGroup
		got := make([][]byte, 6)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				copied := append([]Candidate(nil), cands...)
				p, err := Assemble("Fix the crash in RuleIndex when a profile has no rules\nstack trace follows", bugFix, genEntities(1), copied, o)
				if err != nil {
					t.Error(err)
					return
				}
				got[i], _ = json.Marshal(p)
			}()
		}
		wg.Wait()
		for i, g := range got {
			if string(g) != string(want) {
				t.Errorf("%s: run %d differs from the first", format, i)
			}
		}
	}
}

func TestBadOptions(t *testing.T) {
	cands := genCandidates(2, 5)
	for name, o := range map[string]Options{
		"budget below minimum":  {Budget: 99},
		"negative budget":       {Budget: -5},
		"unknown format":        {Format: "html"},
		"unmade tokenizer":      {Tokenizer: &Tokenizer{}},
		"unknown bucket":        {Shares: map[string]float64{"docs": 0.5}},
		"negative share":        {Shares: map[string]float64{"tests": -0.1}},
		"NaN share":             {Shares: map[string]float64{"tests": math.NaN()}},
		"shares over the whole": {Shares: map[string]float64{"tests": 0.7, "definitions": 0.7}},
	} {
		if p, err := Assemble("q", bugFix, nil, cands, o); err == nil {
			t.Errorf("%s: no error (pack of %d tokens)", name, p.Tokens)
		}
	}
	p, err := Assemble("q", bugFix, nil, cands, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Budget != DefaultBudget || p.Tokenizer != DefaultTokenizer {
		t.Errorf("defaults: budget %d, tokenizer %q", p.Budget, p.Tokenizer)
	}
}

// Candidates a ranker should not send cost themselves, not the pack.
func TestBadCandidatesSurvive(t *testing.T) {
	tok := tokenizer(t, "")
	good := lines("ok.go", 1, 5, "good")
	cands := []Candidate{
		{Kind: "definition", Path: "", Compact: "func NoPath()"},
		{Kind: "definition", Path: "empty.go"},
		{Kind: "file", Path: "empty.go", StartLine: 1, EndLine: 0, Compact: "package empty"},
		{Kind: "mystery", Bucket: "nowhere", Path: "odd.go", StartLine: -3, EndLine: 2, Score: math.NaN(), Compact: "x := 1"},
		good,
	}
	p, err := Assemble("q", Intent{Name: "bug_fix", Confidence: math.Inf(1)}, []Entity{{Name: "E", Importance: math.NaN()}}, cands, Options{Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(p); err != nil {
		t.Errorf("the pack does not marshal: %v", err)
	}
	paths := map[string]bool{}
	for _, it := range p.Items {
		paths[it.Path] = true
	}
	if !paths["ok.go"] || !paths["odd.go"] || !paths["empty.go"] || len(p.Items) != 3 {
		t.Errorf("items %+v: want ok.go, odd.go and the empty file, not the pathless or textless ones", p.Items)
	}
}

func TestEmptyPack(t *testing.T) {
	tok := tokenizer(t, "")
	for _, format := range []string{"markdown", "xml"} {
		p, err := Assemble("", Intent{}, nil, nil, Options{Budget: 100, Tokenizer: tok, Format: format})
		if err != nil {
			t.Fatal(err)
		}
		if p.Tokens > 100 || p.Text == "" || p.Items == nil || p.Entities == nil {
			t.Errorf("%s: empty pack %+v", format, p)
		}
	}
	long := strings.Repeat("お誕生日おめでとう with `RuleIndex` ", 200)
	var ents []Entity
	for i := 0; i < 30; i++ {
		ents = append(ents, Entity{Name: strings.Repeat("LONG_ENTITY_NAME_", 20), Files: []string{strings.Repeat("deep/", 60) + "x.go"}})
	}
	p, err := Assemble(long, Intent{Name: strings.Repeat("intent", 50), Confidence: 1}, ents, genCandidates(4, 50), Options{Budget: 100, Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	if n := whole(tok, p.Text); n > 100 {
		t.Errorf("a huge query and entities pushed the header to %d tokens of 100", n)
	}
}

// A spare goes in only with what is left: a better-ranked spare does not keep a lesser candidate out,
// and with room to spare it is placed too.
func TestSparesTakeWhatIsLeft(t *testing.T) {
	tok := tokenizer(t, "")
	spare := lines("weak.go", 1, 200, "spare")
	spare.Kind, spare.Bucket, spare.Spare = "snippet", "snippets", true
	spare.Compact = ""
	other := lines("other.go", 1, 200, "other")
	other.Kind, other.Bucket = "snippet", "snippets"
	other.Compact = ""
	cands := []Candidate{lines("top.go", 1, 5, "top"), spare, other}
	cands[0].Kind = "definition"
	// how a file is shown: "" when it is not
	shown := func(p *Pack, path string) string {
		i := slices.IndexFunc(p.Items, func(it Item) bool { return it.Path == path })
		if i < 0 {
			return ""
		}
		return p.Items[i].Size
	}
	one := tok.Count(other.Full)
	p := assemble(t, cands, Options{Budget: one + 400, Tokenizer: tok})
	checkPack(t, "spare", p, cands, tok)
	if shown(p, "other.go") != "full" || shown(p, "weak.go") == "full" {
		t.Errorf("room for one body: other.go shown %q, the spare %q", shown(p, "other.go"), shown(p, "weak.go"))
	}
	p = assemble(t, cands, Options{Budget: 3*one + 600, Tokenizer: tok})
	checkPack(t, "spare", p, cands, tok)
	if shown(p, "other.go") != "full" || shown(p, "weak.go") != "full" {
		t.Errorf("room for both: other.go shown %q, the spare %q", shown(p, "other.go"), shown(p, "weak.go"))
	}
}

func TestEveryFileShowsACard(t *testing.T) {
	tok := tokenizer(t, "")
	var cands []Candidate
	for i := 0; i < 20; i++ {
		c := lines(fmt.Sprintf("f%02d.go", i), 1, 80, fmt.Sprintf("def%02d", i))
		c.Kind, c.Bucket, c.Score = "definition", "definitions", 1-float64(i)/100
		cands = append(cands, c)
	}
	p := assemble(t, cands, Options{Budget: 3000, Tokenizer: tok})
	checkPack(t, "cards", p, cands, tok)
	if p.Items[0].Path != "f00.go" || p.Items[0].Size != sizeFull {
		t.Errorf("the top definition is %s at %s, want its full body", p.Items[0].Path, p.Items[0].Size)
	}
	shown := map[string]bool{}
	for _, it := range p.Items {
		shown[it.Path] = true
	}
	for _, c := range cands {
		if !shown[c.Path] {
			t.Errorf("%s is not in the pack: a card of each ranked file fits in 3,000 tokens", c.Path)
		}
	}
}

// A file name with a line break stays exact in the pack (and so in its JSON); Markdown quotes it on its
// heading's one line, XML escapes it in its attribute.
func TestPathWithLineBreakStaysExact(t *testing.T) {
	tok := tokenizer(t, "")
	const name = "roll\nback.go"
	cands := []Candidate{{Kind: "file", Path: name, Language: "go", StartLine: 1, EndLine: 4,
		Compact: "package a\n\nfunc Rollback() {}", Full: "package a\n\n// Rollback undoes an entry.\nfunc Rollback() {}"}}
	for format, want := range map[string]string{"markdown": "### \"roll\\nback.go\":", "xml": `path="roll&#10;back.go"`} {
		p := assemble(t, cands, Options{Budget: 2000, Tokenizer: tok, Format: format, Shares: bugFixShares})
		if len(p.Items) != 1 || p.Items[0].Path != name {
			t.Fatalf("%s: items %+v, want the one path %q", format, p.Items, name)
		}
		if b, _ := json.Marshal(p.Items[0]); !strings.Contains(string(b), `"path":"roll\nback.go"`) {
			t.Errorf("%s: JSON %s", format, b)
		}
		if !strings.Contains(p.Text, want) {
			t.Errorf("%s: the text lacks %q:\n%s", format, want, p.Text)
		}
	}
}
