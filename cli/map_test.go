package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/shoptest"
)

// shop writes the shop of testdata/shop.txtar to a new folder, with a cache of its own.
func shop(t *testing.T) string {
	t.Helper()
	root := shoptest.Write(t, shoptest.Files(t))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	return root
}

func TestMapCommand(t *testing.T) {
	root := shop(t)
	out := t.TempDir()

	var stdout, stderr bytes.Buffer
	for _, c := range []struct {
		args []string
		code int
		file string
		want []string
	}{
		{[]string{"map", "-C", root, "-o", filepath.Join(out, "map.svg")}, 0, "map.svg", []string{"<svg", ">CART<", ">STOCK<"}},
		{[]string{"map", "-C", root, "--entity", "cart", "--top", "4", "-o", filepath.Join(out, "cart.html")}, 0, "cart.html",
			[]string{"<!DOCTYPE html>", `"focus":"CART"`, "shop/cart.py"}},
		{[]string{"map", "-C", root, "-o", filepath.Join(out, "map.png")}, 2, "", nil},
		{[]string{"map", "-C", root, "--entity", "spaceship"}, 2, "", nil},
		{[]string{"map", "-C", root, "--top", "0"}, 2, "", nil},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := Run(c.args, nil, &stdout, &stderr); code != c.code {
			t.Errorf("ctxmap %s: exit %d, want %d; stderr: %s", strings.Join(c.args, " "), code, c.code, stderr.String())
			continue
		}
		if c.file == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, c.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(data), w) {
				t.Errorf("%s lacks %s", c.file, w)
			}
		}
	}
}

// map --format text is an outline of the repository within the budget, naming its main files.
func TestMapAsText(t *testing.T) {
	root := shop(t)
	tok, err := pack.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run("map", "-C", root, "--format", "text", "--budget", "1000")
	if code != 0 {
		t.Fatalf("map --format text: exit %d: %s", code, stderr)
	}
	if n := tok.Count(out); n > 1000 || n < 200 {
		t.Errorf("%d tokens for a budget of 1,000:\n%s", n, out)
	}
	for _, main := range []string{"shop/cart.py:", "inventory/stock.go:", "pricing/src/tax.rs:", "class Cart"} {
		if !strings.Contains(out, main) {
			t.Errorf("the map leaves out %s:\n%s", main, out)
		}
	}
	file := filepath.Join(t.TempDir(), "map.md")
	if code, _, stderr := run("map", "-C", root, "--budget", "200", "-o", file, "stock", "reservation"); code != 0 || !strings.Contains(stderr, "wrote "+file) {
		t.Fatalf("map -o map.md TEXT: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), `around "stock reservation"`) || tok.Count(string(b)) > 200 {
		t.Errorf("map.md: %v\n%s", err, b)
	}
	for _, bad := range [][]string{
		{"--format", "text", "--budget", "0"},
		{"--format", "pdf"},
		{"--format", "text", "--entity", "cart", "a text"},
		{"--format", "svg", "a text"},
		{"--format", "text", "--entity", "spaceship"},
	} {
		if code, _, stderr := run(append([]string{"map", "-C", root}, bad...)...); code != 2 {
			t.Errorf("map %s: exit %d, want 2: %s", bad, code, stderr)
		}
	}
}
