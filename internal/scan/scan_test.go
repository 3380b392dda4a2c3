package scan

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// write creates files under root and returns their paths.
func write(t *testing.T, root string, files map[string]string) []string {
	t.Helper()
	filetest.Write(t, root, files)
	return slices.Collect(maps.Keys(files))
}

func paths(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Path)
	}
	return out
}

// A stack frame's file comes first, then the files that hold the rarer terms; a name's parts and a
// message count;
// binary files, files over the size limit and files with nothing of the query are left out.
func TestBest(t *testing.T) {
	root := t.TempDir()
	files := write(t, root, map[string]string{
		"shop/cart.go":       "package shop\n\n// RefundOrder gives the money back.\nfunc RefundOrder() error { return errors.New(\"Cannot refund a closed order\") }\n",
		"shop/order.go":      "package shop\n\ntype Order struct{ closed bool }\n",
		"shop/price.go":      "package shop\n\nfunc price_total() int { return 0 } // an order's total\n",
		"shop/util.go":       "package shop\n\nfunc nothing() {}\n",
		"web/handler/api.go": "package handler\n\nfunc Serve() {}\n",
		"blob.bin":           "order\x00\x01refund",
		"big.go":             "package big // order refund " + string(make([]byte, 200)),
	})
	q := Query{
		Words:   []Term{{"refund", 1}, {"order", 1}, {"total", 1}},
		Phrases: []Term{{"cannot refund a closed order", 3}},
		Paths:   []Term{{"handler/api.go", 4}},
	}
	got, err := Best(context.Background(), root, files, q, 10, 150)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"web/handler/api.go", "shop/cart.go", "shop/order.go", "shop/price.go"}
	if !reflect.DeepEqual(paths(got), want) {
		t.Errorf("Best: %v, want %v (%+v)", paths(got), want, got)
	}
	if got, _ := Best(context.Background(), root, files, q, 2, 150); len(got) != 2 {
		t.Errorf("most 2: %d matches", len(got))
	}
	// a cancelled search says so
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Best(ctx, root, files, q, 10, 150); err == nil {
		t.Error("a cancelled search returned no error")
	}
}

// An identifier is found whole and by its parts, whatever its case.
func TestLookupWords(t *testing.T) {
	words := map[string]uint64{"http": 1, "server": 2, "httpserver": 4, "total": 8, "utf8": 16, "decode": 32}
	for text, want := range map[string]uint64{
		"HTTPServer":   1 | 2 | 4,
		"price_total":  8,
		"utf8Decode":   16 | 32,
		"new server()": 2,
		"Totals":       0,
		"__total__":    8,
	} {
		if got := lookupWords([]byte(text), words); got != want {
			t.Errorf("%q: %b, want %b", text, got, want)
		}
	}
}

// What the first read learns answers the next questions as a read of every file would, reading only
// the files that hold a phrase's words.
func TestLearnedWords(t *testing.T) {
	root := t.TempDir()
	files := write(t, root, map[string]string{
		"shop/cart.go":  "package shop\n\n// RefundOrder gives the money back.\nfunc RefundOrder() error { return errors.New(\"Cannot refund a closed order\") }\n",
		"shop/order.go": "package shop\n\ntype Order struct{ closed bool } // cannot refund it\n",
		"shop/price.go": "package shop\n\nfunc price_total() int { return 0 } // an order's total\n",
		"shop/tax.go":   "package shop\n\n// TaxRate of an HTTPServer's orders\nvar TaxRate = 0.2\n",
		"web/api.go":    "package web\n\nfunc Serve() {}\n",
		"blob.bin":      "order\x00\x01refund",
	})
	first := Query{Words: []Term{{"serve", 1}}}
	got, words, err := Learn(context.Background(), root, files, first, 10, 1<<20)
	if err != nil || words == nil {
		t.Fatalf("Learn: %v, %v", err, words)
	}
	if want, _ := Best(context.Background(), root, files, first, 10, 1<<20); !reflect.DeepEqual(got, want) {
		t.Errorf("Learn: %v, Best: %v", got, want)
	}
	for _, q := range []Query{
		{Words: []Term{{"refund", 1}, {"order", 1}, {"total", 1}, {"http", 2}, {"server", 1}}},
		{Words: []Term{{"tax", 1}}, Phrases: []Term{{"cannot refund a closed order", 3}}, Paths: []Term{{"web/api.go", 4}}},
	} {
		want, err := Best(context.Background(), root, files, q, 10, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		got, read, err := words.Best(context.Background(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: learned %v, read %v", q, got, want)
		}
		// the phrase's words are all in two files: those two are read, nothing else
		if wantRead := 2 * len(q.Phrases); read != wantRead {
			t.Errorf("%+v: %d files read, want %d", q, read, wantRead)
		}
	}
}

// Of files that hold the same words, a long one (a changelog that holds every word) counts less than a
// short one, and a file the query's Weight discounts less than the others.
func TestLengthAndWeight(t *testing.T) {
	root := t.TempDir()
	long := "# Changes\n\nrefund order fixed\n" + strings.Repeat("something else changed here\n", 400)
	files := write(t, root, map[string]string{
		"CHANGES.md":   long,
		"shop/pay.go":  "package shop\n\n// refund an order\nfunc Refund() {}\n",
		"docs/pay.md":  "How to refund an order.\n",
		"shop/cart.go": "package shop\n\nfunc Cart() {}\n",
	})
	q := Query{Words: []Term{{"refund", 1}, {"order", 1}}}
	got, err := Best(context.Background(), root, files, q, 10, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if p := paths(got); len(p) != 3 || p[2] != "CHANGES.md" {
		t.Errorf("the long file is not last: %v", got)
	}
	q.Weight = func(p string) float64 {
		if strings.HasSuffix(p, ".md") {
			return 0.5
		}
		return 1
	}
	if got, _ := Best(context.Background(), root, files, q, 10, 1<<20); !reflect.DeepEqual(paths(got), []string{"shop/pay.go", "docs/pay.md", "CHANGES.md"}) {
		t.Errorf("weighted: %v", got)
	}
}
