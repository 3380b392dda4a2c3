package mine

import (
	"context"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/query"
)

// A synthetic trace is one ctxmap reads back: its innermost project frame resolves to the changed
// definition's file and line, in every language whose traces it prints.
func TestSyntheticTracesReadBack(t *testing.T) {
	root := t.TempDir()
	filetest.Write(t, root, map[string]string{
		"shop/discount.py":                 "def apply_discount(total, coupon):\n    if coupon.amount > total:\n        raise ValueError(\"the coupon is larger than the total\")\n    return total - coupon.amount\n\n\ndef checkout(cart):\n    return apply_discount(cart.total, cart.coupon)\n",
		"pkg/cart/cart.go":                 "package cart\n\n// Total adds up the lines.\nfunc Total(lines []int) int {\n\tsum := 0\n\tfor _, l := range lines {\n\t\tsum += l\n\t}\n\treturn sum\n}\n\nfunc Checkout(lines []int) int {\n\treturn Total(lines)\n}\n",
		"src/main/java/com/shop/Cart.java": "package com.shop;\n\npublic class Cart {\n  int total(int[] lines) {\n    int sum = 0;\n    for (int l : lines) sum += l;\n    return sum;\n  }\n\n  int checkout(int[] lines) {\n    return total(lines);\n  }\n}\n",
		"web/cart.js":                      "export function total(lines) {\n  let sum = 0;\n  for (const l of lines) sum += l.amount;\n  return sum;\n}\n\nexport function checkout(lines) {\n  return total(lines);\n}\n",
		"src/cart.rs":                      "pub fn total(lines: &[u32]) -> u32 {\n    let mut sum = 0;\n    for l in lines {\n        sum += l;\n    }\n    sum\n}\n\npub fn checkout(lines: &[u32]) -> u32 {\n    total(lines)\n}\n",
		"src/cart.c":                       "int total(const int *lines, int n) {\n  int sum = 0;\n  for (int i = 0; i < n; i++)\n    sum += lines[i];\n  return sum;\n}\n\nint checkout(const int *lines, int n) {\n  return total(lines, n);\n}\n",
	})
	ix, err := index.Open(context.Background(), index.Options{Root: root, CacheDir: filepath.Join(t.TempDir(), "cache"), Config: &index.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s := ix.Snapshot()
	for _, gold := range []string{"shop/discount.py::apply_discount", "pkg/cart/cart.go::Total", "src/main/java/com/shop/Cart.java::Cart.total",
		"web/cart.js::total", "src/cart.rs::total", "src/cart.c::total"} {
		ts := targets(s, []string{gold})
		if len(ts) != 1 {
			t.Fatalf("%s: %d targets", gold, len(ts))
		}
		tg := ts[0]
		callers := callersOf(s, tg, 12)
		if len(callers) == 0 {
			t.Errorf("%s: no caller found", gold)
		}
		for seed := range int64(8) {
			tr := trace(rand.New(rand.NewSource(seed)), s, tg, callers, "")
			a := query.Analyze(tr, nil)
			var first *query.Frame
			for i, f := range a.Frames {
				if strings.HasSuffix(f.Path, filepath.Base(tg.path)) {
					first = &a.Frames[i]
					break
				}
			}
			if first == nil || first.Line < tg.def.StartLine || first.Line > tg.def.EndLine {
				t.Errorf("%s seed %d: the trace's first project frame %+v is not in %s (lines %d-%d):\n%s", gold, seed, first, tg.def.Name, tg.def.StartLine, tg.def.EndLine, tr)
				break
			}
		}
	}
	// the rest of an issue: a text that gains evidence keeps the commit's words first
	shaped := 0
	for seed := range int64(20) {
		text, ok := issueShaped(rand.New(rand.NewSource(seed)), s, "Fix negative totals", []string{"shop/discount.py::apply_discount"})
		if !ok {
			continue
		}
		shaped++
		if !strings.HasPrefix(text, "Fix negative totals\n\n") || ReadEvidence(text, nil) == (Evidence{}) && !strings.Contains(text, "apply_discount") {
			t.Errorf("issue-shaped text carries no evidence after the commit's words: %q", text)
		}
	}
	if shaped < 10 {
		t.Errorf("%d of 20 texts gained evidence", shaped)
	}
}
