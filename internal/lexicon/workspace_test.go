package lexicon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A project lexicon the workspace points at is read only when it is a regular file inside the
// workspace, of a bounded size: a FIFO neither hangs nor is waited on, a symlink to /dev/zero or out of
// the workspace is refused unread, and a file that is no lexicon is never echoed.
func TestProjectLexiconReadBounded(t *testing.T) {
	cases := map[string]func(t *testing.T, root string) (file string){
		"fifo": func(t *testing.T, root string) string {
			p := filepath.Join(root, ".ctxmap", "lexicon.yaml")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no FIFO here: %v", err)
			}
			return ""
		},
		"symlink to /dev/zero": func(t *testing.T, root string) string {
			if err := os.Symlink("/dev/zero", filepath.Join(root, ".ctxmap", "lexicon.yaml")); err != nil {
				t.Fatal(err)
			}
			return ""
		},
		"symlink out of the workspace": func(t *testing.T, root string) string {
			outside := filepath.Join(t.TempDir(), "lexicon.yaml")
			os.WriteFile(outside, []byte("synonyms:\n  secretword: {strong: [other]}\n"), 0o644)
			if err := os.Symlink(outside, filepath.Join(root, ".ctxmap", "lexicon.yaml")); err != nil {
				t.Fatal(err)
			}
			return ""
		},
		"too large": func(t *testing.T, root string) string {
			f, _ := os.Create(filepath.Join(root, ".ctxmap", "lexicon.yaml"))
			f.Truncate(maxProjectFile + 1)
			f.Close()
			return ""
		},
		"not a lexicon": func(t *testing.T, root string) string {
			os.WriteFile(filepath.Join(root, "passwd"), []byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"), 0o644)
			return "passwd"
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, ".ctxmap"), 0o755)
			file := setup(t, root)
			var warnings []string
			w := NewWorkspace(root, file, func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) })
			done := make(chan *Lexicon)
			go func() { done <- w.Lexicon(nil) }()
			select {
			case lex := <-done:
				if lex == nil {
					t.Fatal("no lexicon")
				}
				if _, ok := lex.rel["secretword"]; ok {
					t.Error("a file out of the workspace was read")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the lexicon is still being read after 5 s")
			}
			if len(warnings) != 1 {
				t.Fatalf("want one warning, got %q", warnings)
			}
			if strings.Contains(warnings[0], "root:x") || strings.Contains(warnings[0], "secretword") {
				t.Errorf("the warning echoes the file: %s", warnings[0])
			}
		})
	}
}
