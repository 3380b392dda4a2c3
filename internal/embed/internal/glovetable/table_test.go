package glovetable

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// packed is the packed table the embed package ships.
func packed(t *testing.T) string { return filetest.Read(t, "../../glove.bin") }

func TestParsePacked(t *testing.T) {
	data := packed(t)
	tab, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 100000 || tab.Dim() != 100 {
		t.Fatalf("%d words x %d, want 100000 x 100", tab.Len(), tab.Dim())
	}
	for i, w := range []string{"the", "of", "to", "and"} {
		if r, ok := tab.Rank(w); !ok || r != i {
			t.Errorf("Rank(%q) = %d, %v; want %d", w, r, ok, i)
		}
	}
	r, _ := tab.Rank("error")
	v := tab.Vector(r)
	var norm float64
	maxAbs := 0.0
	for _, x := range v {
		norm += float64(x) * float64(x)
		maxAbs = math.Max(maxAbs, math.Abs(float64(x)))
	}
	// GloVe 6B components lie within a few units; an all-zero or huge vector means a bad offset.
	if norm < 1 || maxAbs > 10 {
		t.Errorf(`vector of "error": squared norm %.2f, largest component %.2f`, norm, maxAbs)
	}
	sum := make([]float32, tab.Dim())
	tab.AddScaled(sum, r, 2)
	for i := range sum {
		if sum[i] != 2*v[i] {
			t.Fatalf("AddScaled by 2, component %d: %v, want %v", i, sum[i], 2*v[i])
		}
	}
}

func TestParseRejectsDamage(t *testing.T) {
	data := packed(t)
	vocab := int(binary.LittleEndian.Uint32([]byte(data[16:20])))
	scalesAt := HeaderSize + vocab + Pad(vocab)
	edit := func(at int, s string) string { return data[:at] + s + data[at+len(s):] }
	cases := map[string]string{
		"empty":          "",
		"header only":    data[:HeaderSize],
		"bad magic":      edit(0, "XXXXXXXX"),
		"truncated":      data[:len(data)-1],
		"extra byte":     data + "\x00",
		"more words":     edit(8, "\xa1\x86\x01\x00"),
		"zero dimension": edit(12, "\x00\x00\x00\x00"),
		"duplicate word": edit(HeaderSize+len("the\nof\n"), "of"), // "to" becomes a second "of"
		"empty word":     edit(HeaderSize+len("the\n"), "\n\n"),
		"NaN scale":      edit(scalesAt, "\x00\x00\xc0\x7f"),
	}
	for name, d := range cases {
		if _, err := Parse(d); err == nil {
			t.Errorf("%s: parsed without error", name)
		} else if !strings.HasPrefix(err.Error(), "word table:") {
			t.Errorf("%s: error %q does not say what failed", name, err)
		}
	}
}
