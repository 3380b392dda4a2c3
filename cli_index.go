package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"

	"github.com/ctxmap/ctxmap/index"
)

// openIndex opens and refreshes the index of dir for a CLI command; progress goes to stderr.
func openIndex(ctx context.Context, dir string) (*index.Index, index.Stats, error) {
	ix, err := index.Open(ctx, index.Options{Root: dir, Logf: logStderr})
	if err != nil {
		return nil, index.Stats{}, err
	}
	st, err := ix.Build(ctx, nil)
	if err != nil {
		ix.Close()
		return nil, st, err
	}
	return ix, st, nil
}

func logStderr(f string, a ...any) { fmt.Fprintf(os.Stderr, "ctxmap: "+f+"\n", a...) }

func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

func runIndex(args []string, _ io.Reader, stdout io.Writer) error {
	fs := newFlags("index")
	dir := fs.String("C", ".", "workspace root")
	asJSON := fs.Bool("json", false, "print the stats as JSON")
	export := fs.String("export", "", "write the index of this commit to FILE, for others to import")
	imp := fs.String("import", "", "start from the index exported to FILE (of the same commit), then refresh it")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if *export != "" && *imp != "" {
		return usagef("--export and --import do not go together")
	}
	ctx, cancel := interruptible()
	defer cancel()
	if *export != "" {
		id, err := index.Export(ctx, index.Options{Root: *dir, Logf: logStderr}, *export)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "exported %s (%s)\n", *export, id)
		return nil
	}
	if *imp != "" {
		id, err := index.Import(ctx, index.Options{Root: *dir, Logf: logStderr}, *imp)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "ctxmap: imported %s (%s)\n", *imp, id)
	}
	ix, st, err := openIndex(ctx, *dir)
	if err != nil {
		return err
	}
	defer ix.Close()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(stdout, "%s: %d files, %d definitions, %d references, %d entities, %d chunks in %.2fs (%d parsed)\n",
		st.Root, st.Files, st.Definitions, st.References, st.Entities, st.Chunks, st.Seconds, st.Parsed)
	fmt.Fprintf(stdout, "languages: %s\n", counts(st.Languages))
	if len(st.Skipped) > 0 {
		fmt.Fprintf(stdout, "skipped: %s\n", counts(st.Skipped))
	}
	fmt.Fprintf(stdout, "history: %s (%d commits)\nvectors: %s\ncache: %s\n", st.History, st.Commits, st.Vectors, st.Cache)
	return nil
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func runEntities(args []string, _ io.Reader, stdout io.Writer) error {
	fs := newFlags("entities")
	dir := fs.String("C", ".", "workspace root")
	top := fs.Int("top", 40, "how many entities")
	asJSON := fs.Bool("json", false, "print JSON")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if *top < 1 {
		return usagef("--top must be at least 1")
	}
	ctx, cancel := interruptible()
	defer cancel()
	ix, _, err := openIndex(ctx, *dir)
	if err != nil {
		return err
	}
	defer ix.Close()
	es := ix.Snapshot().Entities.Entities
	if len(es) > *top {
		es = es[:*top]
	}
	if *asJSON {
		type row struct {
			Name       string   `json:"name"`
			Importance float64  `json:"importance"`
			Centrality string   `json:"centrality"`
			Files      []string `json:"files"`
			Modules    []string `json:"modules"`
			Related    []string `json:"related"`
			Terms      []string `json:"terms"`
			Business   []string `json:"businessTerms"`
		}
		rows := make([]row, 0, len(es))
		for _, e := range es {
			r := row{Name: e.Name, Importance: e.Importance, Centrality: e.Centrality, Files: e.Files,
				Modules: e.Modules, Terms: e.Terms, Business: e.BusinessTerms, Related: []string{}}
			for _, rel := range e.Related {
				r.Related = append(r.Related, rel.Name)
			}
			rows = append(rows, r)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	for _, e := range es {
		var rel []string
		for i, r := range e.Related {
			if i == 5 {
				break
			}
			rel = append(rel, r.Name)
		}
		fmt.Fprintf(stdout, "%-28s %.2f %-14s %4d files  related: %s\n", e.Name, e.Importance, e.Centrality, len(e.Files), strings.Join(rel, ", "))
	}
	return nil
}
