package bench

import (
	"bytes"
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
	Open    Timing `json:"open"`           // `ctxmap entities --top 1 --no-daemon`: open, refresh (nothing to do), close
	Context Timing `json:"context"`        // `ctxmap context --no-daemon`: open, refresh, one query, close
	Query   Timing `json:"first_query"`    // context minus open, run by run
	PeakRSS uint64 `json:"peak_rss_bytes"` // the largest of the `ctxmap context` children
	// `ctxmap context` handed off to the background process the first of them started (its start
	// not counted): the whole command, as a shell sees it
	HandedOff Timing `json:"handed_off"`
	// `ctxmap context` on an empty cache: it starts the background process, which answers before its
	// build is done with a partial pack (FirstPartial of them said so)
	First        Timing `json:"first"`
	FirstPartial int    `json:"first_partial"`
	// another text asked of that process a few seconds later, while it builds (SecondPartial packs
	// said they were partial)
	Second        Timing `json:"second"`
	SecondPartial int    `json:"second_partial"`
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
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+xdg, "CTXMAP_NO_DAEMON=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return 0, 0, err
		}
		peak := followPeak(cmd.Process.Pid)
		err := cmd.Wait()
		took := time.Since(start).Seconds()
		if err != nil {
			return 0, 0, fmt.Errorf("%s %s: %v: %.300s", filepath.Base(bin), args[0], err, out.Bytes())
		}
		rss := peak()
		if rss == 0 {
			rss = maxRSS(cmd.ProcessState)
		}
		return took, rss, nil
	}
	var open, full, first []float64
	r := &OneShot{}
	for i := range runs {
		o, _, err := run("entities", "-C", real, "--top", "1", "--no-daemon")
		if err != nil {
			return nil, err
		}
		c, rss, err := run("context", "-C", real, "--budget", fmt.Sprint(budget), "--no-daemon", texts[i%len(texts)])
		if err != nil {
			return nil, err
		}
		open, full, first = append(open, o), append(full, c), append(first, max(0, c-o))
		r.PeakRSS = max(r.PeakRSS, rss)
	}
	r.Open, r.Context, r.Query = timingOf(open), timingOf(full), timingOf(first)

	// the background process: started by the first command, asked by the next ones, stopped at the end
	if _, _, err := run("context", "-C", real, "--budget", fmt.Sprint(budget), "-q", texts[0]); err != nil {
		return nil, err
	}
	defer run("daemon", "--stop", "-C", real)
	var handed []float64
	for i := range max(runs, 10) {
		c, _, err := run("context", "-C", real, "--budget", fmt.Sprint(budget), texts[(i+1)%len(texts)])
		if err != nil {
			return nil, err
		}
		handed = append(handed, c)
	}
	r.HandedOff = timingOf(handed)
	return r, nil
}

// followPeak reads the process's VmHWM from /proc every 2 ms until the returned function is called,
// once the process has been waited for; that gives the largest reading, 0 where there is no /proc.
// The kernel's rusage of a child does not do: the child's count starts from its parent's peak at
// exec, so a small child of a large benchmark process would report the benchmark's peak.
func followPeak(pid int) func() uint64 {
	status := fmt.Sprintf("/proc/%d/status", pid)
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if b, err := os.ReadFile(status); err == nil {
				peak = max(peak, vmHWM(b))
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		return peak
	}
}

// vmHWM is the VmHWM line of a /proc status file, in bytes; 0 when there is none (a process that
// has exited keeps no memory figures).
func vmHWM(status []byte) uint64 {
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			var kb uint64
			fmt.Sscanf(string(rest), "%d", &kb)
			return kb * 1024
		}
	}
	return 0
}
