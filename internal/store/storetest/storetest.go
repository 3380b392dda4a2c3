// Package storetest damages what a cache folder holds, for the tests of any package that recover from it.
package storetest

import (
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/store"
)

// DamageRecord flips a byte in the middle of the record of the file rel in the state file that the
// cache folder cache keeps for root.
func DamageRecord(t testing.TB, cache, root, rel string) {
	t.Helper()
	st, err := store.Load(cache, root)
	if err != nil {
		t.Fatal(err)
	}
	at, n := st.Records.Entries()[rel].Span()
	filetest.Flip(t, store.StatePath(cache), at+n/2)
}
