package mine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/history"
)

// Reported pairs: an issue as its reporter wrote it, asked at the parent of the commit that fixed it.
// They are the texts closest to what the ranker is asked; commit messages and issue-shaped commits
// are many more.

// Report is an issue's text and the commit that fixed it.
type Report struct {
	Repo   string `json:"repo"` // owner/name
	Commit string `json:"commit"`
	Text   string `json:"text"`
}

// ReadReports reads one Report per JSON line.
func ReadReports(r io.Reader) ([]Report, error) {
	var out []Report
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var rp Report
		if err := json.Unmarshal([]byte(line), &rp); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if rp.Repo == "" || rp.Commit == "" || strings.TrimSpace(rp.Text) == "" {
			return nil, fmt.Errorf("line %d: a report needs repo, commit and text", n)
		}
		out = append(out, rp)
	}
	return out, sc.Err()
}

// RunReports writes one pair, shape "reported", per report whose fix changed indexed code. The
// reports of a repository are asked in the order of their fixes, so that each snapshot comes by an
// incremental update of the one before.
func RunReports(ctx context.Context, o Options, reports []Report) (int, error) {
	byRepo := map[string][]Report{}
	var repos []string
	for _, rp := range reports {
		if byRepo[rp.Repo] == nil {
			repos = append(repos, rp.Repo)
		}
		byRepo[rp.Repo] = append(byRepo[rp.Repo], rp)
	}
	total := 0
	defer o.logEvidence()
	for _, repo := range repos {
		n, err := mineReports(ctx, &o, repo, byRepo[repo])
		total += n
		if err != nil {
			if ctx.Err() != nil {
				return total, err
			}
			o.Logf("%s: %v", repo, err)
		}
	}
	return total, nil
}

func mineReports(ctx context.Context, o *Options, repo string, reports []Report) (int, error) {
	key := strings.ReplaceAll(repo, "/", "+")
	mirror := filepath.Join(o.Mirrors, key, "repo")
	if _, err := os.Stat(mirror); err != nil {
		return 0, fmt.Errorf("no mirror at %s", mirror)
	}
	wt := filepath.Join(o.Work, "trees", key)
	if err := prepareTree(ctx, wt, mirror); err != nil {
		return 0, err
	}
	type fix struct {
		Report
		parent string
		depth  int // commits the fix stands on: a fix after another stands on more
	}
	var fixes []fix
	for _, rp := range reports {
		parents, err := history.Output(ctx, wt, "log", "-1", "--format=%P", rp.Commit)
		if err == nil && len(strings.Fields(parents)) == 0 {
			err = fmt.Errorf("a root commit")
		}
		var depth string
		if err == nil {
			depth, err = history.Output(ctx, wt, "rev-list", "--count", rp.Commit)
		}
		if err != nil {
			o.Logf("%s %s: %v", repo, rp.Commit, err)
			continue
		}
		d, _ := strconv.Atoi(strings.TrimSpace(depth))
		fixes = append(fixes, fix{rp, strings.Fields(parents)[0], d})
	}
	sort.SliceStable(fixes, func(i, j int) bool { return fixes[i].depth < fixes[j].depth })
	var ix *index.Index
	defer func() {
		if ix != nil {
			ix.Close()
		}
	}()
	n := 0
	for _, fx := range fixes {
		if ctx.Err() != nil {
			break
		}
		if _, err := history.Output(ctx, wt, "checkout", "-q", "-f", "--detach", fx.parent); err != nil {
			return n, err
		}
		if ix == nil {
			var err error
			ix, err = index.Open(ctx, index.Options{Root: wt, CacheDir: filepath.Join(o.Work, "cache", key), Config: &index.Config{}})
			if err != nil {
				return n, err
			}
		}
		start := time.Now()
		st, err := ix.Build(ctx, nil)
		if err != nil {
			return n, err
		}
		ix.WaitVectors()
		o.Logf("%s @%s: %d files indexed in %.1fs", repo, fx.parent[:12], st.Files, time.Since(start).Seconds())
		p, ok, err := askAgainst(ctx, ix, wt, fx.parent, fx.Commit, strings.TrimSpace(fx.Text))
		if err != nil {
			o.Logf("%s %s: %v", repo, fx.Commit, err)
			continue
		}
		if !ok {
			continue
		}
		p.Repo, p.Language, p.Snapshot, p.Shape = repo, repoLanguage(ix), fx.parent, "reported"
		b, _ := json.Marshal(p)
		if _, err := o.Out.Write(append(b, '\n')); err != nil {
			return n, err
		}
		o.count(p)
		n++
	}
	return n, ctx.Err()
}
