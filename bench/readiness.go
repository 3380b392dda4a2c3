package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

// ReadinessOptions configure a readiness run: a session on a tree never indexed, as an agent's or an
// editor's first minutes meet it, asked each operation as its first build starts.
type ReadinessOptions struct {
	Dir    string
	Budget int // tokens per pack; 0: 8000
	Texts  int // context texts asked; 0: 10
	// Issues is a dataset whose issues are asked, with their gold files, each under IssuesPrefix in the
	// tree (as SpeedOptions); "": texts made from the tree
	Issues       string
	IssuesPrefix string
	Logf         func(format string, args ...any)
}

// ReadinessReport is what each operation answered while the first build ran, and how the packs asked
// meanwhile compare with the packs of the same texts once it is in (the packs the quality benchmark
// scores).
type ReadinessReport struct {
	Root       string            `json:"root"`
	Build      float64           `json:"build_seconds"` // from the session's start until its first build is in
	Operations []OperationAnswer `json:"operations"`    // in the order they were asked
	Early      EarlyPacks        `json:"early_packs"`
}

// OperationAnswer is one operation asked as the first build starts.
type OperationAnswer struct {
	Name        string  `json:"name"`
	Readiness   string  `json:"readiness"` // its rule in the operation table
	Asked       float64 `json:"asked"`     // seconds from the session's start
	Seconds     float64 `json:"seconds"`   // from the session's start until it answered
	BeforeBuild bool    `json:"before_build"`
	Got         string  `json:"got"` // what it answered, in a few words
	Error       string  `json:"error,omitempty"`
}

// EarlyPacks are the context packs asked one after the other from the session's start, beside the
// packs of the same texts once the first build and the vectors are in.
type EarlyPacks struct {
	Texts         int     `json:"texts"`
	Partial       int     `json:"partial"` // of them, said partial: asked before the build was in
	Latency       Latency `json:"latency"` // each from its question to its answer
	FirstEqual    int     `json:"first_equal"`
	FullFiles     int     `json:"full_files"`      // files of the full packs, all told
	FullFilesHeld int     `json:"full_files_held"` // of them, in the early pack of the same text
	Gold          int     `json:"gold"`            // gold files of the issues (--dataset), all told
	GoldEarly     int     `json:"gold_early"`
	GoldFull      int     `json:"gold_full"`
}

// Readiness opens a session on dir with an empty cache, starts it and asks, at once, a context pack
// (the question an agent asks first), then every other operation a front end asks alongside the rest
// of the texts, and records when each answered and what it gave; once the build is in it asks the
// texts again and compares.
func Readiness(ctx context.Context, opts ReadinessOptions) (*ReadinessReport, error) {
	if opts.Budget == 0 {
		opts.Budget = index.DefaultBudget
	}
	if opts.Texts == 0 {
		opts.Texts = 10
	}
	root, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("tree %s: %w", opts.Dir, err)
	}
	issues, err := readinessIssues(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	if len(issues) == 0 {
		return nil, fmt.Errorf("tree %s: no texts to ask (no entities to make them from, or no issue of the dataset in it)", root)
	}
	tmp, err := os.MkdirTemp("", "ctxmap-readiness-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	// as the MCP server and the language server open it: on disk (a session in memory makes no
	// partial pack), with the defaults the quality benchmark uses
	s, err := session.Open(ctx, session.Options{Root: root, CacheDir: tmp, Config: &index.Config{}, Logf: func(string, ...any) {}})
	if err != nil {
		return nil, err
	}
	defer s.Close()

	rep := &ReadinessReport{Root: root}
	start := time.Now()
	s.Start()
	since := func() float64 { return time.Since(start).Seconds() }

	var early []*index.Pack
	var took []time.Duration
	askText := func(text string) (OperationAnswer, error) {
		a := OperationAnswer{Name: session.OpContext.Name, Readiness: session.OpContext.Ready.String(), Asked: since()}
		asked := time.Now()
		p, err := session.OpContext.Answer(ctx, s, index.Request{Text: text, Budget: opts.Budget})
		took = append(took, time.Since(asked))
		a.Seconds = since()
		if err != nil {
			return a, fmt.Errorf("context: %w", err)
		}
		early = append(early, p)
		a.Got = packSummary(p)
		return a, nil
	}
	first, err := askText(issues[0].text)
	if err != nil {
		return nil, err
	}
	rep.Operations = append(rep.Operations, first)

	// the others, each on its own, while the texts are asked in turn
	others := readinessQuestions(early[0])
	answers := make([]OperationAnswer, len(others))
	var wg sync.WaitGroup
	for i, q := range others {
		wg.Go(func() {
			asked := since()
			a := q(ctx, s)
			a.Asked, a.Seconds = asked, since()
			answers[i] = a
		})
	}
	for _, is := range issues[1:] {
		if _, err := askText(is.text); err != nil {
			return nil, err
		}
	}
	wg.Wait()
	if err := s.WaitReady(ctx); err != nil {
		return nil, err
	}
	// when the first build's index was published: the answers that wait for it come after
	rep.Build = s.Status().LastUpdate.Sub(start).Seconds()
	rep.Operations = append(rep.Operations, answers...)
	for i := range rep.Operations {
		rep.Operations[i].BeforeBuild = rep.Operations[i].Seconds < rep.Build
	}
	if opts.Logf != nil {
		opts.Logf("readiness: first build in %.1fs; the first pack after %.2fs", rep.Build, first.Seconds)
	}

	e := &rep.Early
	e.Texts, e.Latency = len(early), latencyOf(took)
	for i, is := range issues {
		full, err := session.OpContext.Answer(ctx, s, index.Request{Text: is.text, Budget: opts.Budget})
		if err != nil {
			return nil, fmt.Errorf("context once built: %w", err)
		}
		p := early[i]
		e.Partial += count(p.Partial != nil)
		e.FirstEqual += count(len(p.Items) > 0 && len(full.Items) > 0 && p.Items[0].Path == full.Items[0].Path)
		// files as the quality benchmark counts them: the ones a pack shows code of
		shown, shownFull := packFiles(p.Items), packFiles(full.Items)
		for _, f := range shownFull {
			e.FullFiles++
			e.FullFilesHeld += count(slices.Contains(shown, f))
		}
		for _, g := range is.gold {
			e.Gold++
			e.GoldEarly += count(slices.Contains(shown, g))
			e.GoldFull += count(slices.Contains(shownFull, g))
		}
	}
	return rep, nil
}

// readinessIssues are the texts to ask: the dataset's issues in the tree, else texts made from an
// index of the tree built in memory (the run's own session starts from nothing).
func readinessIssues(ctx context.Context, root string, opts ReadinessOptions) ([]partialIssue, error) {
	if opts.Issues != "" {
		return issuesOf(opts.Issues, root, opts.IssuesPrefix, opts.Texts)
	}
	ix, err := index.Open(ctx, index.Options{Root: root, InMemory: true, Config: &index.Config{}})
	if err != nil {
		return nil, fmt.Errorf("open an index of %s for its texts: %w", root, err)
	}
	defer ix.Close()
	if _, err := ix.Build(ctx, nil); err != nil {
		return nil, fmt.Errorf("index %s for its texts: %w", root, err)
	}
	var out []partialIssue
	for _, t := range IssueTexts(ix.Snapshot(), opts.Texts) {
		out = append(out, partialIssue{text: t})
	}
	return out, nil
}

// question asks one operation of s and says what it got.
type question func(ctx context.Context, s *session.Session) OperationAnswer

// readinessQuestions are the operations a front end asks besides context, their names taken from the
// first pack (an entity, a definition), as an agent's next calls would take them.
func readinessQuestions(p *index.Pack) []question {
	entity, symbol := "", ""
	if i := slices.IndexFunc(p.Items, func(it index.Item) bool { return it.Symbol != "" }); i >= 0 {
		symbol = p.Items[i].Symbol
	}
	if len(p.Entities) > 0 {
		entity = p.Entities[0].Name
	} else { // a partial pack names none: the symbol's first word, which most often is one
		entity = strings.ToUpper(firstWord.FindString(symbol))
	}
	qs := []question{
		asked(session.OpState, session.None{}, func(st session.Status) string {
			if st.Ready {
				return fmt.Sprintf("ready, %d files", st.Files)
			}
			return fmt.Sprintf("building, %.0f%% built", 100*st.Built)
		}),
		asked(session.OpEntities, session.EntitiesArgs{Top: 10}, func(es []index.EntitySummary) string { return fmt.Sprintf("%d entities", len(es)) }),
		asked(session.OpOutline, index.OutlineRequest{}, func(o *index.Outline) string { return fmt.Sprintf("%d files outlined", len(o.Files)) }),
		asked(session.OpPicture, session.PictureArgs{Top: 10}, func(m *index.Picture) string { return fmt.Sprintf("%d entities on the map", len(m.Nodes)) }),
	}
	if entity != "" {
		qs = append(qs, asked(session.OpExplore, session.ExploreArgs{Name: entity}, func(ex *index.Exploration) string {
			return fmt.Sprintf("%d chunks about %s", len(ex.Chunks), entity)
		}))
	}
	if symbol != "" {
		qs = append(qs, asked(session.OpSymbols, session.SymbolArgs{Name: symbol}, func(ds []index.Symbol) string {
			return fmt.Sprintf("%d definitions of %s", len(ds), symbol)
		}))
	}
	return qs
}

// firstWord is the first word of an identifier (Invoice of InvoiceTotal, section of sectionOpen).
var firstWord = regexp.MustCompile(`[A-Z]?[a-z]+|[A-Z]+`)

// asked is the question of op with a, its answer said by got.
func asked[A, R any](op *session.Operation[A, R], a A, got func(R) string) question {
	return func(ctx context.Context, s *session.Session) OperationAnswer {
		ans := OperationAnswer{Name: op.Name, Readiness: op.Ready.String()}
		r, err := op.Answer(ctx, s, a)
		if err != nil {
			ans.Error = err.Error()
		} else {
			ans.Got = got(r)
		}
		return ans
	}
}

// packSummary is a pack in a few words.
func packSummary(p *index.Pack) string {
	if p.Partial != nil {
		return fmt.Sprintf("partial pack: %d items from %d of %d files", len(p.Items), p.Partial.Files, p.Partial.Total)
	}
	return fmt.Sprintf("pack: %d items", len(p.Items))
}

// WriteTable prints the readiness figures for people.
func (r *ReadinessReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s: a session on an empty cache, each operation asked as its first build starts; the build was in after %.1f s\n\n", r.Root, r.Build)
	fmt.Fprintf(w, "%-10s %-44s %8s %9s  %s\n", "operation", "readiness", "asked", "answered", "what it got")
	for _, a := range r.Operations {
		got := a.Got
		if a.Error != "" {
			got = "error: " + a.Error
		}
		fmt.Fprintf(w, "%-10s %-44s %6.2f s %7.2f s  %s\n", a.Name, a.Readiness, a.Asked, a.Seconds, got)
	}
	e := r.Early
	fmt.Fprintf(w, "\ncontext packs asked from the start, one after another: %d texts, %d partial, p50 %.0f ms, max %.0f ms\n", e.Texts, e.Partial, e.Latency.P50, e.Latency.Max)
	fmt.Fprintf(w, "against the same texts once built: first file the same %d/%d; the full packs' files held %d/%d", e.FirstEqual, e.Texts, e.FullFilesHeld, e.FullFiles)
	if e.Gold > 0 {
		fmt.Fprintf(w, "; gold files early %d, full %d, of %d", e.GoldEarly, e.GoldFull, e.Gold)
	}
	_, err := fmt.Fprintln(w)
	return err
}
