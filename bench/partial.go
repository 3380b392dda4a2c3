package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// PartialReport is how the partial pack (a question before the index is whole, index.PartialContext)
// compares with the full index's pack on the same texts.
type PartialReport struct {
	Latency     Latency `json:"latency"`      // PartialContext on the tree, in this process
	Texts       int     `json:"texts"`        // texts asked
	FirstEqual  int     `json:"first_equal"`  // texts whose partial pack leads with the full pack's first file
	Gold        int     `json:"gold"`         // gold files of the issues (--issues), all told
	GoldPartial int     `json:"gold_partial"` // of them, in the partial pack
	GoldFull    int     `json:"gold_full"`    // of them, in the full pack
	// the same texts asked in turn of one index.Partial, each after the one before, as questions
	// during a build are (the first of them is a first partial pack, left out)
	Again           Latency `json:"again"`
	AgainFirstEqual int     `json:"again_first_equal"`
}

// partialIssue is a text to ask, with the files its fix changed when known.
type partialIssue struct {
	text string
	gold []string
}

// issuesOf reads the dataset's instances whose gold files are all in the tree (under prefix, the
// folder the repository sits in within a larger tree), at most n.
func issuesOf(path, root, prefix string, n int) ([]partialIssue, error) {
	ins, _, err := LoadDataset(path)
	if err != nil {
		return nil, err
	}
	var out []partialIssue
	for _, in := range ins {
		gold := make([]string, 0, len(in.GoldFiles))
		for _, g := range in.GoldFiles {
			gold = append(gold, prefix+g)
		}
		if len(out) < n && len(gold) > 0 && !slices.ContainsFunc(gold, func(g string) bool {
			_, err := os.Stat(filepath.Join(root, filepath.FromSlash(g)))
			return err != nil
		}) {
			out = append(out, partialIssue{text: in.ProblemStatement, gold: gold})
		}
	}
	return out, nil
}

// partialRun asks each text of a tree never indexed (a new index.Partial reads the files themselves), of one
// index.Partial asked each text in turn, and of the full index ix, and compares the packs.
func partialRun(ctx context.Context, root string, ix *index.Index, issues []partialIssue, budget int) (*PartialReport, error) {
	r := &PartialReport{Texts: len(issues)}
	q := index.NewPartial(index.Options{Root: root, Config: &index.Config{}})
	defer q.Close()
	var took, again []time.Duration
	for i, is := range issues {
		req := index.Request{Text: is.text, Budget: budget}
		start := time.Now()
		alone := index.NewPartial(index.Options{Root: root, Config: &index.Config{}})
		partial, err := index.Answer(ctx, alone, req)
		alone.Close()
		if err != nil {
			return nil, fmt.Errorf("partial pack: %w", err)
		}
		took = append(took, time.Since(start))
		start = time.Now()
		inTurn, err := index.Answer(ctx, q, req)
		if err != nil {
			return nil, fmt.Errorf("partial pack again: %w", err)
		}
		asked := time.Since(start)
		full, err := index.Answer(ctx, index.Own{Index: ix}, req)
		if err != nil {
			return nil, err
		}
		r.FirstEqual += count(sameFirst(partial, full))
		if i > 0 { // the first of them is a first partial pack
			again = append(again, asked)
			r.AgainFirstEqual += count(sameFirst(inTurn, full))
		}
		for _, g := range is.gold {
			r.Gold++
			if inPack(partial.Pack.Items, g) {
				r.GoldPartial++
			}
			if inPack(full.Pack.Items, g) {
				r.GoldFull++
			}
		}
	}
	r.Latency, r.Again = latencyOf(took), latencyOf(again)
	return r, nil
}

// sameFirst says whether two packs lead with the same file.
func sameFirst(a, b *index.Result) bool {
	return len(a.Pack.Items) > 0 && len(b.Pack.Items) > 0 && a.Pack.Items[0].Path == b.Pack.Items[0].Path
}

func inPack(items []index.Item, path string) bool {
	return slices.ContainsFunc(items, func(it index.Item) bool { return it.Path == path })
}

// firstPacks times `ctxmap context` on a tree never indexed, runs times, each on an empty cache: the
// command starts the background process, which answers it (a partial pack, or a full one when the
// build is done first). A few seconds later, while the build runs, another command asks the next
// text. It fills r's First and Second, and counts the packs that said they were partial.
func firstPacks(ctx context.Context, bin, root, tmp string, texts []string, budget, runs int, r *OneShot) error {
	var first, second []float64
	for i := range runs {
		env := append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(tmp, fmt.Sprintf("first-%d", i)), "CTXMAP_NO_DAEMON=")
		ask := func(text string) (float64, bool, error) {
			start := time.Now()
			out, err := runCommand(ctx, bin, env, "context", "-q", "-C", root, "--budget", fmt.Sprint(budget), text)
			return time.Since(start).Seconds(), strings.Contains(out, "- partial: from "), err
		}
		took, partial, err := ask(texts[i%len(texts)])
		again, partialAgain := 0.0, false
		if err == nil {
			time.Sleep(secondAfter)
			again, partialAgain, err = ask(texts[(i+1)%len(texts)])
		}
		runCommand(ctx, bin, env, "daemon", "--stop", "-C", root)
		if err != nil {
			return err
		}
		first, second = append(first, took), append(second, again)
		r.FirstPartial += count(partial)
		r.SecondPartial += count(partialAgain)
	}
	r.First, r.Second = timingOf(first), timingOf(second)
	return nil
}

// secondAfter is when the second question of firstPacks is asked after the first's answer: the next
// command of someone who read the first pack's header.
const secondAfter = 3 * time.Second

func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runCommand runs bin with env and returns its stdout.
func runCommand(ctx context.Context, bin string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v: %.300s", filepath.Base(bin), args[0], err, stderr.Bytes())
	}
	return out.String(), nil
}
