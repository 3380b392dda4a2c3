package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxmap/ctxmap/index"
)

// Line metrics: how much of what each fix changed a pack shows verbatim, over the code gold files.
const (
	LineRecall     = "line_recall"     // changed lines shown verbatim / changed lines
	HunkAll        = "hunk_all"        // every hunk of the fix has a line shown
	CutLoss        = "cut_loss"        // changed lines inside an item's range but past what it shows / changed lines
	FileShown      = "file_shown"      // code gold files with a changed line shown / code gold files
	LineEfficiency = "line_efficiency" // line recall per 1,000 pack tokens
	// As SWE-Explore scores ranked regions: the items that show code, in pack order, each line once.
	LineRec100    = "line_rec@100"   // changed lines within the first 100 distinct lines shown / changed lines
	LineRec300    = "line_rec@300"   // ... the first 300
	LineRec500    = "line_rec@500"   // ... the first 500
	FirstUseful   = "first_useful"   // 1 - i/n for the first of n showing items that shows a changed line (0: none)
	LinePrecision = "line_precision" // changed lines shown / lines shown
)

// Changed are the line ranges a fix changed, per file: old side, 1-based, inclusive.
type Changed map[string][]index.Lines

// LoadChanged reads the lines each fix changed (dev-lines.jsonl: instance_id and files, path to
// ranges), keyed by instance id.
func LoadChanged(path string) (map[string]Changed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open the changed lines: %w", err)
	}
	defer f.Close()
	out := map[string]Changed{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var row struct {
			ID    string                   `json:"instance_id"`
			Files map[string][]index.Lines `json:"files"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if row.ID != "" {
			out[row.ID] = row.Files
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// changedBeside is the dataset's file of changed lines, when it has one: dev.jsonl -> dev-lines.jsonl.
func changedBeside(dataset string) string {
	p := strings.TrimSuffix(dataset, filepath.Ext(dataset)) + "-lines.jsonl"
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// LineMetrics scores what a pack's items show against the lines a fix changed, over its code files;
// nil when the fix changed no code line.
func LineMetrics(items []index.Item, tokens int, changed Changed) map[string]float64 {
	shown := map[string][]index.Lines{}
	spans := map[string][]index.Lines{}
	for _, it := range items {
		if it.Kind == OutlineKind || len(it.Shown) == 0 {
			continue
		}
		shown[it.Path] = append(shown[it.Path], it.Shown...)
		spans[it.Path] = append(spans[it.Path], index.Lines{it.StartLine, it.EndLine})
	}
	var lines, seen, cut, files, filesShown, hunks, hunksShown int
	for path, ranges := range changed {
		if !index.IsCode(path) || len(ranges) == 0 {
			continue
		}
		files++
		fileSeen := false
		counted := map[int]bool{}
		for _, r := range ranges {
			hunks++
			hunkSeen := false
			for l := r[0]; l <= r[1]; l++ {
				in := within(shown[path], l)
				hunkSeen = hunkSeen || in
				if counted[l] {
					continue
				}
				counted[l] = true
				lines++
				switch {
				case in:
					seen++
				case within(spans[path], l):
					cut++
				}
			}
			if hunkSeen {
				hunksShown++
				fileSeen = true
			}
		}
		if fileSeen {
			filesShown++
		}
	}
	if lines == 0 {
		return nil
	}
	m := map[string]float64{
		LineRecall: float64(seen) / float64(lines),
		CutLoss:    float64(cut) / float64(lines),
		HunkAll:    boolf(hunksShown == hunks),
		FileShown:  float64(filesShown) / float64(files),
	}
	if tokens > 0 {
		m[LineEfficiency] = m[LineRecall] * 1000 / float64(tokens)
	}
	maps.Copy(m, rankedLineMetrics(items, changed, lines))
	return m
}

// rankedLineMetrics reads the pack as a ranked list of line regions, as SWE-Explore does: how many of
// the total changed lines come within the first 100, 300 and 500 distinct lines shown, how early the
// first item that shows one comes, and the share of shown lines that changed.
func rankedLineMetrics(items []index.Item, changed Changed, total int) map[string]float64 {
	isChanged := func(path string, l int) bool { return index.IsCode(path) && within(changed[path], l) }
	type line struct {
		path string
		n    int
	}
	seen := map[line]bool{}
	var order []bool // each distinct shown line in pack order: whether the fix changed it
	showing, first := 0, -1
	for _, it := range items {
		if it.Kind == OutlineKind || len(it.Shown) == 0 {
			continue
		}
		hit := false
		for _, r := range it.Shown {
			for l := r[0]; l <= r[1]; l++ {
				if seen[line{it.Path, l}] {
					continue
				}
				seen[line{it.Path, l}] = true
				c := isChanged(it.Path, l)
				hit = hit || c
				order = append(order, c)
			}
		}
		if hit && first < 0 {
			first = showing
		}
		showing++
	}
	m := map[string]float64{FirstUseful: 0, LinePrecision: 0}
	for k, name := range map[int]string{100: LineRec100, 300: LineRec300, 500: LineRec500} {
		m[name] = changedIn(order[:min(k, len(order))]) / float64(total)
	}
	if first >= 0 {
		m[FirstUseful] = 1 - float64(first)/float64(showing)
	}
	if len(order) > 0 {
		m[LinePrecision] = changedIn(order) / float64(len(order))
	}
	return m
}

func within(ranges []index.Lines, l int) bool {
	for _, r := range ranges {
		if r[0] <= l && l <= r[1] {
			return true
		}
	}
	return false
}

// changedIn counts the changed lines among lines (each: whether the fix changed it).
func changedIn(lines []bool) float64 {
	n := 0
	for _, c := range lines {
		if c {
			n++
		}
	}
	return float64(n)
}
