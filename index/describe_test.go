package index

import (
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/records"
)

// Hover shows the word's own definition first, and an entity only where it is specific: NAME, held by
// most files of a workspace, is not shown for HeadRefName; GIST, a concept of the project, is.
func TestHoverShowsTheDefinitionFirstAndOnlySpecificEntities(t *testing.T) {
	files := map[string]string{
		"pr/ref.go":     "package pr\n\n// HeadRefName is the branch a pull request comes from.\nfunc HeadRefName(name string) string { return name }\n",
		"gist/gist.go":  "package gist\n\n// Gist is a shared snippet.\ntype Gist struct{ Name string }\n\n// PublishGist shares a gist.\nfunc PublishGist(g Gist) error { return nil }\n",
		"gist/clone.go": "package gist\n\n// CloneGist copies a gist.\nfunc CloneGist(g Gist) Gist { return g }\n",
	}
	ix := built(t, copies(files, 60, "cmd/c%d/c.go", "package c%[1]d\n\n// SetName names command %[1]d.\nfunc SetName%[1]d(name string) string { return name }\n"))
	s := ix.Snapshot()
	md := s.Describe("HeadRefName")
	if !strings.HasPrefix(md, "**`HeadRefName`** function") || strings.Contains(md, "**NAME**") {
		t.Errorf("hover on HeadRefName:\n%s", md)
	}
	md = s.Describe("PublishGist")
	def, ent := strings.Index(md, "**`PublishGist`**"), strings.Index(md, "**GIST**")
	if def != 0 || ent < 0 {
		t.Errorf("hover on PublishGist wants its definition, then GIST:\n%s", md)
	}
}

// explore lists an entity's code before its tests.
func TestExploreShowsCodeBeforeTests(t *testing.T) {
	ix := built(t, map[string]string{
		"codespace/codespace.go":      "package codespace\n\n// Codespace is a remote machine.\ntype Codespace struct{ Name string }\n\nfunc StartCodespace(c Codespace) error { return nil }\n",
		"codespace/codespace_test.go": "package codespace\n\nfunc TestStartCodespace(t *testing.T) { StartCodespace(Codespace{}); StartCodespace(Codespace{}); StartCodespace(Codespace{}) }\nfunc TestCodespaceName(t *testing.T) { _ = Codespace{Name: \"codespace\"} }\n",
	})
	ex, err := ix.Explore("CODESPACE", 10)
	if err != nil {
		t.Fatal(err)
	}
	seenTest := false
	for _, c := range ex.Chunks {
		if records.IsTest(c.Path) {
			seenTest = true
		} else if seenTest {
			t.Fatalf("code after a test: %+v", ex.Chunks)
		}
	}
	if len(ex.Chunks) == 0 || records.IsTest(ex.Chunks[0].Path) {
		t.Errorf("chunks: %+v", ex.Chunks)
	}
}
