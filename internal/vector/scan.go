package vector

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ctxmap/ctxmap/internal/embed"
)

// SearchFile returns what Open(dir, e) followed by Search(ctx, text, k) would: the same hits in the
// same order with the same scores, bit for bit. It reads the store file as last saved, once, through
// a fixed buffer, keeping only the best k hits: a one-shot query neither builds the collection nor
// holds more of the file than the buffer. A Save in another process meanwhile is no harm: it renames
// a new file over the one being read.
//
// k <= 0 gives no hits, and the file is not read. A store saved empty gives no hits and no error. No
// store file under dir (none saved yet, or only one of an older format, which Open removes), or a file
// holding another model's vectors, gives an error wrapping ErrNoStore. A damaged file gives an error
// wrapping ErrCorrupt and no hits: the checksum is checked before anything is returned.
//
// Hits of equal score are settled by ID, as in Search; unlike Search, also when more of them than its
// margin meet at the cut.
func SearchFile(ctx context.Context, dir string, e embed.Embedder, text string, k int) ([]Hit, error) {
	if err := usable(e); err != nil {
		return nil, fmt.Errorf("search vector file: %w", err)
	}
	if k <= 0 {
		return nil, nil
	}
	r, err := openFile(dir, e)
	if err != nil {
		return nil, fmt.Errorf("search vector file: %w", err)
	}
	defer r.close()
	q, err := embedOne(ctx, e, text)
	if err != nil {
		return nil, fmt.Errorf("search vector file: %w", err)
	}
	// as chromem's queryEmbedding does
	if !isNormalized(q) {
		q = normalizeVector(q)
	}
	top := make(worstFirst, 0, min(k, r.count))
	for i := range r.count {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := r.next(); err != nil {
			return nil, err
		}
		score := similarity(q, r.vec)
		if len(top) < k {
			heap.Push(&top, Hit{ID: string(r.id), Path: string(r.path), Score: score})
			continue
		}
		// byRank, without making strings for the many documents that stay out
		if c := cmp.Compare(score, top[0].Score); c < 0 || c == 0 && string(r.id) >= top[0].ID {
			continue
		}
		top[0] = Hit{ID: string(r.id), Path: string(r.path), Score: score}
		heap.Fix(&top, 0)
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	if len(top) == 0 {
		return nil, nil
	}
	slices.SortFunc(top, byRank)
	return top, nil
}

// similarity is chromem's score of a stored vector v for the normalized query q. Open hands v to
// chromem's AddDocument, which normalizes a vector that is not of unit length within its tolerance;
// the score is then its dot product with q, summed in chromem's order. One loop sums both the squared
// length (as isNormalized does) and the dot product of v as it is, which is the score unless v is to be
// normalized.
func similarity(q, v []float32) float32 {
	var dot float32
	var sq float64
	for i, x := range v {
		dot += q[i] * x
		sq += float64(x) * float64(x)
	}
	if math.Abs(math.Sqrt(sq)-1) < isNormalizedPrecisionTolerance {
		return dot
	}
	return dotProduct(q, normalizeVector(v))
}

// Copies of chromem-go v0.7.0 (vector.go), which does not export them: scores equal to chromem's need
// its arithmetic, operation for operation.

const isNormalizedPrecisionTolerance = 1e-6

func dotProduct(a, b []float32) float32 {
	var dotProduct float32
	for i := range a {
		dotProduct += a[i] * b[i]
	}
	return dotProduct
}

func normalizeVector(v []float32) []float32 {
	var norm float32
	for _, val := range v {
		norm += val * val
	}
	norm = float32(math.Sqrt(float64(norm)))
	res := make([]float32, len(v))
	for i, val := range v {
		res[i] = val / norm
	}
	return res
}

func isNormalized(v []float32) bool {
	var sqSum float64
	for _, val := range v {
		sqSum += float64(val) * float64(val)
	}
	magnitude := math.Sqrt(sqSum)
	return math.Abs(magnitude-1) < isNormalizedPrecisionTolerance
}

// worstFirst is a heap of hits whose root is the one to drop first: the last by byRank.
type worstFirst []Hit

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return byRank(h[i], h[j]) > 0 }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
