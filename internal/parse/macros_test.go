package parse

import (
	"bytes"
	"math/rand"
	"os"
	"testing"
	"time"
)

// Blanking keeps every offset and line of the source, whatever the input.
func TestBlankMacrosKeepsOffsets(t *testing.T) {
	var seeds [][]byte
	for _, p := range []string{"testdata/shapes/cpp/macros.h", "testdata/shapes/cpp/tests.cc", "testdata/shapes/c/macros.c", "testdata/c/ring.c", "testdata/cpp/tokenizer.cpp"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	r := rand.New(rand.NewSource(1))
	alpha := []byte("(){}<>;:,*&[]\"'/\\#\n ABC_xyz~=R")
	for i := 0; i < 3000; i++ {
		src := bytes.Clone(seeds[r.Intn(len(seeds))])
		for m := r.Intn(20); m >= 0 && len(src) > 1; m-- {
			k := r.Intn(len(src))
			switch r.Intn(3) {
			case 0:
				src[k] = alpha[r.Intn(len(alpha))]
			case 1:
				src = src[:k+1]
			case 2:
				src = append(src[:k:k], append([]byte{alpha[r.Intn(len(alpha))]}, src[k:]...)...)
			}
		}
		out := blankMacros(src, i%2 == 0)
		if len(out) != len(src) {
			t.Fatalf("length %d became %d", len(src), len(out))
		}
		for j := range src {
			if out[j] != src[j] && (out[j] != ' ' || src[j] == '\n') {
				t.Fatalf("byte %d: %q became %q", j, src[j], out[j])
			}
		}
	}
}

// Odd input costs linear time: every look ahead or back is bounded.
func TestBlankMacrosLinear(t *testing.T) {
	for _, unit := range []string{")", "(", "A_B ", "A_B(", "template <", "[[", "x A_B c ", "LIB_X\n", "<", ") A_B"} {
		src := bytes.Repeat([]byte(unit), (256<<10)/len(unit))
		start := time.Now()
		blankMacros(src, true)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q repeated to 256 KiB: %v", unit, d)
		}
	}
}
