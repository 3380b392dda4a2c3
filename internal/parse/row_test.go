package parse_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/smacker/go-tree-sitter/python"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/parse"
)

// snakeQuery is the tag query of a language the table does not ship, written in its row.
const snakeQuery = `
(class_definition name: (identifier) @name body: (block . (expression_statement (string) @doc))) @definition.class
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name body: (block . (expression_statement (string) @doc))) @definition.function
(function_definition name: (identifier) @name) @definition.function
(call function: (identifier) @reference.call)
(call function: (attribute attribute: (identifier) @reference.call))
(comment) @comment
(import_from_statement module_name: (_) @import)
(string) @string
`

// A language is one row of the table: a row made here (a shipped grammar under a new name, its
// extension, its query and its line comment), and nothing else, has its files parsed, indexed and
// packed, a cut body's elided lines written as its comments.
func TestALanguageFromARowAlone(t *testing.T) {
	parse.AddRow(t, parse.Row{Name: "snake", Grammar: python.GetLanguage, Exts: []string{".snk"}, Comment: "# ", Query: snakeQuery})

	// a body too long for its room, the line the text names deep in it
	body := make([]string, 150)
	for i := range body {
		body[i] = fmt.Sprintf("    step%d = prepare_ledger(order, %d)  # the ledger's own work, part %d", i, i, i)
	}
	body[120] = "    gateway.reverse_charge(order, \"refund\")  # the refund goes back to the card"
	files := map[string]string{"shop/refund.snk": "from shop import gateway\n\nclass Refund:\n    \"\"\"A refund of an order.\"\"\"\n\n" +
		"def settle_refund(order):\n    \"\"\"Settles a refund against the gateway.\"\"\"\n" + strings.Join(body, "\n") + "\n    return None\n"}
	for i := range 20 {
		files[fmt.Sprintf("shop/other%d.snk", i)] = fmt.Sprintf("def run%d():\n    \"\"\"Runs step %d.\"\"\"\n    return %d\n", i, i, i)
	}
	root := t.TempDir()
	filetest.Write(t, root, files)

	p := parse.NewParser()
	defer p.Close()
	f, err := p.Parse(context.Background(), "shop/refund.snk", []byte(files["shop/refund.snk"]))
	if err != nil || f.Language != "snake" || len(f.Definitions) != 2 || f.Definitions[1].Doc != "Settles a refund against the gateway." {
		t.Fatalf("parse: %v, %+v", err, f)
	}

	ctx := context.Background()
	ix, err := index.Open(ctx, index.Options{Root: root, InMemory: true, Config: &index.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	s := ix.Snapshot()
	if rec := s.Record("shop/refund.snk"); rec == nil || rec.Language != "snake" {
		t.Fatalf("record = %+v, want the file indexed as snake", rec)
	}
	if syms := s.FindSymbols("settle_refund", "", 0); len(syms) == 0 || syms[0].Path != "shop/refund.snk" {
		t.Fatalf("FindSymbols(settle_refund) = %+v", syms)
	}

	res, err := index.Answer(ctx, index.Own{Index: ix}, index.Request{Text: "settle_refund should not call `reverse_charge` twice for a refund", Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	elided := regexp.MustCompile(`(?m)^    # \.\.\. \d+ lines \.\.\.$`)
	for _, it := range res.Pack.Items {
		if it.Path == "shop/refund.snk" && it.Size == "truncated" {
			if !strings.Contains(it.Code, "gateway.reverse_charge(order") || !elided.MatchString(it.Code) {
				t.Errorf("the cut body does not show the call, or its elided lines are not the row's comments:\n%s", it.Code)
			}
			return
		}
	}
	t.Fatalf("no cut item of shop/refund.snk in the pack:\n%s", res.Pack.Text)
}
