package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// README names every command a user can type and every command the language server takes, and links
// only inside the repository.
func TestReadmeNamesEveryCommand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, link := range regexp.MustCompile(`\]\(([^)]+)\)`).FindAllStringSubmatch(readme, -1) {
		target := link[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "#") {
			continue
		}
		if strings.HasPrefix(target, "../") || strings.HasPrefix(target, "/") {
			t.Errorf("README links outside the repository: %s", target)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", strings.SplitN(target, "#", 2)[0])); err != nil {
			t.Errorf("README links to a missing file: %s", target)
		}
	}
	for _, c := range (&env{}).command().Commands() {
		if !c.Hidden && c.Name() != "help" && !strings.Contains(readme, "ctxmap "+c.Name()) {
			t.Errorf("README does not name ctxmap %s", c.Name())
		}
	}
	for _, cmd := range []string{"ctxmap.context", "ctxmap.exploreEntity", "ctxmap.entities", "ctxmap.entityMap", "ctxmap.status", "ctxmap.reindex"} {
		if !strings.Contains(readme, "`"+cmd+"`") {
			t.Errorf("README does not list the language server's %s", cmd)
		}
	}
}
