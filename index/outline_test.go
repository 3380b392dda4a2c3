package index

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/pack"
)

func outlinePaths(o *Outline) []string {
	var ps []string
	for _, f := range o.Files {
		ps = append(ps, f.Path)
	}
	return ps
}

// The outline ranks the code the rest of the workspace names, fits its budget exactly as the tokenizer
// counts it, and moves to an entity's or a text's files when centred on them.
func TestOutline(t *testing.T) {
	ix, _ := shop(t)
	ctx := context.Background()
	tok, err := pack.NewTokenizer("")
	if err != nil {
		t.Fatal(err)
	}
	var whole *Outline
	for _, budget := range []int{120, 300, 1000, 5000} {
		o, err := ix.Outline(ctx, OutlineRequest{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		if n := tok.Count(o.Text); n > budget || n != o.Tokens {
			t.Errorf("budget %d: %d tokens (said %d)", budget, n, o.Tokens)
		}
		if len(o.Files) == 0 {
			t.Fatalf("budget %d: no file:\n%s", budget, o.Text)
		}
		for _, f := range o.Files {
			if !strings.Contains(o.Text, "\n"+f.Path+":\n") || len(f.Definitions) == 0 {
				t.Errorf("budget %d: %s is listed but not drawn, or drawn bare", budget, f.Path)
			}
		}
		whole = o
	}
	// the cart is what the shop's code and tests name most; documents and tests rank below code
	if got := outlinePaths(whole); got[0] != "shop/cart.py" || slices.Contains(got, "README.md") {
		t.Errorf("the files, best first: %v", got)
	}
	if i, j := slices.Index(outlinePaths(whole), "shop/cart.py"), slices.Index(outlinePaths(whole), "tests/test_cart.py"); j >= 0 && j < i {
		t.Errorf("a test outranks the code it tests: %v", outlinePaths(whole))
	}
	if !strings.Contains(whole.Text, "def add_item(self, sku, price, quantity=1)") {
		t.Errorf("no signature of the cart's methods:\n%s", whole.Text)
	}

	around, err := ix.Outline(ctx, OutlineRequest{Budget: 300, Entity: "stock"})
	if err != nil {
		t.Fatal(err)
	}
	if around.Centre != "STOCK" || !strings.HasPrefix(outlinePaths(around)[0], "inventory/") {
		t.Errorf("around STOCK: %q %v", around.Centre, outlinePaths(around))
	}
	req := OutlineRequest{Budget: 300, Text: "the tax of a payment in installments is rounded wrongly"}
	if _, err := ix.Outline(ctx, req); err == nil {
		t.Error("a map centred on a text drawn before Centre")
	}
	if err := req.Centre(ctx, Own{ix}); err != nil {
		t.Fatal(err)
	}
	asked, err := ix.Outline(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if outlinePaths(asked)[0] != "pricing/src/tax.rs" {
		t.Errorf("around a text about taxes: %v", outlinePaths(asked))
	}

	for _, bad := range []OutlineRequest{{Budget: 10}, {Entity: "spaceship"}, {Entity: "cart", Text: "cart"}, {Tokenizer: "p50k"}} {
		if _, err := ix.Outline(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v, want an invalid request", bad, err)
		}
	}
}
