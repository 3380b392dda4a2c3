package entity

import (
	"errors"

	"github.com/ctxmap/ctxmap/internal/codec"
)

// The index's state file keeps the entity map, so that a process answering one query does not
// aggregate the workspace again. Every string (names, terms, paths) is written once, in a table,
// and named by its number after that: a map names each file many times.

// MarshalBinary encodes the map for UnmarshalMap.
func (m *Map) MarshalBinary() ([]byte, error) {
	// the body first, to number the strings; the table goes in front of it
	var strs []string
	w := writer{num: map[string]int{}, strs: &strs}
	body := writer{num: w.num, strs: &strs}
	body.size(len(m.Entities))
	for _, e := range m.Entities {
		body.str(e.Name)
		body.list(e.Terms)
		body.float(e.Importance)
		body.str(e.Centrality)
		body.list(e.Files)
		body.list(e.Modules)
		body.relatedList(e.Related)
		body.list(e.BusinessTerms)
		body.float(e.Confidence)
		body.flag(e.Inferred)
	}
	writeByPath(&body, m.files, func(x mention) { body.size(int(x.entity)); body.float(x.score) })
	writeByPath(&body, m.inferred, func(x Inferred) { body.str(x.Term); body.float(x.Confidence) })
	w.size(len(strs))
	for _, s := range strs {
		w.Str(s)
	}
	return append(w.B, body.B...), nil
}

// UnmarshalMap decodes what MarshalBinary wrote.
func UnmarshalMap(b []byte) (*Map, error) {
	r := reader{Reader: codec.Reader{B: b}}
	r.strs = make([]string, r.size())
	for i := range r.strs {
		r.strs[i] = r.Reader.Str()
	}
	m := &Map{
		byName:  map[string]*Entity{},
		byWords: map[string]*Entity{},
		joined:  map[string]*Entity{},
		byTerm:  map[string][]*Entity{},
		heads:   map[string][]*Entity{},
	}
	m.Entities = make([]*Entity, r.size())
	for i := range m.Entities {
		m.Entities[i] = &Entity{Name: r.str(), Terms: r.list(), Importance: r.float(), Centrality: r.str(), Files: r.list(),
			Modules: r.list(), Related: r.relatedList(), BusinessTerms: r.list(), Confidence: r.float(), Inferred: r.flag()}
	}
	m.files = readByPath(&r, func() mention {
		e := r.number()
		if e >= len(m.Entities) {
			r.Fail()
		}
		return mention{entity: int32(e), score: r.float()}
	})
	m.inferred = readByPath(&r, func() Inferred { return Inferred{Term: r.str(), Confidence: r.float()} })
	if r.Bad || len(r.B) > 0 {
		return nil, errDamaged
	}
	m.index()
	return m, nil
}

var errDamaged = errors.New("an entity map is cut short or damaged")

// writer numbers the strings it writes: a string is written once, in the table, and named by its
// number after that.
type writer struct {
	codec.Writer
	num  map[string]int
	strs *[]string
}

func (w *writer) size(n int) { w.Size(n) }

func (w *writer) str(s string) {
	i, ok := w.num[s]
	if !ok {
		i = len(*w.strs)
		w.num[s] = i
		*w.strs = append(*w.strs, s)
	}
	w.size(i)
}

// list writes a list of strings; nil and empty differ (0 and 1, then the length plus one).
func (w *writer) list(l []string) { writeList(w, l, w.str) }

func (w *writer) relatedList(l []Related) {
	writeList(w, l, func(x Related) { w.str(x.Name); w.float(x.Weight) })
}

// writeList writes 0 for a nil list, else its length plus one and then each element with write.
func writeList[T any](w *writer, l []T, write func(T)) {
	if l == nil {
		w.size(0)
		return
	}
	w.size(len(l) + 1)
	for _, x := range l {
		write(x)
	}
}

// writeByPath writes a map of lists by path: its length, then each path and its list.
func writeByPath[T any](w *writer, m map[string][]T, write func(T)) {
	w.size(len(m))
	for p, l := range m {
		w.str(p)
		codec.List(&w.Writer, l, write)
	}
}

func (w *writer) float(f float64) { w.Float(f) }

func (w *writer) flag(f bool) { w.Flags(f) }

// reader reads what writer wrote, strings by their number in the table.
type reader struct {
	codec.Reader
	strs []string
}

func (r *reader) size() int { return r.Size() }

// number is an entity's or a string's number: unlike a size, not bounded by the bytes left.
func (r *reader) number() int { return r.Number() }

func (r *reader) str() string {
	i := r.number()
	if i >= len(r.strs) {
		r.Fail()
		return ""
	}
	return r.strs[i]
}

func (r *reader) list() []string { return readList(r, r.str) }

func (r *reader) relatedList() []Related {
	return readList(r, func() Related { return Related{Name: r.str(), Weight: r.float()} })
}

// readList reads what writeList wrote, each element with read.
func readList[T any](r *reader, read func() T) []T {
	n := r.size()
	if n == 0 {
		return nil
	}
	l := make([]T, n-1)
	for i := range l {
		l[i] = read()
	}
	return l
}

// readByPath reads what writeByPath wrote.
func readByPath[T any](r *reader, read func() T) map[string][]T {
	n := r.size()
	m := make(map[string][]T, n)
	for range n {
		p := r.str()
		l := make([]T, r.size())
		for i := range l {
			l[i] = read()
		}
		m[p] = l
	}
	return m
}

func (r *reader) float() float64 { return r.Float() }

func (r *reader) flag() bool {
	b := r.Byte()
	if b > 1 {
		r.Fail()
	}
	return b == 1
}
