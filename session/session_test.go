package session

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/store/storetest"
)

func writeFile(t *testing.T, root, rel, body string) {
	t.Helper()
	filetest.Write(t, root, map[string]string{rel: body})
}

func open(t *testing.T, opts Options) *Session {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	s, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.Start()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

func has(syms []index.Symbol, name string) bool {
	for _, d := range syms {
		if d.Name == name && d.Match == "exact" {
			return true
		}
	}
	return false
}

// A query sees every change queued before it, without polling.
func TestQueryWaitsForQueuedChanges(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "shop/cart.go", "package shop\n\nfunc AddToCart() {}\n")
	s := open(t, Options{Root: root, InMemory: true})
	writeFile(t, root, "shop/order.go", "package shop\n\nfunc PlaceOrder() {}\n")
	s.Changed([]string{"shop/order.go"})
	if !has(s.Snapshot(context.Background()).FindSymbols("PlaceOrder", "", 0), "PlaceOrder") {
		t.Error("a file changed before the query is not in its answer")
	}
	// a buffer overlays the file until it is closed
	s.Edited("shop/order.go", []byte("package shop\n\nfunc CancelOrder() {}\n"))
	snap := s.Snapshot(context.Background())
	if !has(snap.FindSymbols("CancelOrder", "", 0), "CancelOrder") || has(snap.FindSymbols("PlaceOrder", "", 0), "PlaceOrder") {
		t.Error("the buffer's content is not what the index holds")
	}
	s.BufferClosed("shop/order.go")
	if !has(s.Snapshot(context.Background()).FindSymbols("PlaceOrder", "", 0), "PlaceOrder") {
		t.Error("closing the buffer did not bring back the file on disk")
	}
}

// When the index cannot be opened again with either configuration, the session keeps answering
// from an index in memory instead of holding a closed one.
func TestReopenFailureKeepsAnIndex(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "shop/cart.go", "package shop\n\nfunc AddToCart() {}\n")
	cache := filepath.Join(t.TempDir(), "cache")
	s := open(t, Options{Root: root, CacheDir: cache})
	s.Edited("shop/cart.go", []byte("package shop\n\nfunc AddToBasket() {}\n"))
	// the edit is in before the cache goes: written after, its batch fails to persist, and closing
	// the index then waits on bleve's persister for seconds (the test failed one run in eight)
	s.Snapshot(context.Background())
	// the cache folder becomes a file: no index can open there any more
	if err := os.Rename(cache, cache+".gone"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := s.Config()
	cfg.Exclude = []string{"docs/**"}
	if !s.Reconfigure(cfg) {
		t.Fatal("a new exclude did not reopen the index")
	}
	snap := s.Snapshot(context.Background())
	if !has(snap.FindSymbols("AddToBasket", "", 0), "AddToBasket") {
		t.Errorf("after a failed reopen: %+v, want the buffer's AddToBasket", snap.FindSymbols("AddTo", "", 0))
	}
	if st := s.Status(); st.Files != 1 || st.Error != "" {
		t.Errorf("status after a failed reopen: %+v", st)
	}
	if _, err := s.Context(context.Background(), index.Request{Text: "add to basket"}); err != nil {
		t.Errorf("context after a failed reopen: %v", err)
	}
}

// A socket file left by a process that died is replaced; without a session, Ask says none runs.
func TestStaleSocketIsReplaced(t *testing.T) {
	root := cartWorkspace(t)
	ctx := context.Background()
	if _, err := askJSON(ctx, root, index.Request{Text: "add to cart"}); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Ask without a session: %v, want ErrNoSession", err)
	}
	path, err := SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	open(t, Options{Root: root, Listen: true})
	raw, err := askJSON(ctx, root, index.Request{Text: "add to cart", Format: "json"})
	if err != nil || !strings.Contains(string(raw), "shop/cart.go") {
		t.Fatalf("Ask: %v %.200s", err, raw)
	}
}

// A record found damaged by a request is read again from its file by a rescan, and the pack made
// again: that request answers as a fresh build.
func TestDamagedRecordIsReadAgain(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "shop/cart.go", "package shop\n\n// AddToCart puts an item in the cart.\nfunc AddToCart() {}\n")
	writeFile(t, root, "shop/order.go", "package shop\n\n// PlaceOrder pays for the cart.\nfunc PlaceOrder() {}\n")
	cache := filepath.Join(t.TempDir(), "cache")
	off := false
	cfg := &index.Config{Vectors: &off}
	s := open(t, Options{Root: root, CacheDir: cache, Config: cfg})
	req := index.Request{Text: "AddToCart puts an item in the cart"}
	res, err := s.Context(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := res.Pack.Text
	s.Close()
	storetest.DamageRecord(t, cache, root, "shop/cart.go")
	var said filetest.Log
	s = open(t, Options{Root: root, CacheDir: cache, Config: cfg, Logf: said.Logf})
	res, err = s.Context(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	log := said.String()
	if !strings.Contains(log, "shop/cart.go is damaged") {
		t.Fatalf("the damaged record was not said: %q", log)
	}
	if res.Pack.Text != want {
		t.Errorf("after the rescan, the pack differs from a fresh build's:\n%s\n---\n%s\nthe session said %s", res.Pack.Text, want, said.String())
	}
}
