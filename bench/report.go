package bench

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// Aggregate is a system's figures over a set of instances: the mean of each metric over the instances
// where it is defined, efficiency as mean symbol_coverage per mean 1,000 pack tokens (recall_per_1k
// likewise with pack_recall), and latency percentiles.
type Aggregate struct {
	N       int                `json:"n"`
	Metrics map[string]float64 `json:"metrics"`
}

// IndexTimes are the index times of the run, the first tree of each repository apart from the later ones.
type IndexTimes struct {
	Cold        Distribution `json:"cold"`
	Incremental Distribution `json:"incremental"`
}

// Distribution summarises seconds.
type Distribution struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	P50    float64 `json:"p50"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
	Parsed int     `json:"parsed"` // files parsed (read and hashed files whose content changed), over all the runs
	Files  int     `json:"files"`  // files indexed, over all the runs
}

// Percentile is the nearest-rank q-quantile (0 < q <= 1) of values; 0 for none.
func Percentile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return 0
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func distribution(secs []float64, parsed, files int) Distribution {
	d := Distribution{N: len(secs), P50: Percentile(secs, 0.5), P95: Percentile(secs, 0.95)}
	for _, s := range secs {
		d.Mean += s / float64(len(secs))
		d.Max = math.Max(d.Max, s)
	}
	d.Parsed, d.Files = parsed, files
	return d
}

// aggregateOf sums up one system over some instances.
func aggregateOf(rows []*SystemResult) Aggregate {
	a := Aggregate{N: len(rows), Metrics: map[string]float64{}}
	if len(rows) == 0 {
		return a
	}
	sums, counts := map[string]float64{}, map[string]int{}
	var lat []float64
	for _, r := range rows {
		for k, v := range r.Metrics {
			sums[k] += v
			counts[k]++
		}
		lat = append(lat, r.LatencyMS)
	}
	for k, s := range sums {
		a.Metrics[k] = s / float64(counts[k])
	}
	if a.Metrics[Tokens] > 0 {
		a.Metrics[RecallPer1K] = a.Metrics[PackRecall] * 1000 / a.Metrics[Tokens]
		if _, ok := a.Metrics[SymbolCoverage]; ok {
			a.Metrics[Efficiency] = a.Metrics[SymbolCoverage] * 1000 / a.Metrics[Tokens]
		}
		if _, ok := a.Metrics[LineRecall]; ok {
			a.Metrics[LineEfficiency] = a.Metrics[LineRecall] * 1000 / a.Metrics[Tokens]
		}
	}
	a.Metrics[LatencyP50] = Percentile(lat, 0.5)
	a.Metrics[LatencyP95] = Percentile(lat, 0.95)
	return a
}

// aggregate fills the report's counts and aggregates from its instances. Only instances every system
// answered are scored, so that the systems are compared on the same issues.
func (r *Report) aggregate() {
	r.Scored, r.Missing, r.Failed, r.BudgetViolations = 0, 0, 0, 0
	type group map[string][]*SystemResult
	overall := group{}
	byLang, byRepo := map[string]group{}, map[string]group{}
	spelling := map[string]string{} // a repository under the first spelling met, whatever the case
	var cold, incr []float64
	var coldParsed, coldFiles, incrParsed, incrFiles int
	for _, in := range r.Instances {
		for _, s := range in.Systems {
			if s.BudgetViolation {
				r.BudgetViolations++
			}
		}
		if in.Index != nil {
			if in.Index.Kind == "cold" {
				cold = append(cold, in.Index.Seconds)
				coldParsed, coldFiles = coldParsed+in.Index.Parsed, coldFiles+in.Index.Files
			} else {
				incr = append(incr, in.Index.Seconds)
				incrParsed, incrFiles = incrParsed+in.Index.Parsed, incrFiles+in.Index.Files
			}
		}
		switch in.Status {
		case StatusMissing:
			r.Missing++
			continue
		case StatusNoGold:
			r.NoGold++
			continue
		case StatusOK:
		default:
			r.Failed++
			continue
		}
		r.Scored++
		repo := strings.ToLower(in.Repo)
		if spelling[repo] == "" {
			spelling[repo] = in.Repo
		}
		repo = spelling[repo]
		if byLang[in.Language] == nil {
			byLang[in.Language] = group{}
		}
		if byRepo[repo] == nil {
			byRepo[repo] = group{}
		}
		for name, s := range in.Systems {
			overall[name] = append(overall[name], s)
			byLang[in.Language][name] = append(byLang[in.Language][name], s)
			byRepo[repo][name] = append(byRepo[repo][name], s)
		}
	}
	sum := func(g group) map[string]Aggregate {
		out := map[string]Aggregate{}
		for name, rows := range g {
			out[name] = aggregateOf(rows)
		}
		return out
	}
	r.Overall = sum(overall)
	r.ByLanguage, r.ByRepo = map[string]map[string]Aggregate{}, map[string]map[string]Aggregate{}
	for k, g := range byLang {
		r.ByLanguage[k] = sum(g)
	}
	for k, g := range byRepo {
		r.ByRepo[k] = sum(g)
	}
	r.IndexTimes = IndexTimes{Cold: distribution(cold, coldParsed, coldFiles), Incremental: distribution(incr, incrParsed, incrFiles)}
	if r.BadLines == nil {
		r.BadLines = []LineError{}
	}
}

var shortNames = map[string]string{
	Hit1: "hit@1", Hit3: "hit@3", Hit5: "hit@5", Hit10: "hit@10", Recall5: "rec@5", Recall10: "rec@10",
	PackRecall: "pack_rec", PackAll: "pack_all", SymbolRecall: "sym_rec", SymbolCoverage: "sym_cov", SymbolFile: "sym_file",
	WrongFileRate: "wrong", Tokens: "tokens", PackFileCount: "files", Efficiency: "eff", RecallPer1K: "rec/1k",
	CodeHit1: "c_hit@1", CodeHit5: "c_hit@5", CodePackRecall: "c_pack_rec", CodePackAll: "c_pack_all", CodeNamedAll: "c_named_all", DefFirst: "def_first", Brier: "brier",
	LatencyP50: "p50ms", LatencyP95: "p95ms",
	LineRecall: "line_rec", HunkAll: "hunk_all", CutLoss: "cut_loss", FileShown: "file_shown", LineEfficiency: "line_eff",
	LineRec100: "l_rec@100", LineRec300: "l_rec@300", LineRec500: "l_rec@500", FirstUseful: "first_use", LinePrecision: "l_prec",
}

// WriteTable prints the report for people: the systems side by side, then ctxmap and the baseline per
// language and per repository, the index times and what could not be scored.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%d instances selected, %d scored, %d missing work trees, %d without gold files, %d failed, %d bad lines; budget %d tokens (%s)\n\n",
		r.Selected, r.Scored, r.Missing, r.NoGold, r.Failed, len(r.BadLines), r.Budget, r.Tokenizer)
	cols := append(append([]string{}, Columns...), LatencyP50, LatencyP95)
	header := func(tw io.Writer, first ...string) {
		cells := append(append([]string{}, first...), "n")
		for _, c := range cols {
			cells = append(cells, shortNames[c])
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row := func(tw io.Writer, a Aggregate, first ...string) {
		cells := append(append([]string{}, first...), fmt.Sprint(a.N))
		for _, c := range cols {
			v, ok := a.Metrics[c]
			switch {
			case !ok:
				cells = append(cells, "-")
			case c == Tokens || c == PackFileCount && v >= 10:
				cells = append(cells, fmt.Sprintf("%.0f", v))
			case c == LatencyP50 || c == LatencyP95:
				cells = append(cells, fmt.Sprintf("%.1f", v))
			default:
				cells = append(cells, fmt.Sprintf("%.3f", v))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header(tw, "system")
	for _, s := range r.Systems {
		if a, ok := r.Overall[s]; ok {
			row(tw, a, s)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	main := []string{SystemCtxmap}
	if _, ok := r.Overall[SystemBM25]; ok {
		main = append(main, SystemBM25)
	}
	for _, part := range []struct {
		title string
		m     map[string]map[string]Aggregate
	}{{"language", r.ByLanguage}, {"repository", r.ByRepo}} {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		header(tw, part.title, "system")
		for _, k := range sortedKeys(part.m) {
			for _, s := range main {
				if a, ok := part.m[k][s]; ok {
					row(tw, a, k, s)
				}
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	it := r.IndexTimes
	for _, d := range []struct {
		kind string
		d    Distribution
	}{{"cold", it.Cold}, {"incremental", it.Incremental}} {
		fmt.Fprintf(w, "\nindex time, %s: n=%d p50 %.2fs p95 %.2fs max %.2fs; %d files parsed for %d indexed",
			d.kind, d.d.N, d.d.P50, d.d.P95, d.d.Max, d.d.Parsed, d.d.Files)
	}
	fmt.Fprintln(w)
	var warned []string
	for _, in := range r.Instances {
		if in.Index != nil && len(in.Index.Warnings) > 0 {
			warned = append(warned, fmt.Sprintf("%s: %s", in.ID, in.Index.Warnings[0]))
		}
	}
	if len(warned) > 0 {
		fmt.Fprintf(w, "index warnings on %d trees, first ones:\n", len(warned))
		for _, s := range head(warned, 3) {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	fmt.Fprintf(w, "budget violations: %d\n", r.BudgetViolations)
	fmt.Fprintln(w, "efficiency: mean symbol_coverage per mean 1,000 pack tokens; line_eff: mean line_recall per mean 1,000 pack tokens; line metrics over the code gold files; c_: scored against the gold files that are code; latency: one query per instance on the warm index")
	for _, b := range r.BadLines {
		fmt.Fprintf(w, "bad line %d: %s\n", b.Line, b.Err)
	}
	for _, in := range r.Instances {
		if in.Status != StatusOK {
			fmt.Fprintf(w, "%s %s: %s\n", in.Status, in.ID, in.Error)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
