package mine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/parse"
)

// Training pairs from version history: a commit's message is a query, the source files it changed and
// the definitions its diff touched are the answer. A repository is indexed at a snapshot and the
// commits after it are asked against that index; the next snapshot comes by an incremental update.

// Options configure mining.
type Options struct {
	Repos     []string // owner/name
	Mirrors   string   // bare repositories as MIRRORS/owner+name/repo
	Work      string   // work trees and caches go under it
	Snapshots int      // per repository
	Queries   int      // per snapshot
	Window    int      // first-parent commits after a snapshot that may be asked against it
	Out       io.Writer
	Logf      func(format string, args ...any)

	evidence map[string][]Evidence // by shape, for the closing report
}

// count notes the evidence a mined text carries.
func (o *Options) count(p *Pair) {
	if o.evidence == nil {
		o.evidence = map[string][]Evidence{}
	}
	o.evidence[p.Shape] = append(o.evidence[p.Shape], ReadEvidence(p.Text, p.GoldDefs))
}

// logEvidence reports the evidence the texts of each shape carried.
func (o *Options) logEvidence() {
	for _, shape := range []string{"commit", "issue", "reported"} {
		if len(o.evidence[shape]) > 0 {
			b, _ := json.Marshal(Rates(o.evidence[shape]))
			o.Logf("evidence in %s texts: %s", shape, b)
		}
	}
}

// Pair is one mined query with its candidates.
type Pair struct {
	Repo       string                    `json:"repo"`
	Language   string                    `json:"language"`
	Snapshot   string                    `json:"snapshot"`
	Commit     string                    `json:"commit"`
	PR         bool                      `json:"pr"`    // a squash or merge of a pull request: closest to an issue
	Shape      string                    `json:"shape"` // "commit": the message; "issue": with an issue's evidence added (synth.go); "reported": an issue's own text (reported.go)
	Text       string                    `json:"text"`
	GoldFiles  []string                  `json:"gold_files"`
	GoldDefs   []string                  `json:"gold_defs"` // path::Qualified.name
	Candidates []index.CandidateFeatures `json:"candidates"`
}

// PairCandidates is how many of the fused ranking's files a pair describes; the learned ranker
// re-orders as many at run time.
const PairCandidates = index.LearnedCandidates

// maxSourceFiles: a commit that changes more source files than this is a sweep, not a fix.
const maxSourceFiles = 15

// Run writes one JSON line per usable commit of each repository.
func Run(ctx context.Context, o Options) (int, error) {
	return o.eachRepo(ctx, o.Repos, func(repo string) (int, error) { return mineRepo(ctx, &o, repo) })
}

// eachRepo mines each repository in turn, and says what stopped one before going on to the next.
func (o *Options) eachRepo(ctx context.Context, repos []string, mine func(repo string) (int, error)) (int, error) {
	total := 0
	defer o.logEvidence()
	for _, repo := range repos {
		n, err := mine(repo)
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

// write writes one pair as a JSON line.
func (o *Options) write(p *Pair) error {
	b, _ := json.Marshal(p)
	if _, err := o.Out.Write(append(b, '\n')); err != nil {
		return err
	}
	o.count(p)
	return nil
}

// tree is a repository's work tree and index, taken from snapshot to snapshot.
type tree struct {
	repo, mirror, wt, cache string
	ix                      *index.Index
	logf                    func(format string, args ...any)
}

// openTree makes the work tree of a repository whose mirror is under o.Mirrors.
func openTree(ctx context.Context, o *Options, repo string) (*tree, error) {
	key := strings.ReplaceAll(repo, "/", "+")
	t := &tree{repo: repo, mirror: filepath.Join(o.Mirrors, key, "repo"), wt: filepath.Join(o.Work, "trees", key),
		cache: filepath.Join(o.Work, "cache", key), logf: o.Logf}
	if _, err := os.Stat(t.mirror); err != nil {
		return nil, fmt.Errorf("no mirror at %s", t.mirror)
	}
	return t, prepareTree(ctx, t.wt, t.mirror)
}

// at checks out commit and brings the index to it: built the first time, updated after.
func (t *tree) at(ctx context.Context, commit string) (*index.Index, error) {
	if _, err := history.Output(ctx, t.wt, "checkout", "-q", "-f", "--detach", commit); err != nil {
		return nil, err
	}
	if t.ix == nil {
		ix, err := index.Open(ctx, index.Options{Root: t.wt, CacheDir: t.cache, Config: &index.Config{}})
		if err != nil {
			return nil, err
		}
		t.ix = ix
	}
	start := time.Now()
	st, err := t.ix.Build(ctx, nil)
	if err != nil {
		return nil, err
	}
	t.ix.WaitVectors()
	t.logf("%s @%s: %d files indexed in %.1fs", t.repo, commit[:12], st.Files, time.Since(start).Seconds())
	return t.ix, nil
}

func (t *tree) close() {
	if t.ix != nil {
		t.ix.Close()
	}
}

func mineRepo(ctx context.Context, o *Options, repo string) (int, error) {
	t, err := openTree(ctx, o, repo)
	if err != nil {
		return 0, err
	}
	defer t.close()
	list, err := history.Output(ctx, t.mirror, "rev-list", "--first-parent", "--max-count=4000", "HEAD")
	if err != nil {
		return 0, err
	}
	commits := strings.Fields(list)
	for i, j := 0, len(commits)-1; i < j; i, j = i+1, j-1 { // oldest first
		commits[i], commits[j] = commits[j], commits[i]
	}
	if len(commits) < o.Window+2 {
		return 0, fmt.Errorf("only %d commits", len(commits))
	}
	n := 0
	// snapshots spread over the history, the last one a window before HEAD
	span := (len(commits) - o.Window - 1) / o.Snapshots
	for k := 0; k < o.Snapshots; k++ {
		at := len(commits) - o.Window - 1 - (o.Snapshots-1-k)*span
		if at < 0 {
			continue
		}
		snap := commits[at]
		ix, err := t.at(ctx, snap)
		if err != nil {
			return n, err
		}
		asked := 0
		for _, c := range commits[at+1 : min(len(commits), at+1+o.Window)] {
			if asked >= o.Queries || ctx.Err() != nil {
				break
			}
			p, ok, err := minePair(ctx, ix, t.wt, c)
			if err != nil {
				o.Logf("%s %s: %v", repo, c[:12], err)
				continue
			}
			if !ok {
				continue
			}
			p.Repo, p.Language, p.Snapshot, p.Shape = repo, repoLanguage(ix), snap, "commit"
			out := []*Pair{p}
			if v, ok, err := askIssueShaped(ctx, ix, p); err != nil {
				o.Logf("%s %s: issue-shaped: %v", repo, c[:12], err)
			} else if ok {
				out = append(out, v)
			}
			for _, q := range out {
				if err := o.write(q); err != nil {
					return n, err
				}
				n++
			}
			asked++
		}
	}
	return n, ctx.Err()
}

// askIssueShaped asks the commit again as an issue would (synth.go), seeded by the commit, so that
// mining again gives the same text.
func askIssueShaped(ctx context.Context, ix *index.Index, p *Pair) (*Pair, bool, error) {
	seed, _ := strconv.ParseInt(p.Commit[:15], 16, 64)
	text, ok := issueShaped(rand.New(rand.NewSource(seed)), ix.Snapshot(), p.Text, p.GoldDefs)
	if !ok {
		return nil, false, nil
	}
	isGold := map[string]bool{}
	for _, g := range p.GoldFiles {
		isGold[g] = true
	}
	cands, err := ix.Features(ctx, text, PairCandidates, func(path string, rank int) bool { return isGold[path] || rank < 3 })
	if err != nil {
		return nil, false, err
	}
	RoundFeatures(cands)
	v := *p
	v.Shape, v.Text, v.Candidates = "issue", text, cands
	return &v, true, nil
}

// prepareTree makes a git work tree that borrows the mirror's objects, so that a snapshot has the
// history a user at that commit has.
func prepareTree(ctx context.Context, wt, mirror string) error {
	if _, err := os.Stat(filepath.Join(wt, ".git")); err == nil {
		return nil
	}
	if err := os.MkdirAll(wt, 0o755); err != nil {
		return err
	}
	if _, err := history.Output(ctx, wt, "init", "-q"); err != nil {
		return err
	}
	abs, err := filepath.Abs(filepath.Join(mirror, "objects"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(wt, ".git", "objects", "info", "alternates"), []byte(abs+"\n"), 0o644)
}

var (
	botAuthor   = regexp.MustCompile(`(?i)\[bot\]|dependabot|renovate|github-actions|greenkeeper`)
	noiseSubj   = regexp.MustCompile(`(?i)^(merge (branch|remote-tracking|tag)|revert |release|bump|prepare|v?\d+\.\d+|version |update (the )?(changelog|version|deps|dependencies|copyright)|(chore|build|ci)\((deps|release)|.*\b(reformat|gofmt|prettier|rustfmt|clang-format|black|isort)\b|(fix )?typos?\b|changelog|docs?:)`)
	mergePR     = regexp.MustCompile(`^Merge pull request #\d+ from \S+`)
	squashPR    = regexp.MustCompile(`\(#\d+\)\s*$`)
	trailerLine = regexp.MustCompile(`(?im)^(signed-off-by|co-authored-by|reviewed-by|acked-by|change-id|cc|reported-by|tested-by|suggested-by|helped-by):.*$`)
	hunkHeader  = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+`)
)

// minePair reads one commit: its message (or why it is no query) and what it changed.
func minePair(ctx context.Context, ix *index.Index, wt, c string) (*Pair, bool, error) {
	meta, err := history.Output(ctx, wt, "log", "-1", "--format=%an%x1f%ae%x1f%P%x1f%s%x1f%b", c)
	if err != nil {
		return nil, false, err
	}
	f := strings.SplitN(meta, "\x1f", 5)
	if len(f) < 5 || botAuthor.MatchString(f[0]+" "+f[1]) {
		return nil, false, nil
	}
	parents := strings.Fields(f[2])
	if len(parents) == 0 {
		return nil, false, nil
	}
	subject, body := strings.TrimSpace(f[3]), strings.TrimSpace(trailerLine.ReplaceAllString(f[4], ""))
	pr := squashPR.MatchString(subject)
	if mergePR.MatchString(subject) {
		subject, body, pr = body, "", true
	}
	if noiseSubj.MatchString(subject) {
		return nil, false, nil
	}
	text := strings.TrimSpace(subject + "\n\n" + body)
	if len(strings.Fields(text)) < 3 || len(text) > 8000 {
		return nil, false, nil
	}
	p, ok, err := askAgainst(ctx, ix, wt, parents[0], c, text)
	if p != nil {
		p.PR = pr
	}
	return p, ok, err
}

// askAgainst asks text against the index of the snapshot at parent, with what commit c changed from
// parent as the answer; a commit that changes no indexed code file, or a sweep, is no pair.
func askAgainst(ctx context.Context, ix *index.Index, wt, parent, c, text string) (*Pair, bool, error) {
	names, err := history.Output(ctx, wt, "diff-tree", "-r", "--no-commit-id", "--name-only", "--no-renames", parent, c)
	if err != nil {
		return nil, false, err
	}
	snap := ix.Snapshot()
	var gold []string
	source := 0
	for _, p := range strings.Split(strings.TrimSpace(names), "\n") {
		if !index.IsCode(p) {
			continue
		}
		source++
		if rec := snap.Record(p); rec != nil && rec.File != nil {
			gold = append(gold, p)
		}
	}
	if source > maxSourceFiles || len(gold) == 0 {
		return nil, false, nil
	}
	defs, err := changedDefs(ctx, wt, parent, c, gold)
	if err != nil {
		return nil, false, err
	}
	isGold := map[string]bool{}
	for _, g := range gold {
		isGold[g] = true
	}
	cands, err := ix.Features(ctx, text, PairCandidates, func(p string, rank int) bool { return isGold[p] || rank < 3 })
	if err != nil {
		return nil, false, err
	}
	RoundFeatures(cands)
	if defs == nil {
		defs = []string{}
	}
	return &Pair{Commit: c, Text: text, GoldFiles: gold, GoldDefs: defs, Candidates: cands}, true, nil
}

// changedDefs are the innermost definitions, in the parent's version of each file, around the lines
// the commit changed (for an insertion, the lines either side of it).
func changedDefs(ctx context.Context, wt, parent, c string, files []string) ([]string, error) {
	p := parse.NewParser()
	defer p.Close()
	var out []string
	for _, file := range files {
		diff, err := history.Output(ctx, wt, "diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", parent, c, "--", file)
		if err != nil {
			return nil, err
		}
		var lines []int
		sc := bufio.NewScanner(strings.NewReader(diff))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			m := hunkHeader.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			start, _ := strconv.Atoi(m[1])
			count := 1
			if m[2] != "" {
				count, _ = strconv.Atoi(m[2])
			}
			if count == 0 { // an insertion after line start
				lines = append(lines, start, start+1)
			}
			for l := start; l < start+count; l++ {
				lines = append(lines, l)
			}
		}
		src, err := history.Output(ctx, wt, "show", parent+":"+file)
		if err != nil {
			continue
		}
		pf, err := p.Parse(ctx, file, []byte(src))
		if err != nil || pf == nil {
			continue
		}
		seen := map[string]bool{}
		for _, l := range lines {
			best, size := -1, 1<<30
			for i, d := range pf.Definitions {
				if d.Kind != "section" && d.StartLine <= l && l <= d.EndLine && d.EndLine-d.StartLine < size {
					best, size = i, d.EndLine-d.StartLine
				}
			}
			if best < 0 {
				continue
			}
			d := pf.Definitions[best]
			name := d.Name
			if d.Parent != "" {
				name = d.Parent + "." + d.Name
			}
			if key := file + "::" + name; !seen[key] {
				seen[key] = true
				out = append(out, key)
			}
		}
	}
	return out, nil
}

// repoLanguage is the language most of the workspace's indexed files are in.
func repoLanguage(ix *index.Index) string {
	counts := map[string]int{}
	best, n := "", 0
	for _, p := range ix.Snapshot().Paths {
		if !index.IsCode(p) {
			continue
		}
		l := parse.LanguageOf(p)
		counts[l]++
		if counts[l] > n {
			best, n = l, counts[l]
		}
	}
	return best
}

// RoundFeatures keeps four decimals of every feature of cands: the pairs are large.
func RoundFeatures(cands []index.CandidateFeatures) {
	for i := range cands {
		round(cands[i].X)
		for k := range cands[i].Defs {
			round(cands[i].Defs[k].X)
		}
	}
}

// round keeps four decimals: the pairs are large, and the trees need no finer steps.
func round(x []float64) {
	for i, v := range x {
		x[i] = math.Round(v*1e4) / 1e4
	}
}
