package rank

import "testing"

func TestIsTest(t *testing.T) {
	for p, want := range map[string]bool{
		"tests/test_basic.py":                          true,
		"src/_pytest/python.py":                        false,
		"pkg/api/client_test.go":                       true,
		"src/main/java/com/x/Parser.java":              false,
		"src/test/java/com/x/ParserTest.java":          true,
		"packages/runtime-core/__tests__/hmr.spec.ts":  true,
		"src/utils.test.js":                            true,
		"packages/dts-test/ref.test-d.ts":              true,
		"test-dts/reactivityMacros.test-d.ts":          true,
		"src/types/index.test-d.ts":                    true,
		"src/expect.spec-d.ts":                         true,
		"packages/reactivity/src/ref.ts":               false,
		"packages/runtime-core/src/helpers/testing.ts": false,
		"crates/printer/src/json.rs":                   false,
		"spec/models/user_spec.rb":                     true,
	} {
		if got := isTest(p); got != want {
			t.Errorf("isTest(%q) = %v, want %v", p, got, want)
		}
	}
}

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
