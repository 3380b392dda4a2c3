package query

import (
	"reflect"
	"testing"
)

func anchorsOf(text string) []Anchor { return analyze(text, nil).Anchors }

func TestAnchorKinds(t *testing.T) {
	cases := []struct {
		name, text string
		want       []Anchor
	}{
		{"backtick", "Rename `quality_gate` and `RuleIndex.search()` please",
			[]Anchor{{Text: "quality_gate", Kind: KindBacktick}, {Text: "RuleIndex.search", Kind: KindBacktick}}},
		{"backtick macro and generic", "The `tokio::select!` macro and `Vec<u8>`",
			[]Anchor{{Text: "tokio::select", Kind: KindBacktick}, {Text: "Vec", Kind: KindBacktick}}},
		{"backtick flag", "Search ignores `--max-count` here",
			[]Anchor{{Text: "--max-count", Kind: KindFlag}}},
		{"camel", "The RuleIndex is rebuilt and getName returns HTTPServer values",
			[]Anchor{{Text: "RuleIndex", Kind: KindCamel}, {Text: "getName", Kind: KindCamel}, {Text: "HTTPServer", Kind: KindCamel}}},
		{"snake and screaming", "Setting langs_count breaks CANONICALIZE_FIELD_NAMES and __init__",
			[]Anchor{{Text: "langs_count", Kind: KindSnake}, {Text: "CANONICALIZE_FIELD_NAMES", Kind: KindSnake}, {Text: "__init__", Kind: KindSnake}}},
		{"dotted", "It calls os.path.join via Feature.ALLOW_TRAILING_COMMA and std::vector.",
			[]Anchor{{Text: "os.path.join", Kind: KindDotted}, {Text: "Feature.ALLOW_TRAILING_COMMA", Kind: KindDotted}, {Text: "std::vector", Kind: KindDotted}}},
		{"call", "Calling humanize() after dayjs.duration(5) is wrong",
			[]Anchor{{Text: "humanize", Kind: KindCall}, {Text: "dayjs.duration", Kind: KindCall}}},
		{"path", "See src/rule/RuleIndex.java, ./scripts/run and settings.py",
			[]Anchor{{Text: "src/rule/RuleIndex.java", Kind: KindPath, Path: "src/rule/RuleIndex.java"},
				{Text: "./scripts/run", Kind: KindPath, Path: "./scripts/run"},
				{Text: "settings.py", Kind: KindPath, Path: "settings.py"}}},
		{"file line", "Fails at pkg/cache/lru.go:57 and src/x.rs:12:5.",
			[]Anchor{{Text: "pkg/cache/lru.go:57", Kind: KindFileLine, Path: "pkg/cache/lru.go", Line: 57},
				{Text: "src/x.rs:12:5", Kind: KindFileLine, Path: "src/x.rs", Line: 12}}},
		{"repository link", "The bug is in https://github.com/acme/shop/blob/main/cart/cart.go#L42 I think",
			[]Anchor{{Text: "cart/cart.go:42", Kind: KindFileLine, Path: "cart/cart.go", Line: 42}}},
		{"code block", "Repro:\n```python\nclass MyAdapter(HTTPAdapter):\n    def build_response(self, req):\n        return self._build(req)\n```\n",
			[]Anchor{{Text: "MyAdapter", Kind: KindCode}, {Text: "HTTPAdapter", Kind: KindCode}, {Text: "build_response", Kind: KindCode}, {Text: "self._build", Kind: KindCode}}},
		{"flags and macros", "Passing -Q or --max-count=3 to ensure_len! fails; `vec_of!` too; a != b, it works!",
			[]Anchor{{Text: "-Q", Kind: KindFlag}, {Text: "--max-count", Kind: KindFlag}, {Text: "ensure_len", Kind: KindMacro},
				{Text: "vec_of", Kind: KindMacro}, {Text: "works", Kind: KindMacro}}},
		{"go package paths", "`example.com/app/pkg/a/view.run` and github.com/x/y/z.Run fail; example.com/app/view.go is a file",
			[]Anchor{{Text: "example.com/app/pkg/a/view.run", Kind: KindBacktick}, {Text: "github.com/x/y/z.Run", Kind: KindDotted},
				{Text: "example.com/app/view.go", Kind: KindPath, Path: "example.com/app/view.go"}}},
		{"code block keeps file lines", "```\nerror: src/lib.rs:10:3: expected `;`\n```\n",
			[]Anchor{{Text: "src/lib.rs:10:3", Kind: KindFileLine, Path: "src/lib.rs", Line: 10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := anchorsOf(c.text); !reflect.DeepEqual(got, c.want) {
				t.Errorf("anchors of %q:\n got %+v\nwant %+v", c.text, got, c.want)
			}
		})
	}
}

// Words and shapes that are not names.
func TestAnchorRejects(t *testing.T) {
	texts := []string{
		"The Parser Is Broken. Bulgarian And Spanish Users Complain.",
		"Read https://example.com/docs/RuleIndex.html and mail jane.doe@example.com",
		"Upgrading from v1.2.3 to 2.9.0.pr2 (or 3.8+) on Python 3.10.0b2",
		"Use e.g. this, i.e. that, etc. on github.com and docs.python.org",
		"Send and/or receive; stars/other stats; input/output",
		"It _works_ for some files, _No response_",
		"Check the file(s) and match(es) again",
		"Works on GitHub with JavaScript, TypeScript, macOS and iOS, URLs and APIs",
		"Dates like YYYY/MM/DD and zones like America/New_York",
		"Products node.js and Day.js, a range 3 -- 5 and a number -12",
	}
	for _, text := range texts {
		if got := anchorsOf(text); len(got) != 0 {
			t.Errorf("anchors of %q: %+v, want none", text, got)
		}
	}
}

func TestAnchorDedupKeepsFirstPositionAndStrongestKind(t *testing.T) {
	text := "RuleIndex is slow.\n```\nidx = RuleIndex()\nother_name = 1\n```\nThe `RuleIndex` again and other_name.\n"
	want := []Anchor{{Text: "RuleIndex", Kind: KindBacktick}, {Text: "other_name", Kind: KindSnake}}
	if got := anchorsOf(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestCodeAnchorsCapped(t *testing.T) {
	text := "Log:\n```\n"
	for i := 0; i < 500; i++ {
		name := string(rune('a'+i%26)) + string(rune('a'+i/26%26))
		text += "value_" + name + " = 1 in /srv/app/" + name + "/main.py\n"
	}
	text += "```\nBut `RuleIndex` matters.\n"
	got := anchorsOf(text)
	if len(got) != maxCodeAnchors+1 || got[len(got)-1].Text != "RuleIndex" {
		t.Errorf("%d anchors, want the code cap %d and the prose one: %+v", len(got), maxCodeAnchors, got[len(got)-3:])
	}
}
