package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// writeFiles creates files under root; content "" removes the file.
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	written := map[string]string{}
	for p, c := range files {
		if c == "" {
			os.Remove(filepath.Join(root, filepath.FromSlash(p)))
		} else {
			written[p] = c
		}
	}
	filetest.Write(t, root, written)
}

// copies adds n files to files, their paths and contents formats of their number (%[1]d), and
// returns files: the rest of a project, around the files a test is about.
func copies(files map[string]string, n int, path, content string) map[string]string {
	for i := range n {
		files[fmt.Sprintf(path, i)] = fmt.Sprintf(content, i)
	}
	return files
}

// ask resolves req against the index's configuration, as a one-shot front end does, and answers it.
func ask(ctx context.Context, ix *Index, req Request) (*Result, error) {
	resolved, err := req.Resolve(ix.Config())
	if err != nil {
		return nil, err
	}
	return ix.Context(ctx, resolved)
}

func open(t testing.TB, root, cache string) *Index {
	t.Helper()
	ix := mustOpen(t, Options{Root: root, CacheDir: cache, InMemory: cache == ""})
	mustBuild(t, ix)
	return ix
}

// mustOpen opens the index opts describe (nil Config: the defaults, not the root's file); the test
// fails if it cannot.
func mustOpen(t testing.TB, opts Options) *Index {
	t.Helper()
	if opts.Config == nil {
		opts.Config = &Config{}
	}
	ix, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// mustBuild builds ix; the test fails if it cannot.
func mustBuild(t testing.TB, ix *Index) Stats {
	t.Helper()
	st, err := ix.Build(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// built is the index, in memory, of a new workspace of these files; it is closed when the test ends.
func built(t testing.TB, files map[string]string) *Index {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	ix := open(t, root, "")
	t.Cleanup(func() { ix.Close() })
	return ix
}

// sampleRepo is a git repository of the sample, in one commit.
func sampleRepo(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, sample)
	filetest.Git(t, root, "init", "-q")
	filetest.Git(t, root, "add", ".")
	filetest.Git(t, root, "commit", "-q", "-m", "Add rule search and quality profiles")
	return root
}

// sample is a small workspace shaped like a product with rules and quality profiles.
var sample = map[string]string{
	"rule/index.go": `package rule

// RuleIndex finds rules by their descriptions.
type RuleIndex struct {
	rules []Rule
}

// Search returns the rules whose description contains the words.
func (r *RuleIndex) Search(words string) []Rule {
	if len(words) > 15 {
		return nil // TODO: long words are dropped
	}
	return r.rules
}
`,
	"rule/rule.go": `package rule

// Rule is a coding rule with a description.
type Rule struct {
	Key         string
	Description string
}

func NewRule(key string) Rule { return Rule{Key: key} }
`,
	"qualityprofile/profile.go": `package qualityprofile

import "example.com/app/rule"

// QualityProfile groups the rules that are active for a language.
type QualityProfile struct {
	Name  string
	Rules []rule.Rule
}

func (p *QualityProfile) Activate(r rule.Rule) error {
	if r.Key == "" {
		return fmt.Errorf("cannot activate a rule without a key")
	}
	p.Rules = append(p.Rules, r)
	return nil
}
`,
	"qualityprofile/export.py": `"""Export quality profiles as XML."""

class QualityProfileExporter:
    def export(self, profile):
        """Write the profile's rules."""
        return "<profile name='%s'>" % profile.name

def export_all(profiles):
    return [QualityProfileExporter().export(p) for p in profiles]
`,
	"README.md": "# Rules\n\nRules and quality profiles.\n\n## Search\n\nSearch rules by description.\n",
	"web/app.js": `// Renders the rule list.
export function renderRules(rules) {
  return rules.map(r => r.key).join(", ");
}
`,
}
