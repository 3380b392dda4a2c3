// Package rank decides what a pack holds, reading an index through a View: the signals that rank a
// query's files and their fusion over the reference graph (signals.go, graph.go), the evidence a pack
// always shows (evidence.go), the features the learned ranker reads (extract.go), its boosted trees and
// the calibration that turns a score into the probability that a fix touches a file or a definition
// (model.go), and the candidates a pack is made of (candidates.go, tight.go). Rank is the way in.
package rank

import (
	_ "embed"
	"encoding/json"
)

// features.json names the features of a (query, candidate file) pair and of a (query, definition)
// pair, in the models' order: the extraction (extract.go), the trainer and the model file agree
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
