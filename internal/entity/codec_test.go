package entity

import (
	"errors"
	"reflect"
	"testing"
)

// A map read back from its encoding is the map: entities, lookup tables, files' entities and the
// terms inferred from history; a damaged encoding is an error, never a panic.
func TestMapEncodingRoundTrip(t *testing.T) {
	w := rulesWorkspace(t)
	want := Aggregate(w.contribs, w.hist)
	if len(want.inferred) == 0 || len(want.Entities) == 0 {
		t.Fatalf("the workspace makes %d entities and infers %d files' terms: nothing to compare", len(want.Entities), len(want.inferred))
	}
	b, err := want.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalMap(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the map read back differs from the map written")
	}
	for _, cut := range []int{0, 1, len(b) / 3, len(b) / 2, len(b) - 1} {
		if _, err := UnmarshalMap(b[:cut]); !errors.Is(err, errDamaged) {
			t.Errorf("cut at %d of %d: err = %v, want damage", cut, len(b), err)
		}
	}
	for i := 0; i < len(b); i += 1 + len(b)/200 {
		bad := append([]byte(nil), b...)
		bad[i] ^= 0xff
		UnmarshalMap(bad) // any answer but a panic
	}
}
