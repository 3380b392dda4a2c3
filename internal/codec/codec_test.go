package codec

import (
	"fmt"
	"math"
	"testing"
)

// Every kind of value comes back as written, and a buffer cut anywhere reads as damaged, never as a
// panic.
func TestRoundTripAndCuts(t *testing.T) {
	var w Writer
	w.Num(-5)
	w.Int(math.MaxInt32)
	w.Size(3)
	w.Str("kind")
	w.Str("")
	w.Flags(true, false, true)
	w.Float(0.25)
	w.Uint32(0xdeadbeef)
	w.Str("kind")
	read := func(b []byte) (Reader, []any) {
		r := Reader{B: b, Words: map[string]string{}}
		var a, c bool
		var x bool
		got := []any{r.Num(), r.Int(), r.Size(), r.Str(), r.Str()}
		r.Flags(&a, &x, &c)
		got = append(got, a, x, c, r.Float(), r.Uint32(), r.Str())
		return r, got
	}
	r, got := read(w.B)
	want := []any{int64(-5), math.MaxInt32, 3, "kind", "", true, false, true, 0.25, uint32(0xdeadbeef), "kind"}
	if r.Bad || len(r.B) != 0 {
		t.Fatalf("a whole buffer reads as damaged (%v) or leaves %d bytes", r.Bad, len(r.B))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("value %d = %v, want %v", i, got[i], want[i])
		}
	}
	if len(r.Words) != 1 {
		t.Errorf("the repeated word is kept %d times, want once", len(r.Words))
	}
	for cut := range len(w.B) {
		if r, _ := read(w.B[:cut]); !r.Bad {
			t.Errorf("a buffer cut at %d of %d reads whole", cut, len(w.B))
		}
	}
}

// An int beyond 32 bits and a length beyond the bytes left are damage, not values.
func TestOutOfRange(t *testing.T) {
	var w Writer
	w.Num(math.MaxInt32 + 1)
	if r := (Reader{B: w.B}); r.Int() != 0 || !r.Bad {
		t.Error("an int beyond 32 bits was read")
	}
	w = Writer{}
	w.Size(1 << 40)
	if r := (Reader{B: w.B}); r.Size() != 0 || !r.Bad {
		t.Error("a length beyond the bytes left was read")
	}
}

// A list comes back element by element, an empty one as nil; Strs and Ints write as Str and Int do.
func TestLists(t *testing.T) {
	var w Writer
	List(&w, []string{"a", "bc"}, w.Str)
	List(&w, []int{}, w.Int)
	w.Strs("x", "y")
	w.Ints(7, -7)
	r := Reader{B: w.B}
	got := ReadList(&r, r.Str)
	empty := ReadList(&r, r.Int)
	rest := []any{r.Str(), r.Str(), r.Int(), r.Int()}
	if r.Bad || len(r.B) != 0 {
		t.Fatalf("the buffer reads as damaged (%v) or leaves %d bytes", r.Bad, len(r.B))
	}
	if len(got) != 2 || got[0] != "a" || got[1] != "bc" {
		t.Errorf("list = %q, want [a bc]", got)
	}
	if empty != nil {
		t.Errorf("an empty list reads as %v, want nil", empty)
	}
	if want := []any{"x", "y", 7, -7}; fmt.Sprint(rest) != fmt.Sprint(want) {
		t.Errorf("Strs and Ints read back as %v, want %v", rest, want)
	}
}
