package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/embed/embedtest"
	"github.com/ctxmap/ctxmap/internal/filetest"
)

// tree writes a fresh workspace of n small Python modules that call each other.
func tree(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("pkg%d", i%10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf("\"\"\"Ledger entries, part %d.\"\"\"\n\nclass Entry%d:\n    def post(self, amount):\n        return amount * %d\n\n\ndef settle_%d(entry):\n    return entry.post(%d)\n", i, i, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ledger_%d.py", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// indexOnTerminal runs ctxmap index on root with a pseudo-terminal, which script(1) gives it, and
// returns what it drew there.
func indexOnTerminal(t *testing.T, bin, root string, env []string) string {
	t.Helper()
	log := filepath.Join(t.TempDir(), "tty.log")
	cmd := exec.Command("script", "-qec", bin+" index -C "+root+" 2>&1", log)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("index on a terminal: %v: %s", err, out)
	}
	drawn, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return string(drawn)
}

// On a terminal a cold index shows its progress while it works; piped it prints one summary line.
func TestIndexProgress(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) for a pseudo-terminal")
	}
	bin := filetest.Binary(t)
	root := tree(t, 400)
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "TERM=xterm")

	tty := indexOnTerminal(t, bin, root, env)
	bar := strings.Index(tty, "ctxmap: parsing")
	summary := strings.Index(tty, "ctxmap: indexed 400 files")
	stats := strings.Index(tty, root+": 400 files")
	if bar < 0 || summary < 0 || stats < 0 || bar > summary {
		t.Fatalf("on a terminal: no progress before the summary and the stats:\n%q", tty)
	}
	if !strings.Contains(tty, "/400") || !strings.Contains(tty, "files/s") {
		t.Errorf("the bar shows no count of the total or no rate:\n%q", tty)
	}

	// piped, and on a fresh cache again: one line on stderr, the stats on stdout
	env[len(env)-2] = "XDG_CACHE_HOME=" + t.TempDir()
	for _, c := range []struct {
		args  []string
		lines int
	}{{nil, 1}, {[]string{"--quiet"}, 0}} {
		cmd := exec.Command(bin, append([]string{"index", "-C", root}, c.args...)...)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("index %s: %v: %s", c.args, err, stderr.String())
		}
		if n := strings.Count(stderr.String(), "\n"); n != c.lines || strings.Contains(stderr.String(), "\r") {
			t.Errorf("index %s piped: %d lines on stderr, want %d: %q", c.args, n, c.lines, stderr.String())
		}
		if !strings.Contains(string(out), "400 files") {
			t.Errorf("index %s: stats %q", c.args, out)
		}
		env[len(env)-2] = "XDG_CACHE_HOME=" + t.TempDir()
	}
}

// A slow embedding endpoint: on a terminal the chunks embedded get a bar of their own after the files,
// and the summary counts them.
func TestEmbeddingProgress(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) for a pseudo-terminal")
	}
	srv := embedtest.NewServer(t, 32, nil)
	srv.SetDelay(func(texts int) time.Duration { return 20 * time.Millisecond * time.Duration(1+texts/16) })
	bin := filetest.Binary(t)
	root := tree(t, 150)
	srv.WriteConfig(t, root, "slow", 32)
	// an endpoint in a checkout's file applies once the user trusts the folder
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if _, err := index.Trust(root, false); err != nil {
		t.Fatal(err)
	}
	tty := indexOnTerminal(t, bin, root, append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "TERM=xterm"))
	files, chunks := strings.Index(tty, "ctxmap: parsing"), strings.Index(tty, "ctxmap: embedding")
	if files < 0 || chunks < files || !strings.Contains(tty, "chunks/s") || !regexp.MustCompile(`indexed 151 files .*, [\d,]+ chunks embedded`).MatchString(tty) {
		t.Errorf("no bar for the chunks after the files', or no count of them:\n%q", tty)
	}
}
