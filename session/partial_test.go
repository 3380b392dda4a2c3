package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// Before the first build is in, a question is answered from the files it matches, the pack marked
// partial; once the build is in, from the whole index.
func TestPartialAnswerBeforeTheBuild(t *testing.T) {
	s, _ := coldShop(t, map[string]string{"docs/notes.md": "# Notes\n\nNothing about carts.\n"}, nil)
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

// A second question before the build is in adds to what the first partial answer kept (the walk, the
// scan's words, the partial index) instead of making it again; the build's end frees it.
func TestPartialAnswersShareTheirWork(t *testing.T) {
	root := t.TempDir()
	for i := range 3 {
		writeFile(t, root, fmt.Sprintf("ledger/entry%d.go", i), fmt.Sprintf("package ledger\n\n// Entry%d posts a ledger entry.\nfunc Entry%d() {}\n", i, i))
		writeFile(t, root, fmt.Sprintf("mail/send%d.go", i), fmt.Sprintf("package mail\n\n// Send%d delivers a mail.\nfunc Send%d() {}\n", i, i))
	}
	s, err := Open(context.Background(), Options{Root: root, CacheDir: filepath.Join(t.TempDir(), "cache"), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	kept := func() *index.Partial {
		s.first.yield.Lock()
		defer s.first.yield.Unlock()
		return s.first.partial
	}
	ask := func(text string, files int) {
		t.Helper()
		res, err := s.Context(ctx, index.Request{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if p := res.Pack.Partial; p == nil || p.Files != files || p.Total != 6 {
			t.Errorf("%s: partial %+v, want from %d of 6 files", text, p, files)
		}
	}
	// not started: no build runs
	ask("`Entry1` posts the ledger entry twice", 3)
	first := kept()
	ask("`Send2` delivers no mail", 6)
	if q := kept(); q == nil || q != first || q.Files() != 6 {
		t.Errorf("the second question did not add to the first's partial index: %p, %p", q, first)
	}
	s.Start()
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.WaitReady(wait); err != nil {
		t.Fatal(err)
	}
	if q := kept(); q != nil {
		t.Errorf("the partial answers' state outlived the build: %d files", q.Files())
	}
}

// The first build lists the files from the first partial pack's walk when nothing moved since, and
// walks again when something did: a file made or removed after the partial pack is in or out of the
// index all the same. It takes the files the partial pack parsed, and reads one again that changed since.
func TestBuildAfterPartialSeesLaterChanges(t *testing.T) {
	for _, change := range []string{"none", "added", "removed", "changed"} {
		t.Run(change, func(t *testing.T) {
			s, root := coldShop(t, nil, nil)
			ctx := context.Background()
			if res, err := s.Context(ctx, index.Request{Text: "`AddToCart` puts nothing in the cart"}); err != nil || res.Pack.Partial == nil {
				t.Fatalf("no partial pack before the build: %v", err)
			}
			want := []string{"shop/cart.go", "shop/order.go"}
			switch change {
			case "added":
				writeFile(t, root, "shop/refund/refund.go", "package refund\n\n// Refund pays an order back.\nfunc Refund() {}\n")
				want = []string{"shop/cart.go", "shop/order.go", "shop/refund/refund.go"}
			case "removed":
				if err := os.Remove(filepath.Join(root, "shop/order.go")); err != nil {
					t.Fatal(err)
				}
				want = []string{"shop/cart.go"}
			case "changed": // the file the partial pack led with, a minute later
				writeFile(t, root, "shop/cart.go", "package shop\n\n// AddToBasket puts an item in the basket.\nfunc AddToBasket() {}\n")
				later := time.Now().Add(time.Minute)
				if err := os.Chtimes(filepath.Join(root, "shop/cart.go"), later, later); err != nil {
					t.Fatal(err)
				}
			}
			s.Start()
			wait, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if err := s.WaitReady(wait); err != nil {
				t.Fatal(err)
			}
			snap := s.Snapshot(ctx)
			if got := snap.Paths; !slices.Equal(got, want) {
				t.Errorf("indexed %v, want %v", got, want)
			}
			wantDef := "AddToCart"
			if change == "changed" {
				wantDef = "AddToBasket"
			}
			if defs := snap.Record("shop/cart.go").File.Definitions; len(defs) != 1 || defs[0].Name != wantDef {
				t.Errorf("shop/cart.go holds %+v, want %s", defs, wantDef)
			}
		})
	}
}

// coldShop opens, not started, a session on a tree of two shop files and extra, its cache empty, its
// log logf (nil: the test's).
func coldShop(t *testing.T, extra map[string]string, logf func(string, ...any)) (s *Session, root string) {
	t.Helper()
	root = t.TempDir()
	writeFile(t, root, "shop/cart.go", "package shop\n\n// AddToCart puts an item in the cart.\nfunc AddToCart() {}\n")
	writeFile(t, root, "shop/order.go", "package shop\n\n// PlaceOrder turns the cart into an order.\nfunc PlaceOrder() {}\n")
	for rel, body := range extra {
		writeFile(t, root, rel, body)
	}
	if logf == nil {
		logf = t.Logf
	}
	s, err := Open(context.Background(), Options{Root: root, CacheDir: filepath.Join(t.TempDir(), "cache"), Logf: logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, root
}

// The session hands the first build what its partial packs parsed: the build takes those files instead
// of parsing them again, and says so in the log.
func TestTheBuildTakesWhatThePartialPacksParsed(t *testing.T) {
	var mu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}
	s, _ := coldShop(t, nil, logf)
	ctx := context.Background()
	res, err := s.Context(ctx, index.Request{Text: "`AddToCart` puts nothing in the cart"})
	if err != nil || res.Pack.Partial == nil {
		t.Fatalf("no partial pack before the build: %v", err)
	}
	s.Start()
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := s.WaitReady(wait); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := fmt.Sprintf("build: 0 files parsed, %d taken as the partial packs parsed them", res.Pack.Partial.Files)
	if !slices.Contains(logged, want) {
		t.Errorf("the log lacks %q:\n%s", want, strings.Join(logged, "\n"))
	}
}
