package index

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/rank"
	"github.com/ctxmap/ctxmap/internal/shoptest"
)

var update = flag.Bool("update", false, "rewrite the golden packs under ../testdata/golden")

// shop writes testdata/shop.txtar into a temporary workspace, builds the index and returns it with the
// line of every "@name" marker.
func shop(t *testing.T) (*Index, map[string]int) {
	t.Helper()
	files := shoptest.Files(t)
	root := shoptest.Write(t, files)
	marks := map[string]int{}
	marker := regexp.MustCompile(`@([a-z_]+)`)
	for _, f := range files {
		for i, line := range strings.Split(string(f.Data), "\n") {
			if m := marker.FindStringSubmatch(line); m != nil && (strings.Contains(line, "# @") || strings.Contains(line, "// @")) {
				marks[m[1]] = i + 1
			}
		}
	}
	ix := open(t, root, "")
	t.Cleanup(func() { ix.Close() })
	return ix, marks
}

// fill replaces {{name}} in a query with the line of the marker.
func fill(t *testing.T, text string, marks map[string]int) string {
	return regexp.MustCompile(`\{\{([a-z_]+)\}\}`).ReplaceAllStringFunc(text, func(m string) string {
		line, ok := marks[m[2:len(m)-2]]
		if !ok {
			t.Fatalf("no marker %s in shop.txtar", m)
		}
		return strconv.Itoa(line)
	})
}

type goldenCase struct {
	name    string
	text    string
	intent  string   // the intent the analysis must find
	top     string   // the file ranked first
	item    string   // path::symbol of a definition or snippet the pack must hold
	why     string   // words that item's reasons must include
	without []string // signals switched off
}

var goldenCases = []goldenCase{
	{
		name: "python_trace",
		text: `Checkout fails for an expired code

Traceback (most recent call last):
  File "/srv/app/shop/cart.py", line {{cart_total}}, in total
    amount = apply_discount(amount, self.code)
  File "/srv/app/shop/discount.py", line {{discount_raise}}, in apply_discount
    raise ValueError("discount code %s has expired" % code)
ValueError: discount code SPRING has expired`,
		intent: "bug_fix", top: "shop/discount.py", item: "shop/discount.py::apply_discount", why: "stack frame",
	},
	{
		name: "go_panic",
		text: `Reserving the last product crashes the order worker

panic: runtime error: index out of range [2] with length 2

goroutine 7 [running]:
example.com/shop/inventory.(*Stock).Reserve(0xc000010018, {0x4b2a1c, 0x5}, 0x1)
	/home/ci/shop/inventory/stock.go:{{reserve_panic}} +0x1d4
main.main()
	/home/ci/shop/cmd/worker/main.go:31 +0x65
exit status 2`,
		intent: "bug_fix", top: "inventory/stock.go", item: "inventory/stock.go::Stock.Reserve", why: "stack frame",
	},
	{
		name: "java_exception",
		text: `Empty orders throw instead of being refused politely

Exception in thread "main" java.lang.IllegalStateException: order has no lines
	at com.shop.orders.OrderService.validate(OrderService.java:{{order_throw}})
	at com.shop.orders.OrderService.placeOrder(OrderService.java:15)
	at com.shop.Main.main(Main.java:9)`,
		intent: "bug_fix", top: "orders/src/main/java/com/shop/orders/OrderService.java",
		item: "orders/src/main/java/com/shop/orders/OrderService.java::OrderService.validate", why: "stack frame",
	},
	{
		name: "typescript_error",
		text: `Checkout page is blank when paying with a gift card

TypeError: Cannot read properties of undefined (reading 'amount')
    at submitCheckout (webpack:///./web/checkout.ts:{{checkout_read}}:31)
    at HTMLFormElement.onSubmit (webpack:///./web/main.ts:12:5)`,
		intent: "bug_fix", top: "web/checkout.ts", item: "web/checkout.ts::submitCheckout", why: "stack frame",
	},
	{
		name: "rust_panic",
		text: `Tax computation panics for a single payment plan with zero installments

thread 'main' panicked at pricing/src/tax.rs:{{tax_divide}}:5:
attempt to divide by zero
stack backtrace:
   0: rust_begin_unwind
   1: core::panicking::panic_fmt
   2: pricing::tax::compute_tax
             at ./pricing/src/tax.rs:{{tax_divide}}:5
note: Some details are omitted, run with RUST_BACKTRACE=full for a verbose backtrace.`,
		intent: "bug_fix", top: "pricing/src/tax.rs", item: "pricing/src/tax.rs::compute_tax", why: "stack frame",
	},
	{
		name:   "error_message",
		text:   `Customers see "discount code WELCOME10 has expired" although the code never expires`,
		intent: "bug_fix", top: "shop/discount.py", item: "shop/discount.py::apply_discount", why: "error message",
	},
	{
		name: "lexicon",
		text: "The basket forgets the quantity when the same product is put in twice",
		top:  "shop/cart.py", item: "shop/cart.py::Cart.add_item",
	},
	{
		name:   "implementation",
		text:   "Add support for refunds to the payment gateway so an order can be cancelled",
		intent: "implementation", top: "orders/src/main/java/com/shop/orders/PaymentGateway.java",
		item: "orders/src/main/java/com/shop/orders/PaymentGateway.java::PaymentGateway",
	},
	{
		name:   "refactor",
		text:   "Refactor OrderService: extract the validation out of placeOrder into its own class",
		intent: "refactor", top: "orders/src/main/java/com/shop/orders/OrderService.java",
		item: "orders/src/main/java/com/shop/orders/OrderService.java::OrderService.placeOrder", why: "defines `OrderService.placeOrder`",
	},
	{
		name:   "test_writing",
		text:   "Write unit tests for Stock.Reserve covering an unknown product and too small a quantity",
		intent: "test_writing", top: "inventory/stock.go", item: "inventory/stock_test.go::TestAvailable",
	},
	{
		name:   "definition_lookup",
		text:   "What is TaxRate and where is it defined?",
		intent: "definition_lookup", top: "pricing/src/tax.rs", item: "pricing/src/tax.rs::TaxRate", why: "`TaxRate`",
	},
	{
		name:   "usage_exploration",
		text:   "Where is formatPrice used? Find all callers of formatPrice before changing its signature",
		intent: "usage_exploration", top: "web/format.js", item: "web/receipt.js::renderReceipt",
	},
}

// TestGoldenPacks runs each intent, each stack-trace language, an error message and a lexicon
// expansion against the shop workspace: the intent, the first file and a named definition with its
// reasons are checked, and the whole pack is compared with its golden file.
func TestGoldenPacks(t *testing.T) {
	ix, marks := shop(t)
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			res, err := ask(context.Background(), ix, Request{Text: fill(t, c.text, marks), Budget: 1500, Without: c.without})
			if err != nil {
				t.Fatal(err)
			}
			if c.intent != "" && res.Analysis.Intent.Name != c.intent {
				t.Errorf("intent = %s, want %s", res.Analysis.Intent.Name, c.intent)
			}
			if len(res.Files) == 0 || res.Files[0].Path != c.top {
				t.Errorf("first file = %v, want %s", firstPaths(res.Files, 3), c.top)
			}
			it := findItem(ix, res.Pack, c.item)
			switch {
			case it == nil:
				t.Errorf("the pack lacks %s; items: %v", c.item, itemNames(res.Pack))
			case !strings.Contains(strings.Join(it.Why, "; "), c.why):
				t.Errorf("%s: why = %q, want it to mention %q", c.item, it.Why, c.why)
			}
			checkGolden(t, c.name, res.Pack)
		})
	}
}

// TestLexiconExpansionFindsTheCart shows the project lexicon at work: "basket" reaches the cart only
// through the lexicon's basket -> cart.
func TestLexiconExpansionFindsTheCart(t *testing.T) {
	ix, _ := shop(t)
	text := "The basket forgets the quantity when the same product is put in twice"
	res, err := ask(context.Background(), ix, Request{Text: text, Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Analysis.Terms, func(x query.Term) bool { return x.Word == "cart" && x.Source == "lexicon:basket" }) {
		t.Errorf("no expansion basket -> cart in %+v", res.Analysis.Terms)
	}
	off, err := ask(context.Background(), ix, Request{Text: text, Budget: 1500, Without: []string{"lexicon"}})
	if err != nil {
		t.Fatal(err)
	}
	if rankOf(off.Files, "shop/cart.py") <= rankOf(res.Files, "shop/cart.py") {
		t.Errorf("shop/cart.py ranks %d without the lexicon and %d with it", rankOf(off.Files, "shop/cart.py"), rankOf(res.Files, "shop/cart.py"))
	}

	// an edited lexicon counts from the next query, even before the index hears of it (a lexicon
	// outside the workspace)
	file := filepath.Join(ix.Root(), ".ctxmap", "lexicon.yaml")
	if err := os.WriteFile(file, []byte("synonyms:\n  cart:\n    strong: [trolley]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	again, err := ask(context.Background(), ix, Request{Text: "The trolley forgets the quantity", Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(again.Analysis.Terms, func(x query.Term) bool { return x.Word == "cart" && x.Source == "lexicon:trolley" }) {
		t.Errorf("after the edit, no expansion trolley -> cart in %+v", again.Analysis.Terms)
	}
}

// TestGoldenBudgets: from 200 to 32,000 tokens, in every format and with both tokenizers, a pack never
// exceeds its budget when its text is counted again; the first file is in even the smallest pack.
func TestGoldenBudgets(t *testing.T) {
	ix, marks := shop(t)
	for _, c := range goldenCases {
		text := fill(t, c.text, marks)
		for _, tokName := range []string{"o200k_base", "cl100k_base"} {
			tok, err := pack.NewTokenizer(tokName)
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"markdown", "xml", "json"} {
				for _, budget := range []int{200, 500, 1000, 2000, 4000, 8000, 16000, 32000} {
					res, err := ask(context.Background(), ix, Request{Text: text, Budget: budget, Format: format, Tokenizer: tokName})
					if err != nil {
						t.Fatal(err)
					}
					p := res.Pack
					label := fmt.Sprintf("%s %s %s budget %d", c.name, tokName, format, budget)
					if n := tok.Count(p.Text); n > budget || n != p.Tokens {
						t.Errorf("%s: text counts %d tokens, pack says %d", label, n, p.Tokens)
					}
					if !slices.ContainsFunc(p.Items, func(it pack.Item) bool { return it.Path == c.top && it.Kind != "import" }) {
						t.Errorf("%s: nothing of %s", label, c.top)
					}
					if budget >= 1000 && findItem(ix, p, c.item) == nil {
						t.Errorf("%s: lacks %s", label, c.item)
					}
				}
			}
		}
	}
}

func checkGolden(t *testing.T, name string, p *pack.Pack) {
	t.Helper()
	path := filepath.Join("..", "testdata", "golden", name+".md")
	if _, differs := filetest.Golden(t, path, []byte(p.Text), *update); differs {
		t.Errorf("the pack differs from %s (go test -update rewrites it):\n%s", path, p.Text)
	}
}

// findItem finds the item holding a definition: the definition itself, or an enclosing one shown whole
// (a class with its methods).
func findItem(ix *Index, p *pack.Pack, pathSymbol string) *pack.Item {
	path, sym, _ := strings.Cut(pathSymbol, "::")
	start, end := -1, -1
	if rec := ix.Snapshot().Record(path); rec != nil && rec.File != nil {
		for _, d := range rec.File.Definitions {
			if d.Qualified() == sym {
				start, end = d.StartLine, d.EndLine
			}
		}
	}
	for i, it := range p.Items {
		if it.Path == path && (it.Symbol == sym || it.Kind != "import" && it.StartLine <= start && end <= it.EndLine) {
			return &p.Items[i]
		}
	}
	return nil
}

func itemNames(p *pack.Pack) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.Path+"::"+it.Symbol)
	}
	return out
}

func firstPaths(fs []rank.RankedFile, n int) []string {
	var out []string
	for i := 0; i < len(fs) && i < n; i++ {
		out = append(out, fs[i].Path)
	}
	return out
}

// rankOf is a file's place in the ranking from 1, or one past the end.
func rankOf(fs []rank.RankedFile, p string) int {
	for i, f := range fs {
		if f.Path == p {
			return i + 1
		}
	}
	return len(fs) + 1
}

// showsDefinition tells whether a pack shows a definition's code: an item of that name, or an item
// (a whole file, a larger definition) whose shown lines hold the definition's first line.
func showsDefinition(ix *Index, p *pack.Pack, path, name string) bool {
	rec := ix.Snapshot().Record(path)
	for _, it := range p.Items {
		if it.Path != path || len(it.Shown) == 0 {
			continue
		}
		if it.Symbol == name {
			return true
		}
		if rec == nil || rec.File == nil {
			continue
		}
		for _, d := range rec.File.Definitions {
			if d.Qualified() != name {
				continue
			}
			for _, r := range it.Shown {
				if r[0] <= d.StartLine && d.StartLine <= r[1] {
					return true
				}
			}
		}
	}
	return false
}
