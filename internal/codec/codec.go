// Package codec is the one binary encoding of the index's files (the state file's records, its table
// and derived sections, the entity map; the vector file's lengths): numbers as varints, strings and
// lists with their length, floats and checksums at a fixed width. It is written field by field rather
// than by reflection because the state is read at every start, and a reader of damaged bytes fails
// without panicking or allocating more than the bytes it holds.
package codec

import (
	"encoding/binary"
	"math"
)

// Writer appends encoded values to B.
type Writer struct{ B []byte }

// Num writes a signed number as a varint.
func (w *Writer) Num(v int64) { w.B = binary.AppendVarint(w.B, v) }

// Int writes an int as a varint; Reader.Int reads it back only within 32 bits.
func (w *Writer) Int(v int) { w.Num(int64(v)) }

// Size writes a length or a count, which is never negative.
func (w *Writer) Size(n int) { w.B = binary.AppendUvarint(w.B, uint64(n)) }

// Str writes a string after its length.
func (w *Writer) Str(s string) { w.Size(len(s)); w.B = append(w.B, s...) }

// Strs writes strings one after the other, each as Str writes it.
func (w *Writer) Strs(s ...string) {
	for _, x := range s {
		w.Str(x)
	}
}

// Ints writes ints one after the other, each as Int writes it.
func (w *Writer) Ints(v ...int) {
	for _, x := range v {
		w.Int(x)
	}
}

// List writes a list's length, then each of its elements with write.
func List[T any](w *Writer, l []T, write func(T)) {
	w.Size(len(l))
	for _, x := range l {
		write(x)
	}
}

// Flags writes up to eight booleans as the bits of one byte, the first the lowest.
func (w *Writer) Flags(v ...bool) {
	var b byte
	for i, f := range v {
		if f {
			b |= 1 << i
		}
	}
	w.B = append(w.B, b)
}

// Float writes a float64's bits, big-endian.
func (w *Writer) Float(f float64) { w.B = binary.BigEndian.AppendUint64(w.B, math.Float64bits(f)) }

// Uint32 writes a fixed-width number (a checksum), big-endian.
func (w *Writer) Uint32(v uint32) { w.B = binary.BigEndian.AppendUint32(w.B, v) }

// Reader reads what a Writer wrote. The first fault (bytes cut short, a value out of range) sets Bad
// and empties the buffer, so every later read returns a zero value: a decoder checks Bad once, at
// the end.
type Reader struct {
	B   []byte
	Bad bool
	// Words, when set, shares short strings between reads: the kinds, languages and names a state
	// file repeats are kept once in memory.
	Words map[string]string
}

// Fail marks the input as damaged.
func (r *Reader) Fail() { r.Bad, r.B = true, nil }

// Num reads a varint.
func (r *Reader) Num() int64 {
	v, n := binary.Varint(r.B)
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Int reads a varint that must fit in 32 bits.
func (r *Reader) Int() int {
	v := r.Num()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.Fail()
		return 0
	}
	return int(v)
}

// Size reads a length or a count, bounded by the bytes left: a damaged length cannot make a huge
// allocation.
func (r *Reader) Size() int {
	v, n := binary.Uvarint(r.B)
	if n <= 0 || v > uint64(len(r.B)) {
		r.Fail()
		return 0
	}
	r.B = r.B[n:]
	return int(v)
}

// Number reads a count that refers to something else (an entry of a table), bounded by 32 bits
// rather than by the bytes left.
func (r *Reader) Number() int {
	v, n := binary.Uvarint(r.B)
	if n <= 0 || v > math.MaxInt32 {
		r.Fail()
		return 0
	}
	r.B = r.B[n:]
	return int(v)
}

// Str reads a string, shared through Words when it is short.
func (r *Reader) Str() string {
	n := r.Size()
	if n == 0 || r.Bad {
		return ""
	}
	if n > len(r.B) {
		r.Fail()
		return ""
	}
	b := r.B[:n]
	r.B = r.B[n:]
	if n <= 32 && r.Words != nil {
		if s, ok := r.Words[string(b)]; ok {
			return s
		}
		s := string(b)
		r.Words[s] = s
		return s
	}
	return string(b)
}

// ReadList reads what List wrote, each element with read; an empty list is nil.
func ReadList[T any](r *Reader, read func() T) []T {
	n := r.Size()
	if n == 0 {
		return nil
	}
	l := make([]T, n)
	for i := range l {
		l[i] = read()
	}
	return l
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.B) == 0 {
		r.Fail()
		return 0
	}
	c := r.B[0]
	r.B = r.B[1:]
	return c
}

// Flags reads what Writer.Flags wrote into v.
func (r *Reader) Flags(v ...*bool) {
	b := r.Byte()
	for i, f := range v {
		*f = b&(1<<i) != 0
	}
}

// Float reads a float64 written by Writer.Float.
func (r *Reader) Float() float64 {
	if len(r.B) < 8 {
		r.Fail()
		return 0
	}
	f := math.Float64frombits(binary.BigEndian.Uint64(r.B))
	r.B = r.B[8:]
	return f
}

// Uint32 reads a fixed-width number written by Writer.Uint32.
func (r *Reader) Uint32() uint32 {
	if len(r.B) < 4 {
		r.Fail()
		return 0
	}
	v := binary.BigEndian.Uint32(r.B)
	r.B = r.B[4:]
	return v
}
