// Package embed turns code and prose into vectors offline. The default embedder averages GloVe word
// vectors (packed into glove.bin and compiled in), weighted so that frequent words count for little.
package embed

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"sync"

	"github.com/ctxmap/ctxmap/internal/embed/internal/glovetable"
	"github.com/ctxmap/ctxmap/internal/words"
)

// Embedder turns text into a vector for the vector store; the offline default ships in the binary.
type Embedder interface {
	// ID names the model and dimension; stores keep it so that a change of model re-embeds.
	ID() string
	Dim() int
	// Embed returns a unit-length vector of Dim components.
	Embed(ctx context.Context, text string) ([]float32, error)
}

// BatchEmbedder embeds many texts in one call: a remote model answers a batch in one request.
type BatchEmbedder interface {
	Embedder
	// EmbedBatch returns one unit-length vector of Dim components per text, in the texts' order.
	EmbedBatch(ctx context.Context, texts []string) ([][]float32, error)
}

//go:embed glove.bin
var gloveData string

var glove = &gloveEmbedder{data: gloveData}

// Default returns the offline GloVe embedder. Its table is parsed on first use.
func Default() Embedder { return glove }

const (
	gloveID  = "glove-6b-100d-int8/v1"
	gloveDim = 100
	// sifA is the a of the SIF weight a/(a+p(w)): the weight halves for a word used once in a thousand.
	sifA = 1e-3
)

type gloveEmbedder struct {
	data string

	once  sync.Once
	table *glovetable.Table
	zipf  float64 // harmonic number of the table size: p(rank) = 1/((rank+1)*zipf)
	err   error
}

func (g *gloveEmbedder) ID() string { return gloveID }
func (g *gloveEmbedder) Dim() int   { return gloveDim }

func (g *gloveEmbedder) load() (*glovetable.Table, error) {
	g.once.Do(func() {
		t, err := glovetable.Parse(g.data)
		if err != nil {
			g.err = fmt.Errorf("load %s: %w", gloveID, err)
			return
		}
		if t.Dim() != gloveDim {
			g.err = fmt.Errorf("load %s: table has dimension %d, want %d", gloveID, t.Dim(), gloveDim)
			return
		}
		g.table = t
		g.zipf = math.Log(float64(t.Len())) + 0.5772156649 + 1/(2*float64(t.Len()))
	})
	return g.table, g.err
}

// weight is the SIF weight of the word at rank, its probability estimated from Zipf's law.
func (g *gloveEmbedder) weight(rank int) float32 {
	p := 1 / (float64(rank+1) * g.zipf)
	return float32(sifA / (sifA + p))
}

// Embed splits identifiers and paths into words (removeFile -> remove, file), drops stopwords and
// language keywords, and sums the known words' weighted vectors. Unknown words are ignored; a text
// with no known word gets a fixed unit vector.
func (g *gloveEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := g.load()
	if err != nil {
		return nil, err
	}
	v := make([]float32, gloveDim)
	for _, w := range words.Split(text) {
		if len(w) < 2 || words.Stopword(w) {
			continue
		}
		if rank, ok := t.Rank(w); ok {
			t.AddScaled(v, rank, g.weight(rank))
		}
	}
	return unit(v), nil
}

// unit scales v to length 1 in place; a zero vector becomes the fixed vector with equal components.
func unit(v []float32) []float32 {
	if normalize(v) != nil {
		c := float32(1 / math.Sqrt(float64(len(v))))
		for i := range v {
			v[i] = c
		}
	}
	return v
}

// normalize scales v to length 1 in place; a vector without a direction (zero, NaN, infinite) is an
// error and stays as it was.
func normalize(v []float32) error {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return fmt.Errorf("vector of squared length %v has no direction", sum)
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return nil
}
