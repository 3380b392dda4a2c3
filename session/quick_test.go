package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// Before the first build is in, a question is answered from the files it matches, the pack marked
// partial; once the build is in, from the whole index.
func TestQuickAnswerBeforeTheBuild(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "shop/cart.go", "package shop\n\n// AddToCart puts an item in the cart.\nfunc AddToCart() {}\n")
	writeFile(t, root, "shop/order.go", "package shop\n\n// PlaceOrder turns the cart into an order.\nfunc PlaceOrder() {}\n")
	writeFile(t, root, "docs/notes.md", "# Notes\n\nNothing about carts.\n")
	s, err := Open(context.Background(), Options{Root: root, CacheDir: filepath.Join(t.TempDir(), "cache"), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	// not started: no build runs
	res, err := s.Context(ctx, index.Request{Text: "`AddToCart` puts nothing in the cart"})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Pack; p.Partial == nil || p.Partial.Total != 3 || p.Partial.Files == 0 || len(p.Items) == 0 || p.Items[0].Path != "shop/cart.go" ||
		!strings.Contains(p.Text, "- partial: from ") {
		t.Errorf("before the build: %+v\n%s", p.Partial, p.Text)
	}
	s.Start()
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.WaitReady(wait); err != nil {
		t.Fatal(err)
	}
	if res, err = s.Context(ctx, index.Request{Text: "`AddToCart` puts nothing in the cart"}); err != nil || res.Pack.Partial != nil {
		t.Errorf("after the build: %v, partial %+v", err, res.Pack.Partial)
	}
}
