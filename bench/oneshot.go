package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// OneShot is what a process that opens the index for one answer costs, as the CLI and the tools that
// shell out to it pay it on every call: child processes of the ctxmap binary on a current cache.
type OneShot struct {
	Open    Timing `json:"open"`           // `ctxmap index`: open, refresh (nothing to do), close
	Context Timing `json:"context"`        // `ctxmap context`: open, refresh, one query, close
	Query   Timing `json:"first_query"`    // context minus open, run by run
	PeakRSS uint64 `json:"peak_rss_bytes"` // the largest of the `ctxmap context` children
}

// oneShot runs the binary bin as child processes on root, whose current cache is the folder cache
// (moved to where a child looks for it, under a private XDG_CACHE_HOME), runs times each, with the
// given query texts in turn.
func oneShot(ctx context.Context, bin, root, cache string, texts []string, budget, runs int) (*OneShot, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	xdg := filepath.Join(filepath.Dir(cache), "xdg")
	if err := os.MkdirAll(filepath.Join(xdg, "ctxmap"), 0o700); err != nil {
		return nil, err
	}
	if err := os.Rename(cache, index.CacheDirUnder(filepath.Join(xdg, "ctxmap"), real)); err != nil {
		return nil, fmt.Errorf("move the cache for the child processes: %w", err)
	}
	run := func(args ...string) (float64, uint64, error) {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+xdg)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		took := time.Since(start).Seconds()
		if err != nil {
			return 0, 0, fmt.Errorf("%s %s: %v: %.300s", filepath.Base(bin), args[0], err, out)
		}
		return took, maxRSS(cmd.ProcessState), nil
	}
	var open, full, first []float64
	r := &OneShot{}
	for i := range runs {
		o, _, err := run("index", "-C", real)
		if err != nil {
			return nil, err
		}
		c, rss, err := run("context", "-C", real, "--budget", fmt.Sprint(budget), texts[i%len(texts)])
		if err != nil {
			return nil, err
		}
		open, full, first = append(open, o), append(full, c), append(first, max(0, c-o))
		r.PeakRSS = max(r.PeakRSS, rss)
	}
	r.Open, r.Context, r.Query = timingOf(open), timingOf(full), timingOf(first)
	return r, nil
}
