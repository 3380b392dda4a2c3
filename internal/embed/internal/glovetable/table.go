// Package glovetable reads and describes the packed word-vector table (glove.bin). Layout, all integers
// little-endian:
//
//	offset  size  field
//	0       8     magic "CTXGLV1\n"
//	8       4     uint32 N, number of words
//	12      4     uint32 D, dimension
//	16      4     uint32 V, byte length of the word list
//	20      V     N words in frequency order (rank 0 = most frequent), each followed by '\n'
//	..      0-3   zero padding so the scales start at a multiple of 4
//	..      4N    float32 scale of each word's vector
//	..      N*D   int8 components, word after word: component = scale * int8
package glovetable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// A table file starts with Magic and a header of HeaderSize bytes.
const (
	Magic      = "CTXGLV1\n"
	HeaderSize = 20
)

// Pad is the number of zero bytes after a word list of vocab bytes.
func Pad(vocab int) int { return (4 - (HeaderSize+vocab)%4) % 4 }

// Table reads vectors straight from the packed data: the words map's keys and the components are
// slices of it, so loading copies nothing but the map itself.
type Table struct {
	dim    int
	ranks  map[string]int32
	scales string
	comps  string
}

// Parse checks the layout of data and indexes its words.
func Parse(data string) (*Table, error) {
	if len(data) < HeaderSize || data[:len(Magic)] != Magic {
		return nil, errors.New("word table: bad magic")
	}
	n := int(binary.LittleEndian.Uint32([]byte(data[8:12])))
	dim := int(binary.LittleEndian.Uint32([]byte(data[12:16])))
	vocab := int(binary.LittleEndian.Uint32([]byte(data[16:20])))
	if n == 0 || dim == 0 || dim > 4096 || vocab < 2*n {
		return nil, fmt.Errorf("word table: bad header (words %d, dimension %d, word list %d bytes)", n, dim, vocab)
	}
	scalesAt := HeaderSize + vocab + Pad(vocab)
	compsAt := scalesAt + 4*n
	if want := compsAt + n*dim; len(data) != want {
		return nil, fmt.Errorf("word table: %d bytes, header says %d", len(data), want)
	}
	t := &Table{
		dim:    dim,
		ranks:  make(map[string]int32, n),
		scales: data[scalesAt:compsAt],
		comps:  data[compsAt:],
	}
	list := data[HeaderSize : HeaderSize+vocab]
	for rank := 0; rank < n; rank++ {
		end := strings.IndexByte(list, '\n')
		if end <= 0 {
			return nil, fmt.Errorf("word table: word %d of %d is empty or unterminated", rank, n)
		}
		w := list[:end]
		if _, dup := t.ranks[w]; dup {
			return nil, fmt.Errorf("word table: word %q twice", w)
		}
		t.ranks[w] = int32(rank)
		list = list[end+1:]
	}
	if list != "" {
		return nil, errors.New("word table: word list longer than its count")
	}
	for rank := 0; rank < n; rank++ {
		if s := t.scale(rank); math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) || s < 0 {
			return nil, fmt.Errorf("word table: word %d has scale %v", rank, s)
		}
	}
	return t, nil
}

// Dim is the number of components of a vector.
func (t *Table) Dim() int { return t.dim }

// Len is the number of words.
func (t *Table) Len() int { return len(t.ranks) }

// Rank returns a word's frequency rank, 0 for the most frequent.
func (t *Table) Rank(w string) (int, bool) {
	r, ok := t.ranks[w]
	return int(r), ok
}

// AddScaled adds weight times the vector of the word at rank to dst (len Dim).
func (t *Table) AddScaled(dst []float32, rank int, weight float32) {
	f := weight * t.scale(rank)
	row := t.comps[rank*t.dim : (rank+1)*t.dim]
	for i := range dst[:t.dim] {
		dst[i] += f * float32(int8(row[i]))
	}
}

// Vector returns the dequantised vector of the word at rank.
func (t *Table) Vector(rank int) []float32 {
	v := make([]float32, t.dim)
	t.AddScaled(v, rank, 1)
	return v
}

func (t *Table) scale(rank int) float32 {
	b := t.scales[4*rank : 4*rank+4]
	return math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}
