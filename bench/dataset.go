// Package bench measures ctxmap on real issues: the quality of its packs against the files and
// functions the fixes changed, side by side with a whole-file BM25 baseline and with each ranking
// signal switched off, and the speed of indexing, updates and queries on a real tree.
package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Instance is one issue of the dataset (one JSON line).
type Instance struct {
	ID               string   `json:"instance_id"`
	Repo             string   `json:"repo"`
	BaseCommit       string   `json:"base_commit"`
	ProblemStatement string   `json:"problem_statement"`
	GoldFiles        []string `json:"gold_files"`
	GoldFunctions    []string `json:"gold_functions"`
	GoldFunctionsSrc []string `json:"gold_functions_src"`
	Language         string   `json:"language"`
	Line             int      `json:"-"`
}

// LineError is a dataset line that could not be read; the run goes on without it.
type LineError struct {
	Line int    `json:"line"`
	Err  string `json:"error"`
}

// LoadDataset reads a JSONL file of instances.
func LoadDataset(path string) ([]Instance, []LineError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	rows, bad, err := ReadDataset(f)
	if err != nil {
		return nil, nil, fmt.Errorf("read dataset %s: %w", path, err)
	}
	return rows, bad, nil
}

// ReadDataset reads instances the way the work-tree tools do: blank lines are ignored, a line that is
// not a JSON object with an instance_id and a repo is reported, rows whose checkout_ready is falsy
// are left out, and the rest come back sorted by instance_id.
func ReadDataset(r io.Reader) ([]Instance, []LineError, error) {
	var rows []Instance
	var bad []LineError
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			row, ready, perr := parseLine(line)
			switch {
			case perr != nil:
				bad = append(bad, LineError{Line: n, Err: perr.Error()})
			case ready:
				row.Line = n
				rows = append(rows, row)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	return rows, bad, nil
}

func parseLine(line []byte) (Instance, bool, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return Instance{}, false, fmt.Errorf("not a JSON object: %w", err)
	}
	var row Instance
	if err := json.Unmarshal(line, &row); err != nil {
		return Instance{}, false, fmt.Errorf("bad field: %w", err)
	}
	if row.ID == "" {
		return Instance{}, false, fmt.Errorf("no instance_id")
	}
	if row.Repo == "" {
		return Instance{}, false, fmt.Errorf("%s: no repo", row.ID)
	}
	ready := true
	if raw, ok := fields["checkout_ready"]; ok {
		ready = truthy(raw)
	}
	return row, ready, nil
}

// truthy is Python's truth of a JSON value: null, false, 0, "", [] and {} are false.
func truthy(raw json.RawMessage) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// Selection picks instances: Repos is a comma-separated owner/name list ("" keeps every repository),
// PerRepo and Limit bound the count per repository and in all (0: no bound).
type Selection struct {
	Repos   string
	PerRepo int
	Limit   int
}

// Select keeps the rows of the wanted repositories (ignoring case), at most PerRepo of each and Limit in
// all, in instance_id order: the same rows as the work-tree tool's selection.
func Select(rows []Instance, sel Selection) []Instance {
	var wanted map[string]bool
	if sel.Repos != "" {
		wanted = map[string]bool{}
		for _, r := range strings.Split(sel.Repos, ",") {
			if r = strings.ToLower(strings.TrimSpace(r)); r != "" {
				wanted[r] = true
			}
		}
	}
	sorted := append([]Instance(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	seen := map[string]int{}
	var out []Instance
	for _, row := range sorted {
		repo := strings.ToLower(row.Repo)
		if wanted != nil && !wanted[repo] {
			continue
		}
		if sel.PerRepo > 0 && seen[repo] >= sel.PerRepo {
			continue
		}
		seen[repo]++
		out = append(out, row)
		if sel.Limit > 0 && len(out) >= sel.Limit {
			break
		}
	}
	return out
}

// GoldSymbols are the changed functions as path::Name, the ones read from the source when there are.
func (in Instance) GoldSymbols() []string {
	if len(in.GoldFunctionsSrc) > 0 {
		return in.GoldFunctionsSrc
	}
	return in.GoldFunctions
}

// WorktreeName is the folder of an instance's work tree: <owner>+<name>@<first 12 hex of the commit>.
func WorktreeName(in Instance) string {
	sha := in.BaseCommit
	if len(sha) > 12 {
		sha = sha[:12]
	}
	return strings.ReplaceAll(in.Repo, "/", "+") + "@" + sha
}

// FindWorktree returns the finished work tree of an instance under dir (the repository name matched
// ignoring case); a tree counts only once its ".done" marker sits beside it.
func FindWorktree(dir string, in Instance) (string, error) {
	if len(in.BaseCommit) < 12 {
		return "", fmt.Errorf("%s: base_commit %q is not a commit id", in.ID, in.BaseCommit)
	}
	name := WorktreeName(in)
	candidates := []string{filepath.Join(dir, name)}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if e.Name() != name && strings.EqualFold(e.Name(), name) {
				candidates = append(candidates, filepath.Join(dir, e.Name()))
			}
		}
	} else {
		return "", fmt.Errorf("work trees: %w", err)
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Stat(c + ".done"); err != nil {
			return "", fmt.Errorf("work tree %s is not finished (no %s.done)", c, filepath.Base(c))
		}
		return c, nil
	}
	return "", fmt.Errorf("no work tree %s under %s", name, dir)
}
