package index

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// A file that the history says changes with a shown one comes into a tight pack, shown or outlined,
// saying what it changed with, though the text names nothing of it.
func TestACompanionOfAShownFileComesIn(t *testing.T) {
	root := t.TempDir()
	filetest.Git(t, root, "init", "-q")
	files := map[string]string{
		"billing/invoice.go": "package billing\n\n// InvoiceTotal sums an invoice's lines with their discounts.\nfunc InvoiceTotal(lines []Line) int {\n\tt := 0\n\tfor _, l := range lines {\n\t\tt += l.Amount - l.Discount\n\t}\n\treturn t\n}\n",
		"billing/render.go":  "package billing\n\n// Render writes a document for printing.\nfunc Render(d Doc) string {\n\treturn d.Head + d.Body\n}\n",
		"billing/line.go":    "package billing\n\n// Line is one entry of a document.\ntype Line struct {\n\tAmount   int\n\tDiscount int\n}\n",
	}
	writeFiles(t, root, copies(files, 12, "shop/part%d.go", "package shop\n\n// Part%[1]d is a shop part.\nfunc Part%[1]d() int { return %[1]d }\n"))
	filetest.Git(t, root, "add", "-A")
	filetest.Git(t, root, "commit", "-q", "-m", "start")
	for i := range 4 { // the total and its rendering change together, again and again
		writeFiles(t, root, map[string]string{
			"billing/invoice.go": files["billing/invoice.go"] + fmt.Sprintf("\n// rev %d\n", i),
			"billing/render.go":  files["billing/render.go"] + fmt.Sprintf("\n// rev %d\n", i),
		})
		filetest.Git(t, root, "commit", "-q", "-am", fmt.Sprintf("change %d", i))
	}
	ix := open(t, root, "")
	defer ix.Close()
	res, err := ask(context.Background(), ix, Request{Text: "InvoiceTotal ignores the discount of an invoice's lines", Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for _, it := range res.Pack.Items {
		if first == "" && it.Kind != "outline" {
			first = it.Path
		}
		if it.Path == "billing/render.go" {
			if why := strings.Join(it.Why, "; "); !strings.Contains(why, "changed with billing/invoice.go in 5 commits") {
				t.Errorf("the companion does not say what it changed with: %q", why)
			}
			if first != "billing/invoice.go" {
				t.Errorf("the pack starts with %s", first)
			}
			return
		}
	}
	t.Errorf("billing/render.go, changed with billing/invoice.go in every commit, is not in the pack: %v", itemNames(res.Pack))
}
