package vector

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	chromem "github.com/philippgille/chromem-go"

	"github.com/ctxmap/ctxmap/internal/embed"
)

// randomModel embeds a text as dim components drawn from a generator seeded by the text. Its vectors
// are not of unit length, so chromem normalizes each as it would a remote model's: SearchFile has to
// score what chromem made of them.
type randomModel struct{ dim int }

func (randomModel) ID() string { return "random" }
func (m randomModel) Dim() int { return m.dim }
func (m randomModel) Embed(_ context.Context, text string) ([]float32, error) {
	h := fnv.New64a()
	h.Write([]byte(text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 1))
	v := make([]float32, m.dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v, nil
}

// sameHits reports how got differs from want, scores compared bit for bit; "" if in nothing.
func sameHits(got, want []Hit) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d hits, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Path != w.Path || math.Float32bits(g.Score) != math.Float32bits(w.Score) {
			return fmt.Sprintf("hit %d is %+v, want %+v", i, g, w)
		}
	}
	return ""
}

var queries = []string{
	"delete a file",
	"parse the file and report an error",
	"the watcher misses files created in a new folder",
	sample[2].Text,            // a document's own text
	"zzzq xqxq",               // no known word
	"parse the invoice total", // twins tie at the cut (see twins)
}

// twins are n documents of one text: equal vectors, equal scores, settled by ID.
func twins(n int) []Doc {
	var docs []Doc
	for i := range n {
		id := fmt.Sprintf("b/twin%02d.go#1", i)
		docs = append(docs, Doc{ID: id, Path: strings.TrimSuffix(id, "#1"), Text: "parse the invoice"})
	}
	return docs
}

func TestSearchFileEqualsSearch(t *testing.T) {
	ctx := context.Background()
	for _, e := range []embed.Embedder{embed.Default(), randomModel{300}} {
		t.Run(e.ID(), func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, e)
			docs := slices.Concat(chunks(t, 400), sample, twins(12))
			put(t, s, docs)
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			compare := func(s *Store) {
				t.Helper()
				for _, q := range queries {
					for _, k := range []int{-1, 0, 1, 3, 10, 50, len(docs), len(docs) + 7} {
						want := search(t, s, q, k)
						got, err := SearchFile(ctx, dir, e, q, k)
						if err != nil {
							t.Fatalf("SearchFile(%q, %d): %v", q, k, err)
						}
						if d := sameHits(got, want); d != "" {
							t.Errorf("SearchFile(%q, %d): %s", q, k, d)
						}
						if k > 0 && len(got) != min(k, len(docs)) {
							t.Errorf("SearchFile(%q, %d): %d hits of %d documents", q, k, len(got), len(docs))
						}
					}
				}
			}
			compare(s)

			// reopened from the file, the store searches as before
			before := map[string][]Hit{}
			for _, q := range queries {
				before[q] = search(t, s, q, len(docs))
			}
			mustClose(t, s)
			s = open(t, dir, e)
			defer s.Close()
			if s.Count() != len(docs) {
				t.Fatalf("reopened: Count = %d, want %d", s.Count(), len(docs))
			}
			for _, q := range queries {
				if d := sameHits(search(t, s, q, len(docs)), before[q]); d != "" {
					t.Errorf("reopened, Search(%q): %s", q, d)
				}
			}
			compare(s)
		})
	}
}

// Vectors saved by a store are of unit length; one that is not, written into a file, is normalized by
// Open, and scored by SearchFile as chromem scores the normalized vector.
func TestSearchFileNormalizesAsOpen(t *testing.T) {
	ctx := context.Background()
	e := randomModel{300}
	var docs []chromem.Result
	for _, d := range slices.Concat(chunks(t, 200), sample) {
		v, err := e.Embed(ctx, d.Text)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, chromem.Result{ID: d.ID, Metadata: map[string]string{pathKey: d.Path}, Embedding: v})
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, fileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFile(f, collectionName(e), e.Dim(), docs); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir, e)
	defer s.Close()
	for _, q := range queries {
		got, err := SearchFile(ctx, dir, e, q, 20)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameHits(got, search(t, s, q, 20)); d != "" {
			t.Errorf("SearchFile(%q): %s", q, d)
		}
	}
}

func TestSearchFileOfEmptyStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir, embed.Default())
	put(t, s, sample[:1])
	if err := s.DeletePath(ctx, sample[0].Path); err != nil {
		t.Fatal(err)
	}
	mustClose(t, s)
	hits, err := SearchFile(ctx, dir, embed.Default(), "delete a file", 5)
	if hits != nil || err != nil {
		t.Errorf("SearchFile of an empty store = %v, %v; want no hits and no error", hits, err)
	}
}

func TestSearchFileErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	saved(t, dir, embed.Default(), sample)
	searchFile := func(dir string, e embed.Embedder) error {
		hits, err := SearchFile(ctx, dir, e, "delete a file", 3)
		if err != nil && hits != nil {
			t.Errorf("SearchFile returned hits with the error %v", err)
		}
		return err
	}
	for _, missing := range []string{t.TempDir(), filepath.Join(t.TempDir(), "none")} {
		if err := searchFile(missing, embed.Default()); !errors.Is(err, ErrNoStore) || errors.Is(err, ErrCorrupt) {
			t.Errorf("no store file: %v, want ErrNoStore", err)
		}
	}
	if err := searchFile(dir, otherModel{embed.Default()}); !errors.Is(err, ErrNoStore) || errors.Is(err, ErrCorrupt) {
		t.Errorf("file of another model: %v, want ErrNoStore", err)
	}

	file := filepath.Join(dir, fileName)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := slices.Clone(data)
		b[i] ^= 1
		return b
	}
	// the header: magic and version, the name's length and bytes, dim and count (one byte each here)
	name := len(magic) + 2
	dim := name + len(collectionName(embed.Default()))
	// a well-formed file, checksum right, whose IDs repeat: chromem would keep one of them, a scan both
	var twice bytes.Buffer
	vec := make([]float32, embed.Default().Dim())
	vec[0] = 1
	doc := chromem.Result{ID: "a#1", Metadata: map[string]string{pathKey: "a"}, Embedding: vec}
	if err := writeFile(&twice, collectionName(embed.Default()), len(vec), []chromem.Result{doc, doc}); err != nil {
		t.Fatal(err)
	}
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0x0f}
	damaged := map[string][]byte{
		"magic flipped":         flip(0),
		"version flipped":       flip(len(magic)),
		"dim flipped":           flip(dim),
		"count flipped":         flip(dim + 1),
		"first ID length":       flip(dim + 2),
		"first ID flipped":      flip(dim + 3),
		"middle flipped":        flip(len(data) / 2),
		"last vector flipped":   flip(len(data) - 5),
		"checksum flipped":      flip(len(data) - 1),
		"checksum cut":          data[:len(data)-1],
		"half":                  data[:len(data)/2],
		"no checksum":           data[:len(data)-4],
		"header only":           data[:dim+2],
		"shorter than a header": data[:3],
		"empty":                 nil,
		"a byte more":           append(slices.Clone(data), 0),
		"magic only":            []byte(magic),
		"name of huge length":   slices.Concat(data[:name-1], huge, data[name:]),
		"huge count":            slices.Concat(data[:dim+1], huge, data[dim+2:]),
		"a document twice":      twice.Bytes(),
	}
	for what, bad := range damaged {
		if err := os.WriteFile(file, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := searchFile(dir, embed.Default()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: SearchFile = %v, want ErrCorrupt", what, err)
		}
		if _, err := Open(dir, embed.Default()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Open = %v, want ErrCorrupt", what, err)
		}
	}

	// Damage to the model's name reads as another model's file: unusable, not reported as damage (the
	// checksum is only known at the end, and an unusable file is not read further).
	for _, i := range []int{name - 1, name, dim - 1} {
		if err := os.WriteFile(file, flip(i), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := searchFile(dir, embed.Default()); !errors.Is(err, ErrNoStore) {
			t.Errorf("name flipped at %d: SearchFile = %v, want ErrNoStore", i, err)
		}
	}
}

// A one-shot query on a saved store of 20,000 vectors of 300 components: opening the store and
// searching it, against searching its file.
func BenchmarkQuerySaved20000(b *testing.B) {
	ctx := context.Background()
	e := randomModel{300}
	dir := b.TempDir()
	saved(b, dir, e, chunks(b, 20000))
	const query = "the watcher misses files created in a new folder"
	b.Run("Open+Search", func(b *testing.B) {
		for b.Loop() {
			s, err := Open(dir, e)
			if err != nil {
				b.Fatal(err)
			}
			if hits, err := s.Search(ctx, query, 50); err != nil || len(hits) != 50 {
				b.Fatalf("%d hits, %v", len(hits), err)
			}
			s.Close()
		}
	})
	b.Run("SearchFile", func(b *testing.B) {
		for b.Loop() {
			if hits, err := SearchFile(ctx, dir, e, query, 50); err != nil || len(hits) != 50 {
				b.Fatalf("%d hits, %v", len(hits), err)
			}
		}
	})
}
