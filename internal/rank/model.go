package rank

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// Trees is a boosted ensemble as the trainer exports it. For node i, Feature[i] < 0 marks a leaf whose
// value is Value[i]; otherwise x[Feature[i]] < Value[i] goes to Left[i], else to Right[i], and a
// missing value (NaN) to Left[i] when MissingLeft[i] is 1.
type Trees struct {
	Features []string `json:"features"`
	Base     float32  `json:"base"`
	Trees    []Tree   `json:"trees"`
}

// Tree is one regression tree of the ensemble, as arrays by node (see Trees for how they read).
type Tree struct {
	Left        []int32   `json:"left"`
	Right       []int32   `json:"right"`
	Feature     []int32   `json:"feature"`
	Value       []float32 `json:"value"`
	MissingLeft []uint8   `json:"missing_left"`
	nodes       []node    // the arrays above, node by node, made by check
}

// node is a tree node laid out for walking: one cache line holds several.
type node struct {
	feature     int32 // < 0: a leaf
	left, right int32
	value       float32
	missingLeft bool
}

// Margin is the ensemble's raw score of one feature vector. Features are compared as float32 and leaves
// added in float32 to the base, tree by tree, as the trainer does, so scores equal the trainer's.
func (t *Trees) Margin(x []float64) float64 {
	sum := t.Base
	for i := range t.Trees {
		sum += t.Trees[i].leaf(x)
	}
	return float64(sum)
}

func (t *Tree) leaf(x []float64) float32 {
	nodes := t.nodes
	n := &nodes[0]
	for n.feature >= 0 {
		v := x[n.feature]
		switch {
		case math.IsNaN(v):
			if n.missingLeft {
				n = &nodes[n.left]
			} else {
				n = &nodes[n.right]
			}
		case float32(v) < n.value:
			n = &nodes[n.left]
		default:
			n = &nodes[n.right]
		}
	}
	return n.value
}

// check validates the trees and points their splits at the positions of names, the features this
// build extracts: a model reads its features by name, so one trained before a feature was added loads.
func (t *Trees) check(names []string) error {
	at := make([]int32, len(t.Features))
	for i, f := range t.Features {
		k := slices.Index(names, f)
		if k < 0 {
			return fmt.Errorf("the model reads feature %q, which this build does not extract", f)
		}
		at[i] = int32(k)
	}
	for k := range t.Trees {
		tr := &t.Trees[k]
		n := len(tr.Feature)
		if n == 0 || len(tr.Left) != n || len(tr.Right) != n || len(tr.Value) != n || len(tr.MissingLeft) != n {
			return fmt.Errorf("tree %d: arrays of different lengths", k)
		}
		for i := range n {
			if f := tr.Feature[i]; f >= 0 && (int(f) >= len(at) || tr.Left[i] <= int32(i) || tr.Right[i] <= int32(i) ||
				int(tr.Left[i]) >= n || int(tr.Right[i]) >= n) {
				return fmt.Errorf("tree %d: node %d points outside the tree", k, i) // children follow parents: no loops
			}
		}
		tr.nodes = make([]node, n)
		for i := range n {
			f := tr.Feature[i]
			if f >= 0 {
				f = at[f]
			}
			tr.nodes[i] = node{feature: f, left: tr.Left[i], right: tr.Right[i], value: tr.Value[i], missingLeft: tr.MissingLeft[i] == 1}
		}
	}
	return nil
}

// Platt turns a score into a probability: the logistic of Coef · inputs + Intercept.
type Platt struct {
	Coef      []float64 `json:"coef"`
	Intercept float64   `json:"intercept"`
}

func (p Platt) prob(in ...float64) float64 {
	z := p.Intercept
	for i, c := range p.Coef {
		z += c * in[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// Model is the learned ranker: a file model whose scores order a query's candidates, a definition
// model for the definitions of a file, their calibrations, and the probability a file needs to be
// packed.
type Model struct {
	File            Trees   `json:"file"`
	FileCalibration Platt   `json:"file_calibration"`
	Def             Trees   `json:"def"`
	DefCalibration  Platt   `json:"def_calibration"`
	FileThreshold   float64 `json:"file_threshold"`
	Trained         struct {
		Pairs        int      `json:"pairs"`
		Repositories []string `json:"repositories"`
	} `json:"trained"`
}

// Parse reads a model file and checks it against the features this build extracts.
func Parse(b []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("read the model: %w", err)
	}
	if err := m.File.check(FileFeatures); err != nil {
		return nil, fmt.Errorf("file model: %w", err)
	}
	if err := m.Def.check(DefFeatures); err != nil {
		return nil, fmt.Errorf("definition model: %w", err)
	}
	if len(m.FileCalibration.Coef) != 3 || len(m.DefCalibration.Coef) != 1 && len(m.DefCalibration.Coef) != 3 {
		return nil, fmt.Errorf("calibration: want 3 file and 1 or 3 definition coefficients")
	}
	return &m, nil
}

//go:embed model.json
var modelJSON []byte

// Default is the model shipped in the binary, trained on the histories of other repositories
// (bench/train).
var Default = sync.OnceValues(func() (*Model, error) { return Parse(modelJSON) })

// Scored is a candidate with its score and its calibrated probability.
type Scored struct {
	Index int // in the input
	Score float64
	Prob  float64
}

// Files scores a query's candidate files and orders them, best first; ties keep the input order.
func (m *Model) Files(xs [][]float64) []Scored { return ranked(xs, &m.File, m.FileCalibration) }

// Defs scores a file's definitions and orders them, best first; Prob is the probability that a fix
// in this file changes the definition.
func (m *Model) Defs(xs [][]float64) []Scored { return ranked(xs, &m.Def, m.DefCalibration) }

// ranked scores rows with t and orders them, best first (ties keep the input order). A calibration of
// three coefficients reads a row's score, its gap to the best and its rank, as a choice among the rows;
// one of a single coefficient (an older model's definitions, each judged alone) reads the score.
func ranked(xs [][]float64, t *Trees, cal Platt) []Scored {
	out := make([]Scored, len(xs))
	for i, x := range xs {
		out[i] = Scored{Index: i, Score: t.Margin(x)}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	for k := range out {
		if len(cal.Coef) == 1 {
			out[k].Prob = cal.prob(out[k].Score)
			continue
		}
		out[k].Prob = cal.prob(out[k].Score, out[k].Score-out[0].Score, math.Log1p(float64(k)))
	}
	return out
}
