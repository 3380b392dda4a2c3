package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/index"
)

// SpeedOptions configure a speed run on one tree.
type SpeedOptions struct {
	Dir     string
	Edits   int    // one-file changes timed; 0: 100
	Queries int    // context queries timed; 0: 30
	Runs    int    // cold and warm runs, each; 0: 3
	Budget  int    // tokens per query; 0: 8000
	Binary  string // the ctxmap binary whose one-shot processes are timed; "": none
	// Issues is a dataset (JSONL, as for the quality run) whose issues the partial pack is measured on,
	// with their gold files, each under IssuesPrefix in the tree; "": texts made from the tree
	Issues       string
	IssuesPrefix string
	Logf         func(format string, args ...any)
}

// SpeedReport holds the speed figures of one tree.
type SpeedReport struct {
	Root        string         `json:"root"`
	Files       int            `json:"files"`
	Definitions int            `json:"definitions"`
	Cold        Timing         `json:"cold"`         // Open + Build on a fresh cache: queryable
	ColdVectors Timing         `json:"cold_vectors"` // until the background embeddings are done too
	Ctags       *CtagsTiming   `json:"ctags,omitempty"`
	Warm        Timing         `json:"warm"` // Open + Build with nothing changed
	WarmRatio   float64        `json:"warm_ratio"`
	Update      Latency        `json:"update"` // from the write to Update returning
	UpdateFound int            `json:"update_found"`
	Lookup      Latency        `json:"lookup"` // the new symbol looked up in the new snapshot
	Query       Latency        `json:"query"`
	Hover       Latency        `json:"hover"` // a word's entity and definitions as Markdown, as textDocument/hover answers
	QueryBudget int            `json:"query_budget"`
	OneShot     *OneShot       `json:"one_shot,omitempty"`
	Partial     *PartialReport `json:"partial,omitempty"` // packs before the index is whole, against the full index's
	PeakRSS     uint64         `json:"peak_rss_bytes"`    // VmHWM of the process
	PeakHeap    uint64         `json:"peak_heap_bytes"`   // live Go heap objects, sampled
	Notes       []string       `json:"notes,omitempty"`
}

// Timing is a few runs of one thing, in seconds.
type Timing struct {
	Runs   []float64 `json:"runs"`
	Median float64   `json:"median"`
}

// CtagsTiming is `ctags -R` on the same tree; Ratio is ctxmap's cold median over ctags' median.
type CtagsTiming struct {
	Version string `json:"version"`
	Timing
	Ratio float64 `json:"ratio"`
}

// Latency summarises many short timings, in milliseconds.
type Latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	Max float64 `json:"max_ms"`
}

func latencyOf(ds []time.Duration) Latency {
	ms := make([]float64, len(ds))
	l := Latency{N: len(ds)}
	for i, d := range ds {
		ms[i] = float64(d.Microseconds()) / 1000
		l.Max = max(l.Max, ms[i])
	}
	l.P50, l.P95 = Percentile(ms, 0.5), Percentile(ms, 0.95)
	return l
}

func timingOf(secs []float64) Timing { return Timing{Runs: secs, Median: Percentile(secs, 0.5)} }

// Speed measures indexing, updates and queries on dir. The tree itself is only read: edits are made
// on a copy in a temporary folder, and every cache lives there too.
func Speed(ctx context.Context, opts SpeedOptions) (*SpeedReport, error) {
	if opts.Edits == 0 {
		opts.Edits = 100
	}
	if opts.Queries == 0 {
		opts.Queries = 30
	}
	if opts.Runs == 0 {
		opts.Runs = 3
	}
	if opts.Budget == 0 {
		opts.Budget = 8000
	}
	if opts.Edits < 1 || opts.Queries < 1 || opts.Runs < 1 {
		return nil, fmt.Errorf("edits, queries and runs must be at least 1")
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	root, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", opts.Dir, err)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("tree %s: not a folder", root)
	}
	tmp, err := os.MkdirTemp("", "ctxmap-speed-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	heap := watchHeap()
	defer heap.stop()

	rep := &SpeedReport{Root: root, QueryBudget: opts.Budget}
	ctagsPath, _ := exec.LookPath("ctags")
	if ctagsPath == "" {
		rep.Notes = append(rep.Notes, "ctags is not installed: no comparison")
	}
	var cold, coldVec, ctags []float64
	lastCache := ""
	for i := 0; i < opts.Runs; i++ {
		cache := filepath.Join(tmp, "cold-"+strconv.Itoa(i))
		q, v, st, err := coldRun(ctx, root, cache)
		if err != nil {
			return nil, err
		}
		rep.Files, rep.Definitions = st.Files, st.Definitions
		cold, coldVec = append(cold, q), append(coldVec, v)
		logf("cold run %d: %.2fs queryable, %.2fs with vectors, %d files", i+1, q, v, st.Files)
		if lastCache != "" {
			os.RemoveAll(lastCache)
		}
		lastCache = cache
		if ctagsPath != "" {
			s, err := ctagsRun(ctx, ctagsPath, root, filepath.Join(tmp, "tags"))
			if err != nil {
				rep.Notes = append(rep.Notes, err.Error())
				ctagsPath = ""
			} else {
				ctags = append(ctags, s)
				logf("ctags run %d: %.2fs", i+1, s)
			}
		}
	}
	rep.Cold, rep.ColdVectors = timingOf(cold), timingOf(coldVec)
	if len(ctags) > 0 {
		rep.Ctags = &CtagsTiming{Version: ctagsVersion(ctx, ctagsPath), Timing: timingOf(ctags)}
		if rep.Ctags.Median > 0 {
			rep.Ctags.Ratio = rep.Cold.Median / rep.Ctags.Median
		}
	}

	var warm []float64
	for i := 0; i < opts.Runs; i++ {
		s, parsed, err := warmRun(ctx, root, lastCache)
		if err != nil {
			return nil, err
		}
		if parsed > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("warm run %d parsed %d files of the unchanged tree", i+1, parsed))
		}
		warm = append(warm, s)
		logf("warm run %d: %.3fs", i+1, s)
	}
	rep.Warm = timingOf(warm)
	if rep.Cold.Median > 0 {
		rep.WarmRatio = rep.Warm.Median / rep.Cold.Median
	}

	// queries and edits on a copy, so that the tree under test is never written
	copyRoot := filepath.Join(tmp, "tree")
	if err := copyTree(root, copyRoot); err != nil {
		return nil, err
	}
	ix, err := index.Open(ctx, index.Options{Root: copyRoot, CacheDir: filepath.Join(tmp, "edit-cache"), Config: &index.Config{}})
	if err != nil {
		return nil, fmt.Errorf("open the index of the copy: %w", err)
	}
	defer ix.Close()
	if _, err := ix.Build(ctx, nil); err != nil {
		return nil, fmt.Errorf("index the copy: %w", err)
	}
	ix.WaitVectors()
	texts := IssueTexts(ix.Snapshot(), opts.Queries)
	if len(texts) == 0 {
		rep.Notes = append(rep.Notes, "the tree has no entities to make queries from")
	} else {
		if _, err := ask(ctx, ix, index.Request{Text: warmup, Budget: opts.Budget}); err != nil {
			return nil, fmt.Errorf("warm-up query: %w", err)
		}
		var qs []time.Duration
		for _, t := range texts {
			start := time.Now()
			if _, err := ask(ctx, ix, index.Request{Text: t, Budget: opts.Budget}); err != nil {
				return nil, fmt.Errorf("query: %w", err)
			}
			qs = append(qs, time.Since(start))
		}
		rep.Query = latencyOf(qs)
		logf("queries: p50 %.1fms p95 %.1fms", rep.Query.P50, rep.Query.P95)
	}
	var issues []partialIssue
	if opts.Issues != "" {
		if issues, err = issuesOf(opts.Issues, root, opts.IssuesPrefix, opts.Queries); err != nil {
			return nil, err
		}
	} else {
		for _, t := range texts[:min(len(texts), 10)] {
			issues = append(issues, partialIssue{text: t})
		}
	}
	if len(issues) > 0 {
		if rep.Partial, err = partialRun(ctx, root, ix, issues, opts.Budget); err != nil {
			return nil, err
		}
		logf("partial packs: p50 %.0fms, first file equal %d/%d, gold %d/%d (full %d)", rep.Partial.Latency.P50, rep.Partial.FirstEqual, rep.Partial.Texts, rep.Partial.GoldPartial, rep.Partial.Gold, rep.Partial.GoldFull)
	}
	rep.Hover = hoverLatency(ix.Snapshot(), hoverWords)
	targets := editTargets(ix.Snapshot(), opts.Edits)
	if len(targets) == 0 {
		rep.Notes = append(rep.Notes, "no file of a language that takes an appended function: no edits timed")
	}
	var ups, looks []time.Duration
	for i := 0; i < opts.Edits && len(targets) > 0; i++ {
		path := targets[i%len(targets)]
		code, name := appendedFunction(index.LanguageOf(path), i)
		start := time.Now()
		if err := appendFile(filepath.Join(copyRoot, filepath.FromSlash(path)), code); err != nil {
			return nil, err
		}
		if err := ix.Update(ctx, []string{path}); err != nil {
			return nil, fmt.Errorf("update %s: %w", path, err)
		}
		ups = append(ups, time.Since(start))
		start = time.Now()
		found := false
		for _, ref := range ix.Snapshot().Symbols[name] {
			found = found || ref.Path == path
		}
		looks = append(looks, time.Since(start))
		if found {
			rep.UpdateFound++
		}
	}
	rep.Update, rep.Lookup = latencyOf(ups), latencyOf(looks)
	if len(ups) > 0 {
		logf("updates: p50 %.1fms p95 %.1fms, %d of %d new symbols found", rep.Update.P50, rep.Update.P95, rep.UpdateFound, len(ups))
	}
	rep.PeakHeap = heap.stop()
	rep.PeakRSS = peakRSS()
	if opts.Binary != "" && len(texts) > 0 {
		one, err := oneShot(ctx, opts.Binary, root, lastCache, texts, opts.Budget, opts.Runs)
		if err != nil {
			return nil, fmt.Errorf("one-shot processes: %w", err)
		}
		rep.OneShot = one
		var firstTexts []string
		for _, is := range issues {
			firstTexts = append(firstTexts, is.text)
		}
		if len(firstTexts) == 0 {
			firstTexts = texts
		}
		if err := firstPacks(ctx, opts.Binary, root, tmp, firstTexts, opts.Budget, opts.Runs, one); err != nil {
			return nil, fmt.Errorf("first packs: %w", err)
		}
		logf("first pack on a fresh cache: %.2fs, %d of %d partial; another question during the build %.2fs, %d partial", one.First.Median,
			one.FirstPartial, len(one.First.Runs), one.Second.Median, one.SecondPartial)
		logf("one-shot: open %.2fs, context %.2fs, peak %.0f MiB; handed off %.3fs", one.Open.Median, one.Context.Median, float64(one.PeakRSS)/(1<<20), one.HandedOff.Median)
	}
	return rep, nil
}

// coldRun indexes root on an empty cache: the seconds until it is queryable and until the embeddings
// are done.
func coldRun(ctx context.Context, root, cache string) (queryable, vectors float64, st index.Stats, err error) {
	runtime.GC()
	start := time.Now()
	ix, err := index.Open(ctx, index.Options{Root: root, CacheDir: cache, Config: &index.Config{}})
	if err != nil {
		return 0, 0, st, fmt.Errorf("open the index: %w", err)
	}
	defer ix.Close()
	st, err = ix.Build(ctx, nil)
	if err != nil {
		return 0, 0, st, fmt.Errorf("index %s: %w", root, err)
	}
	queryable = time.Since(start).Seconds()
	ix.WaitVectors()
	vectors = time.Since(start).Seconds()
	return queryable, vectors, st, nil
}

// warmRun opens an index whose cache is current and brings it up to date.
func warmRun(ctx context.Context, root, cache string) (secs float64, parsed int, err error) {
	runtime.GC()
	start := time.Now()
	ix, err := index.Open(ctx, index.Options{Root: root, CacheDir: cache, Config: &index.Config{}})
	if err != nil {
		return 0, 0, fmt.Errorf("open the index: %w", err)
	}
	defer ix.Close()
	st, err := ix.Build(ctx, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("index %s: %w", root, err)
	}
	return time.Since(start).Seconds(), st.Parsed, nil
}

func ctagsRun(ctx context.Context, ctags, root, out string) (float64, error) {
	runtime.GC()
	cmd := exec.CommandContext(ctx, ctags, "-R", "-f", out, ".")
	cmd.Dir = root
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("ctags -R failed: %v: %s", err, strings.TrimSpace(string(b)))
	}
	took := time.Since(start).Seconds()
	os.Remove(out)
	return took, nil
}

func ctagsVersion(ctx context.Context, ctags string) string {
	b, err := exec.CommandContext(ctx, ctags, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line, _, _ = strings.Cut(line, ",")
	return strings.TrimSpace(line)
}

// copyTree copies the regular files and symbolic links of src to dst, leaving out .git.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copy %s: %w", p, err)
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && d.Name() == ".git" && p != src:
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return fmt.Errorf("copy %s: %w", p, err)
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copy to %s: %w", dst, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("edit %s: %w", path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("edit %s: %w", path, err)
	}
	return f.Close()
}

// appendedFunction is a top-level function that can be appended to a file of the language, and its name.
func appendedFunction(lang string, i int) (code, name string) {
	camel, snake := fmt.Sprintf("ctxmapEdit%04d", i), fmt.Sprintf("ctxmap_edit_%04d", i)
	switch lang {
	case "go":
		return fmt.Sprintf("\n// %s counts benchmark edits.\nfunc %s() int { return %d }\n", camel, camel, i), camel
	case "python":
		return fmt.Sprintf("\n\ndef %s():\n    \"\"\"Counts benchmark edits.\"\"\"\n    return %d\n", snake, i), snake
	case "javascript", "typescript", "tsx":
		return fmt.Sprintf("\n// counts benchmark edits\nfunction %s() { return %d; }\n", camel, i), camel
	case "rust":
		return fmt.Sprintf("\n/// Counts benchmark edits.\nfn %s() -> i32 { %d }\n", snake, i), snake
	case "c", "cpp":
		return fmt.Sprintf("\n/* counts benchmark edits */\nint %s(void) { return %d; }\n", snake, i), snake
	case "ruby":
		return fmt.Sprintf("\n# counts benchmark edits\ndef %s\n  %d\nend\n", snake, i), snake
	}
	return "", ""
}

// editTargets are up to n source files, spread over the tree, of languages that take an appended
// top-level function; test files are left out as an editor's usual edits are to code.
func editTargets(s *index.Snapshot, n int) []string {
	var all []string
	for _, p := range s.Paths {
		if code, _ := appendedFunction(index.LanguageOf(p), 0); code != "" && s.Record(p).Skip == "" && !strings.Contains(strings.ToLower(p), "test") {
			all = append(all, p)
		}
	}
	if len(all) <= n {
		return all
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, all[i*len(all)/n])
	}
	return out
}

// IssueTexts makes n issue-like texts from the tree's own entities and definitions, the same ones for
// the same snapshot.
func IssueTexts(s *index.Snapshot, n int) []string {
	if s.Entities == nil || len(s.Entities.Entities) == 0 {
		return nil
	}
	ents := s.Entities.Entities
	if len(ents) > 200 {
		ents = ents[:200]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	phrase := func() string {
		return strings.ToLower(strings.ReplaceAll(ents[rng.IntN(len(ents))].Name, "_", " "))
	}
	symbol := func() string {
		e := ents[rng.IntN(len(ents))]
		for _, f := range e.Files {
			rec := s.Record(f)
			if rec == nil || rec.File == nil {
				continue
			}
			var names []string
			for _, d := range rec.File.Definitions {
				switch d.Kind {
				case "function", "method", "class", "struct", "interface", "type":
					if len(d.Name) > 3 {
						names = append(names, d.Name)
					}
				}
			}
			if len(names) > 0 {
				sort.Strings(names)
				return names[rng.IntN(len(names))]
			}
		}
		return strings.ToLower(e.Name)
	}
	templates := []string{
		"%s fails when the %s is empty\n\nCalling `%s` with an empty %s returns an error instead of nothing.",
		"Add an option to filter %s by %s\n\nIt would help if `%s` accepted a %s, like the other commands do.",
		"Crash in %s after the %s changes\n\n`%s` panics with a nil %s when it is called twice in a row.",
		"%s is slow for a large %s\n\nProfiling shows most of the time in `%s`; the %s could be cached.",
		"Wrong %s shown for %s\n\nThe %s printed by `%s` does not match what the API returns.",
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		t := templates[i%len(templates)]
		if i%len(templates) == 4 {
			out = append(out, fmt.Sprintf(t, phrase(), phrase(), phrase(), symbol()))
			continue
		}
		out = append(out, fmt.Sprintf(t, phrase(), phrase(), symbol(), phrase()))
	}
	return out
}

// heapWatch samples the live Go heap on its own goroutine without stopping the world.
type heapWatch struct {
	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	peak uint64
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func watchHeap() *heapWatch {
	w := &heapWatch{done: make(chan struct{})}
	go func() {
		sample := []metrics.Sample{{Name: heapMetric}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				w.mu.Lock()
				w.peak = max(w.peak, sample[0].Value.Uint64())
				w.mu.Unlock()
			}
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// stop ends the sampling and returns the peak; later calls return the same peak.
func (w *heapWatch) stop() uint64 {
	w.once.Do(func() { close(w.done) })
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak
}

// peakRSS is the process's high-water resident set (VmHWM), 0 where /proc is not there.
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// WriteTable prints the speed figures for people.
func (r *SpeedReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s: %d files, %d definitions\n\n", r.Root, r.Files, r.Definitions)
	fmt.Fprintf(w, "%-36s %12s  %s\n", "measure", "value", "detail")
	line := func(name, value, detail string) { fmt.Fprintf(w, "%-36s %12s  %s\n", name, value, detail) }
	runs := func(t Timing) string {
		parts := make([]string, len(t.Runs))
		for i, s := range t.Runs {
			parts[i] = fmt.Sprintf("%.2f", s)
		}
		return "runs " + strings.Join(parts, ", ") + " s"
	}
	line("cold index, queryable (median)", fmt.Sprintf("%.2f s", r.Cold.Median), runs(r.Cold))
	line("cold index, with vectors (median)", fmt.Sprintf("%.2f s", r.ColdVectors.Median), runs(r.ColdVectors))
	if r.Ctags != nil {
		line("ctags -R (median)", fmt.Sprintf("%.2f s", r.Ctags.Median), runs(r.Ctags.Timing)+"; "+r.Ctags.Version)
		line("cold / ctags", fmt.Sprintf("%.2fx", r.Ctags.Ratio), "")
	}
	line("warm start (median)", fmt.Sprintf("%.3f s", r.Warm.Median), runs(r.Warm))
	line("warm / cold", fmt.Sprintf("%.3f", r.WarmRatio), "")
	line("one-file change to queryable p50", fmt.Sprintf("%.1f ms", r.Update.P50), fmt.Sprintf("%d edits, max %.1f ms", r.Update.N, r.Update.Max))
	line("one-file change to queryable p95", fmt.Sprintf("%.1f ms", r.Update.P95), "")
	line("new symbol found after the change", fmt.Sprintf("%d/%d", r.UpdateFound, r.Update.N), fmt.Sprintf("lookup p50 %.3f ms", r.Lookup.P50))
	line(fmt.Sprintf("context query p50 (%d tokens)", r.QueryBudget), fmt.Sprintf("%.1f ms", r.Query.P50), fmt.Sprintf("%d queries, max %.1f ms", r.Query.N, r.Query.Max))
	line(fmt.Sprintf("context query p95 (%d tokens)", r.QueryBudget), fmt.Sprintf("%.1f ms", r.Query.P95), "")
	line("hover p50", fmt.Sprintf("%.2f ms", r.Hover.P50), fmt.Sprintf("%d words: entities and symbols, max %.1f ms", r.Hover.N, r.Hover.Max))
	line("hover p95", fmt.Sprintf("%.2f ms", r.Hover.P95), "")
	if o := r.OneShot; o != nil {
		line("one-shot open (median)", fmt.Sprintf("%.2f s", o.Open.Median), runs(o.Open)+": a ctxmap entities --top 1 process, nothing to refresh")
		line("one-shot context (median)", fmt.Sprintf("%.2f s", o.Context.Median), runs(o.Context)+": a ctxmap context process")
		line("one-shot first query (median)", fmt.Sprintf("%.2f s", o.Query.Median), "context minus open, run by run")
		line("one-shot context peak RSS", fmt.Sprintf("%.0f MiB", float64(o.PeakRSS)/(1<<20)), "the largest of the context processes")
		line("handed-off context (median)", fmt.Sprintf("%.3f s", o.HandedOff.Median), runs(o.HandedOff)+": a ctxmap context process the background process answers")
	}
	if q := r.Partial; q != nil {
		line("partial pack p50, never indexed", fmt.Sprintf("%.0f ms", q.Latency.P50), fmt.Sprintf("%d texts, max %.0f ms: index.PartialContext in this process", q.Texts, q.Latency.Max))
		line("partial pack: first file as the full's", fmt.Sprintf("%d/%d", q.FirstEqual, q.Texts), "")
		if q.Again.N > 0 {
			line("partial pack after another, p50", fmt.Sprintf("%.0f ms", q.Again.P50), fmt.Sprintf("max %.0f ms: the texts asked in turn of one index.Partial; first file as the full's %d/%d", q.Again.Max, q.AgainFirstEqual, q.Again.N))
		}
		if q.Gold > 0 {
			line("gold files in the pack, partial / full", fmt.Sprintf("%d / %d", q.GoldPartial, q.GoldFull), fmt.Sprintf("of %d", q.Gold))
		}
	}
	if o := r.OneShot; o != nil && len(o.First.Runs) > 0 {
		line("first context, fresh cache (median)", fmt.Sprintf("%.2f s", o.First.Median), runs(o.First)+fmt.Sprintf(": starts the background process, which answers; %d partial", o.FirstPartial))
		line("next context during the build (median)", fmt.Sprintf("%.2f s", o.Second.Median), runs(o.Second)+fmt.Sprintf(": another text, %s later, the background process answers; %d partial", secondAfter, o.SecondPartial))
	}
	line("peak RSS (VmHWM)", fmt.Sprintf("%.0f MiB", float64(r.PeakRSS)/(1<<20)), "")
	line("peak Go heap (live objects)", fmt.Sprintf("%.0f MiB", float64(r.PeakHeap)/(1<<20)), "")
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

const hoverWords = 1000

// hoverLatency times the hover of n words taken in turn from the entity names and the symbol table.
func hoverLatency(snap *index.Snapshot, n int) Latency {
	var words []string
	if snap.Entities != nil {
		for _, e := range snap.Entities.Entities {
			words = append(words, strings.ToLower(e.Name))
		}
	}
	words = append(words, snap.SymbolNames()...)
	if len(words) == 0 {
		return Latency{}
	}
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		w := words[(i*7919)%len(words)]
		start := time.Now()
		snap.Describe(w)
		ds = append(ds, time.Since(start))
	}
	return latencyOf(ds)
}
