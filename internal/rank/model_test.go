package rank

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// The shipped model scores as its trainer did: testdata/predictions.json holds xgboost's margins for
// held-back candidates and definitions, written when the model was trained.
func TestMarginsEqualTheTrainers(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/predictions.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		File, Def struct {
			X      [][]*float64
			Margin []float64
		}
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		trees *Trees
		x     [][]*float64
		want  []float64
	}{"file": {&m.File, want.File.X, want.File.Margin}, "def": {&m.Def, want.Def.X, want.Def.Margin}} {
		if len(c.x) < 100 || len(c.x) != len(c.want) {
			t.Fatalf("%s: %d rows and %d margins", name, len(c.x), len(c.want))
		}
		names, pos := FileFeatures, Index(FileFeatures)
		if name == "def" {
			names, pos = DefFeatures, Index(DefFeatures)
		}
		for i, row := range c.x {
			// the trainer's rows are in the model's feature order; this build's vectors in its own
			x := make([]float64, len(names))
			for k, v := range row {
				at := pos[c.trees.Features[k]]
				x[at] = math.NaN()
				if v != nil {
					x[at] = *v
				}
			}
			if got := c.trees.Margin(x); math.Abs(got-c.want[i]) > 1e-6 {
				t.Errorf("%s row %d: margin %.9g, the trainer's %.9g", name, i, got, c.want[i])
			}
		}
	}
}

func TestFilesAreOrderedAndCalibrated(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	strong := make([]float64, len(FileFeatures))
	weak := make([]float64, len(FileFeatures))
	pos := Index(FileFeatures)
	for _, f := range []string{"symbols_rr", "symbols_score", "bm25_rr", "bm25_score", "fused_rr", "fused_rel", "is_code"} {
		strong[pos[f]] = 1
	}
	weak[pos["is_test"]] = 1
	weak[pos["fused_rr"]] = 1.0 / 40
	got := m.Files([][]float64{weak, strong})
	if got[0].Index != 1 {
		t.Fatalf("a file every signal puts first ranks after a test no signal found: %+v", got)
	}
	for _, s := range got {
		if !(s.Prob > 0 && s.Prob < 1) {
			t.Errorf("probability %v out of (0, 1)", s.Prob)
		}
	}
	if got[0].Prob <= got[1].Prob {
		t.Errorf("the better file is the less likely: %+v", got)
	}
}

// A file's definitions are ranked among themselves: the one the evidence names comes first, and
// the probabilities fall with the order.
func TestDefsAreOrderedAndCalibrated(t *testing.T) {
	m, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	pos := Index(DefFeatures)
	def := func(set ...string) []float64 {
		x := make([]float64, len(DefFeatures))
		x[pos["kind_function"]] = 1
		for _, f := range set {
			x[pos[f]] = 1
		}
		return x
	}
	got := m.Defs([][]float64{def(), def(), def("symbols", "name_named", "line_hit", "line_rr", "def_rank"), def()})
	if got[0].Index != 2 {
		t.Fatalf("the definition the text names and a frame points at is not first: %+v", got)
	}
	for k, s := range got {
		if !(s.Prob > 0 && s.Prob < 1) {
			t.Errorf("probability %v out of (0, 1)", s.Prob)
		}
		if k > 0 && s.Prob > got[k-1].Prob {
			t.Errorf("definition %d is likelier than the one before it: %+v", k, got)
		}
	}
	if got[0].Prob < 2*got[1].Prob {
		t.Errorf("the named definition is not clearly likelier than its unnamed siblings: %+v", got)
	}
}

// A model file whose definition calibration has one coefficient (each definition judged alone)
// still loads and scores.
func TestParseReadsAOneInputDefinitionCalibration(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(modelJSON, &m); err != nil {
		t.Fatal(err)
	}
	m["def_calibration"] = map[string]any{"coef": []float64{0.8}, "intercept": -0.1}
	b, _ := json.Marshal(m)
	old, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(DefFeatures))
	got := old.Defs([][]float64{x})
	if want := 1 / (1 + math.Exp(-(0.8*got[0].Score - 0.1))); math.Abs(got[0].Prob-want) > 1e-12 {
		t.Fatalf("probability %v, want %v", got[0].Prob, want)
	}
	m["def_calibration"] = map[string]any{"coef": []float64{0.8, 0.1}, "intercept": -0.1}
	b, _ = json.Marshal(m)
	if _, err := Parse(b); err == nil {
		t.Fatal("a calibration of two coefficients was accepted")
	}
}

func TestParseRefusesAModelOfOtherFeatures(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal(modelJSON, &m); err != nil {
		t.Fatal(err)
	}
	feats := m["file"].(map[string]any)["features"].([]any)
	feats[0] = "no_such_feature"
	b, _ := json.Marshal(m)
	if _, err := Parse(b); err == nil {
		t.Fatal("a model of other features was accepted")
	}
	if _, err := Parse([]byte("{")); err == nil {
		t.Fatal("a broken model file was accepted")
	}
}

// BenchmarkFiles scores 300 candidates with the shipped model: the learned ranker's share of a query.
func BenchmarkFiles(b *testing.B) {
	m, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	xs := make([][]float64, 300)
	for i := range xs {
		xs[i] = make([]float64, len(FileFeatures))
		for k := range xs[i] {
			xs[i][k] = float64((i*31+k*17)%97) / 97
		}
	}
	b.ResetTimer()
	for range b.N {
		m.Files(xs)
	}
}
