package query

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/index/lexicon"
)

func TestDumpDev(t *testing.T) {
	f, _ := os.Open("/work/shared/bench/dev.jsonl")
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	only := os.Getenv("ONLY")
	for sc.Scan() {
		var rec struct{ InstanceID string `json:"instance_id"`; ProblemStatement string `json:"problem_statement"` }
		json.Unmarshal(sc.Bytes(), &rec)
		if only != "" && !strings.Contains(rec.InstanceID, only) { continue }
		a := Analyze(rec.ProblemStatement, lexicon.Builtin())
		fmt.Printf("== %s | %s %.2f | %q\n", rec.InstanceID, a.Intent.Name, a.Intent.Confidence, strings.SplitN(rec.ProblemStatement, "\n", 2)[0])
		var as []string
		for _, x := range a.Anchors { as = append(as, x.Kind[:2]+":"+x.Text) }
		fmt.Printf("  A %s\n", strings.Join(as, "  "))
		if len(a.Frames) > 0 { fmt.Printf("  F %d first %+v\n", len(a.Frames), a.Frames[0]) }
		for _, e := range a.Errors { fmt.Printf("  E %q\n", e) }
		var ts []string
		for _, x := range a.Terms { if x.Source == "query" { ts = append(ts, x.Word) } }
		fmt.Printf("  T %s\n", strings.Join(ts, " "))
		if len(a.Identifiers) > 12 { a.Identifiers = a.Identifiers[:12] }
		fmt.Printf("  I %s\n", strings.Join(a.Identifiers, " "))
	}
}
