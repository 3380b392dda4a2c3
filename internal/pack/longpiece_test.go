package pack

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// longWord is a word of n bytes that merges into many tokens of varied lengths.
func longWord(r *rand.Rand, n int) string {
	syllables := []string{"a", "an", "ing", "tion", "x", "q", "ab", "er", "st", "z", "é", "中"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(syllables[r.IntN(len(syllables))])
	}
	return b.String()
}

// On long pieces the heap's merges give the library's tokens: their count, and the bytes of their
// first n (what clip keeps).
func TestLongPiecesMergeAsTheLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		tok := tokenizer(t, name)
		for i := range 40 {
			text := longWord(r, 200+r.IntN(3000))
			if i%4 == 0 {
				text = strings.Repeat("ab", 100+r.IntN(1000)) // long runs of equal pairs: the ties
			}
			ids := tok.enc.EncodeOrdinary(text)
			if got := tok.pieces.count(text); got != len(ids) {
				t.Fatalf("%s: %d tokens, the library %d, for a word of %d bytes", name, got, len(ids), len(text))
			}
			for _, n := range []int{1, len(ids) / 3, len(ids) - 1} {
				if got, want := tok.prefix(text, n), trimToValid(tok.enc.Decode(ids[:n])); got != want {
					t.Fatalf("%s: the first %d tokens are %q, the library's %q", name, n, got, want)
				}
			}
		}
	}
}

// A 200 KB word (an issue text) and a 300 KB line of a file are counted and clipped in time linear in
// their length (n log n); the library's merges took minutes.
func BenchmarkLongPiece(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	tok := tokenizer(b, "")
	word := longWord(r, 200<<10)
	line := `var s = "` + longWord(r, 300<<10) + `";`
	b.Run("count 200KB word", func(b *testing.B) {
		for b.Loop() {
			tok.pieces.count(word)
		}
	})
	b.Run("clip 300KB line", func(b *testing.B) {
		for b.Loop() {
			tok.clip(line, 500)
		}
	})
}

// No token is longer than maxTokenBytes, which clip relies on.
func TestMaxTokenBytes(t *testing.T) {
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		for k := range tokenizer(t, name).pieces.ranks {
			if len(k) > maxTokenBytes {
				t.Fatalf("%s has a token of %d bytes", name, len(k))
			}
		}
	}
}
