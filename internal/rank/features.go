// Package rank holds the learned ranker: the features it reads, the boosted trees that score a query's
// candidate files and definitions, and the calibration that turns a score into the probability that a
// fix touches the file or the definition. The signals that produce the features are in package index.
package rank

import (
	_ "embed"
	"encoding/json"
)

// features.json names the features of a (query, candidate file) pair and of a (query, definition)
// pair, in the models' order: the extraction in package index, the trainer and the model file agree
// on it. Signal features come in pairs: the reciprocal rank in the signal's list (0 when absent) and
// its score.
//
//go:embed features.json
var featuresJSON []byte

// FileFeatures and DefFeatures are the features' names, in order.
var FileFeatures, DefFeatures = func() ([]string, []string) {
	var f struct{ File, Def []string }
	if err := json.Unmarshal(featuresJSON, &f); err != nil {
		panic("rank: features.json: " + err.Error()) // embedded: a test would have failed first
	}
	return f.File, f.Def
}()

// Index is a name -> position table for a feature list.
func Index(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}
