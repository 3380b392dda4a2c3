package mine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

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
	return o.eachRepo(ctx, repos, func(repo string) (int, error) { return mineReports(ctx, &o, repo, byRepo[repo]) })
}

func mineReports(ctx context.Context, o *Options, repo string, reports []Report) (int, error) {
	t, err := openTree(ctx, o, repo)
	if err != nil {
		return 0, err
	}
	defer t.close()
	type fix struct {
		Report
		parent string
		depth  int // commits the fix stands on: a fix after another stands on more
	}
	var fixes []fix
	for _, rp := range reports {
		parents, err := history.Output(ctx, t.wt, "log", "-1", "--format=%P", rp.Commit)
		if err == nil && len(strings.Fields(parents)) == 0 {
			err = fmt.Errorf("a root commit")
		}
		var depth string
		if err == nil {
			depth, err = history.Output(ctx, t.wt, "rev-list", "--count", rp.Commit)
		}
		if err != nil {
			o.Logf("%s %s: %v", repo, rp.Commit, err)
			continue
		}
		d, _ := strconv.Atoi(strings.TrimSpace(depth))
		fixes = append(fixes, fix{rp, strings.Fields(parents)[0], d})
	}
	sort.SliceStable(fixes, func(i, j int) bool { return fixes[i].depth < fixes[j].depth })
	n := 0
	for _, fx := range fixes {
		if ctx.Err() != nil {
			break
		}
		ix, err := t.at(ctx, fx.parent)
		if err != nil {
			return n, err
		}
		p, ok, err := askAgainst(ctx, ix, t.wt, fx.parent, fx.Commit, strings.TrimSpace(fx.Text))
		if err != nil {
			o.Logf("%s %s: %v", repo, fx.Commit, err)
			continue
		}
		if !ok {
			continue
		}
		p.Repo, p.Language, p.Snapshot, p.Shape = repo, repoLanguage(ix), fx.parent, "reported"
		if err := o.write(p); err != nil {
			return n, err
		}
		n++
	}
	return n, ctx.Err()
}
