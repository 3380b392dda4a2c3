package session

import (
	"context"
	"testing"
	"time"
)

// ctxmap index beside a running process says what that process parsed since the last time it was
// asked, its watcher's work included: an edit it read before the question is not "0 parsed".
func TestRefreshSaysWhatTheProcessParsed(t *testing.T) {
	root := cartWorkspace(t)
	s := open(t, Options{Root: root, Listen: true, Watch: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, err := OpRefresh.Ask(ctx, root, None{})
	if err != nil || first.Parsed != 1 {
		t.Fatalf("the first refresh: %d parsed, %v; want the first build's file", first.Parsed, err)
	}
	writeFile(t, root, "shop/cart.go", "package shop\n\n// AddToCart puts an item in the cart, twice.\nfunc AddToCart() {}\n")
	if !s.WaitApplied(ctx, s.Rescan()) { // the watcher's work, before the next question
		t.Fatal("the rescan was not applied")
	}
	again, err := OpRefresh.Ask(ctx, root, None{})
	if err != nil || again.Parsed != 1 {
		t.Errorf("after an edit the process read: %d parsed, %v; want 1", again.Parsed, err)
	}
	if st, _ := OpRefresh.Ask(ctx, root, None{}); st.Parsed != 0 {
		t.Errorf("with nothing changed: %d parsed", st.Parsed)
	}
}
