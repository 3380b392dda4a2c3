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
	body.size(len(m.files))
	for p, ms := range m.files {
		body.str(p)
		body.size(len(ms))
		for _, x := range ms {
			body.size(int(x.entity))
			body.float(x.score)
		}
	}
	body.size(len(m.inferred))
	for p, is := range m.inferred {
		body.str(p)
		body.size(len(is))
		for _, x := range is {
			body.str(x.Term)
			body.float(x.Confidence)
		}
	}
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
	nfiles := r.size()
	m.files = make(map[string][]mention, nfiles)
	for range nfiles {
		p := r.str()
		ms := make([]mention, r.size())
		for i := range ms {
			e := r.number()
			if e >= len(m.Entities) {
				return nil, errDamaged
			}
			ms[i] = mention{entity: int32(e), score: r.float()}
		}
		m.files[p] = ms
	}
	m.inferred = map[string][]Inferred{}
	for range r.size() {
		p := r.str()
		is := make([]Inferred, r.size())
		for i := range is {
			is[i] = Inferred{Term: r.str(), Confidence: r.float()}
		}
		m.inferred[p] = is
	}
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
func (w *writer) list(l []string) {
	if l == nil {
		w.size(0)
		return
	}
	w.size(len(l) + 1)
	for _, s := range l {
		w.str(s)
	}
}

func (w *writer) relatedList(l []Related) {
	if l == nil {
		w.size(0)
		return
	}
	w.size(len(l) + 1)
	for _, x := range l {
		w.str(x.Name)
		w.float(x.Weight)
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

func (r *reader) list() []string {
	n := r.size()
	if n == 0 {
		return nil
	}
	l := make([]string, n-1)
	for i := range l {
		l[i] = r.str()
	}
	return l
}

func (r *reader) relatedList() []Related {
	n := r.size()
	if n == 0 {
		return nil
	}
	l := make([]Related, n-1)
	for i := range l {
		l[i] = Related{Name: r.str(), Weight: r.float()}
	}
	return l
}

func (r *reader) float() float64 { return r.Float() }

func (r *reader) flag() bool {
	b := r.Byte()
	if b > 1 {
		r.Fail()
	}
	return b == 1
}
