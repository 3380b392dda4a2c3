package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
