package query

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/lexicon"
)

func anchorTexts(a *Analysis) []string {
	var out []string
	for _, an := range a.Anchors {
		out = append(out, an.Text)
	}
	return out
}

func TestTemplateAnswersAndEnvironmentAreSetAside(t *testing.T) {
	text := "Export drops the archive's checksum\n\n" +
		"### Describe the bug\n\nThe exported archive has no checksum file since the last release.\n\n" +
		"### Version\n\n2.31.0\n\n### Installation method\n\nHomebrew\n\n" +
		"**Operating system**: macOS 14.2\n\n" +
		"### System Details\n\n```\nSystem:\n  OS: macOS 14.2\n  CPU: (8) arm64 Apple M1\nBinaries:\n  Node: 18.17.0 - /usr/local/bin/node\n  npm: 9.6.7 - /usr/local/bin/npm\n```\n\n" +
		"requests==2.31.0\nurllib3==2.0.4\ncertifi==2023.7.22\n\n" +
		"![Screenshot 2024-01-02](https://example.com/shot.png)\n"
	a := Analyze(text, lexicon.Builtin())
	want := SetAside{TemplateAnswers: 3, EnvironmentBlocks: 2, Images: 1}
	if a.SetAside != want {
		t.Errorf("set aside %+v, want %+v", a.SetAside, want)
	}
	if got := a.SetAside.Note(); got != "3 template answers, 2 environment blocks and 1 image ignored" {
		t.Errorf("note %q", got)
	}
	terms := termMap(a.Terms)
	for _, w := range []string{"homebrew", "macos", "node", "npm", "request", "urllib3", "screenshot", "cpu"} {
		if _, ok := terms[w]; ok {
			t.Errorf("term %q from a part set aside", w)
		}
	}
	for _, w := range []string{"checksum", "archive", "export"} {
		if _, ok := terms[w]; !ok {
			t.Errorf("term %q of the reporter's words missing", w)
		}
	}
	if strings.Contains(a.Kept, "Homebrew") || strings.Contains(a.Kept, "example.com") || !strings.Contains(a.Kept, "checksum") {
		t.Errorf("kept text %q", a.Kept)
	}
}

// How the reporter installed the tool, in a block or a line of its own, is set aside; a command that
// runs the tool is the reporter's evidence and stays.
func TestInstallCommandsAreSetAside(t *testing.T) {
	text := "Search skips hidden folders\n\n### How did you install it?\n\n```\n$ brew install ripgrep\n```\n\n" +
		"sudo apt-get install ripgrep\n\n### Steps\n\n```\nrg --hidden needle\n```\n"
	a := Analyze(text, lexicon.Builtin())
	if a.SetAside.EnvironmentBlocks != 2 {
		t.Errorf("set aside %+v, want 2 environment blocks", a.SetAside)
	}
	terms := termMap(a.Terms)
	for _, w := range []string{"brew", "apt"} {
		if _, ok := terms[w]; ok {
			t.Errorf("term %q from an install command", w)
		}
	}
	for _, w := range []string{"hidden", "search"} {
		if _, ok := terms[w]; !ok {
			t.Errorf("term %q of the reporter's words missing", w)
		}
	}
	for s, want := range map[string]bool{"go install ./...": true, "pip install -e .": true, "rg --hidden needle": false, "cargo build": false} {
		if got := installShape([]line{{raw: s}}); got != want {
			t.Errorf("installShape(%q) = %v", s, got)
		}
	}
}

// A sentence under a heading is the reporter's answer, not a template's value.
func TestALongAnswerIsKept(t *testing.T) {
	a := Analyze("### Describe the bug\n\nThe exporter crashes on archives with a checksum\n\n### Steps\n\nRun export twice\n", nil)
	if a.SetAside != (SetAside{}) {
		t.Errorf("set aside %+v", a.SetAside)
	}
	if _, ok := termMap(a.Terms)["twice"]; !ok {
		t.Errorf("terms %+v", a.Terms)
	}
}

func TestAQuotedDiffGivesTheFunctionsItTouches(t *testing.T) {
	text := "This change fixes it:\n\n```\n--- a/pkg/a/view/view.go\n+++ b/pkg/a/view/view.go\n" +
		"@@ -10,6 +10,8 @@ func (v *View) render(w io.Writer) error {\n \tx := 1\n-\toldHelper(x)\n+\tnewHelper(x)\n```\n" +
		"\n```diff\n@@ -3,4 +3,4 @@ def save_all(items):\n-    flush_items(items)\n```\n"
	a := Analyze(text, nil)
	got := anchorTexts(a)
	for _, w := range []string{"render", "pkg/a/view/view.go", "oldHelper", "newHelper", "save_all", "flush_items"} {
		if !slices.Contains(got, w) {
			t.Errorf("anchor %q missing from %q", w, got)
		}
	}
}

// A text in Chinese: the names in it drive the ranking, and its technical words reach the English the
// code uses.
func TestChineseTextGivesNamesAndEnglishTerms(t *testing.T) {
	a := Analyze("调用TokenValidator校验令牌时抛出异常，解析配置文件失败", lexicon.Builtin())
	if got := anchorTexts(a); !slices.Contains(got, "TokenValidator") {
		t.Errorf("anchors %q", got)
	}
	terms := termMap(a.Terms)
	for _, w := range []string{"validate", "token", "exception", "parse", "config", "file"} {
		if terms[w].Source != "query" {
			t.Errorf("term %q: %+v; terms %+v", w, terms[w], a.Terms)
		}
	}
}
