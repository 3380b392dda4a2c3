package rank

import "testing"

// A panic in a search run on its own goroutine reaches the request that waits for it, where the
// server's recovery turns it into an error response, instead of ending the process.
func TestAsyncPanicReachesTheCaller(t *testing.T) {
	if got := async(func() int { return 7 })(); got != 7 {
		t.Fatalf("async result = %d, want 7", got)
	}
	wait := async(func() int { panic("search broke") })
	defer func() {
		if p := recover(); p != "search broke" {
			t.Fatalf("recovered %v, want the search's panic", p)
		}
	}()
	wait()
	t.Fatal("waiting returned without the panic")
}
