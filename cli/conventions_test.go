package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// runIn runs the command line with stdin in the folder dir, where nothing is to be written.
func runIn(t *testing.T, dir string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errOut bytes.Buffer
	code = Run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// nothingWritten fails when dir holds anything.
func nothingWritten(t *testing.T, dir, what string) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("%s wrote %v into the current folder", what, entries)
	}
}

// The conventions of the command line: -o - is stdout; piped text is read with no - ; an empty text is
// said as such; --format json and --json are one; man prints a page unless given a folder; a bad
// setting is an error that names it.
func TestConventions(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := tree(t, 20)
	if err := os.WriteFile(filepath.Join(root, "cart.go"), []byte("package shop\n\n// AddToCart puts an item in the cart.\nfunc AddToCart() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()

	_, want, _ := runIn(t, cwd, "", "context", "-C", root, "add to cart")
	if code, out, said := runIn(t, cwd, "", "context", "-C", root, "-o", "-", "add to cart"); code != 0 || out != want || !strings.Contains(out, "AddToCart") {
		t.Errorf("-o -: exit %d, said %q, stdout %q, want %q", code, said, out, want)
	}
	if code, out, said := runIn(t, cwd, "add to cart\n", "context", "-C", root); code != 0 || out != want {
		t.Errorf("piped text without -: exit %d, said %q, stdout %q", code, said, out)
	}
	for _, args := range [][]string{{"context", "-C", root, "-"}, {"context", "-C", root}} {
		if code, _, said := runIn(t, cwd, "  \n", args...); code != 2 || !strings.Contains(said, "the text is empty") {
			t.Errorf("%v on an empty stdin: exit %d, said %q", args, code, said)
		}
	}
	if code, _, said := Run([]string{"context", "-C", root}, nil, &bytes.Buffer{}, &bytes.Buffer{}), "", ""; code != 2 {
		t.Errorf("context with neither text nor stdin: exit %d %s", code, said)
	}
	if code, out, said := runIn(t, cwd, "", "map", "-C", root, "--format", "text", "-o", "-"); code != 0 || !strings.Contains(out, "cart.go") {
		t.Errorf("map -o -: exit %d, said %q, stdout %q", code, said, out)
	}
	nothingWritten(t, cwd, "-o -")

	for _, c := range [][]string{{"entities", "-C", root}, {"explore", "-C", root, "ledger"}, {"index", "-C", root}} {
		_, long, _ := runIn(t, cwd, "", append(c, "--json")...)
		code, out, said := runIn(t, cwd, "", append(c, "--format", "json")...)
		// the index's stats say how long it took
		var a, b any
		if code != 0 || json.Unmarshal([]byte(out), &b) != nil || json.Unmarshal([]byte(long), &a) != nil || len(out) < 10 {
			t.Errorf("%s --format json: exit %d, said %q, stdout %.200q", c[0], code, said, out)
		}
		if c[0] != "index" && out != long {
			t.Errorf("%s: --format json %.200q, --json %.200q", c[0], out, long)
		}
		if code, _, said := runIn(t, cwd, "", append(c, "--format", "yaml")...); code != 2 || !strings.Contains(said, `--format "yaml"`) {
			t.Errorf("%s --format yaml: exit %d, said %q", c[0], code, said)
		}
	}

	if code, out, said := runIn(t, cwd, "", "man", "context"); code != 0 || !strings.Contains(out, ".TH \"CTXMAP\"") || !strings.Contains(out, "ctxmap-context") {
		t.Errorf("man context: exit %d, said %q, stdout %.200q", code, said, out)
	}
	if code, out, _ := runIn(t, cwd, "", "man"); code != 0 || !strings.Contains(out, "context packs for LLMs") {
		t.Errorf("man: exit %d, stdout %.300q", code, out)
	}
	if code, _, said := runIn(t, cwd, "", "man", "nosuch"); code != 2 || !strings.Contains(said, "nosuch") {
		t.Errorf("man nosuch: exit %d, said %q", code, said)
	}
	if code, out, _ := runIn(t, cwd, "", "man", "context"); code != 0 || strings.Contains(out, "budget=0") {
		t.Errorf("the man page documents --budget=0, which the command refuses:\n%s", out)
	}
	nothingWritten(t, cwd, "man")

	for _, v := range []string{"abc", "0", "-5s"} {
		t.Setenv(QuietEnv, v)
		if code, _, said := runIn(t, cwd, "", "entities", "-C", root); code != 2 || !strings.Contains(said, QuietEnv+"="+v) {
			t.Errorf("%s=%s: exit %d, said %q", QuietEnv, v, code, said)
		}
	}
	t.Setenv(QuietEnv, "90s")
	if code, _, said := runIn(t, cwd, "", "entities", "-C", root); code != 0 {
		t.Errorf("%s=90s: exit %d, said %q", QuietEnv, code, said)
	}

	missing := filepath.Join(cwd, "nowhere")
	for _, c := range [][]string{{"context", "-C", missing, "x"}, {"entities", "-C", missing}, {"index", "-C", missing}, {"daemon", "--stop", "-C", missing}} {
		if code, _, said := runIn(t, cwd, "", c...); code != 2 || !strings.Contains(said, "-C "+missing+": no such folder") {
			t.Errorf("%s -C missing: exit %d, said %q", c[0], code, said)
		}
	}
	file := filepath.Join(root, "cart.go")
	if code, _, said := runIn(t, cwd, "", "context", "-C", file, "x"); code != 2 || !strings.Contains(said, "not a folder") {
		t.Errorf("-C a file: exit %d, said %q", code, said)
	}
	nothingWritten(t, cwd, "a missing -C")
}

// A picture is refused on a terminal, with the ways to get it; piped it is written.
func TestMapRefusesATerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) for a pseudo-terminal")
	}
	bin := filetest.Binary(t)
	root := tree(t, 20)
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "TERM=xterm", NoDaemonEnv+"=1")
	log := filepath.Join(t.TempDir(), "tty.log")
	cmd := exec.Command("script", "-qec", bin+" map -C "+root, log)
	cmd.Env = env
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "-o map.svg") || !strings.Contains(string(out), "--format text") || strings.Contains(string(out), "<svg") {
		t.Errorf("map on a terminal:\n%s", out)
	}
	piped := exec.Command(bin, "map", "-C", root)
	piped.Env = env
	if svg, err := piped.Output(); err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("map piped: %v %.200s", err, svg)
	}
}

// --version names the commit and the build's time a release stamps into the binary.
func TestVersionNamesTheCommit(t *testing.T) {
	commit, built := Commit, Built
	defer func() { Commit, Built = commit, built }()
	Commit, Built = "0123456789abcdef", "2026-01-02T03:04:05Z"
	if code, out, _ := run("--version"); code != 0 || out != "ctxmap "+Version+" (commit 0123456789ab, built 2026-01-02T03:04:05Z)\n" {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
