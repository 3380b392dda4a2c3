package index_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/index"
)

// The benchmarks run on a generated workspace shaped like a product: Go packages and Python modules
// whose types, methods and helpers call each other across files and packages, with doc comments,
// error messages and TODOs. Run them with
//
//	go test ./index/ -run '^$' -bench . -benchtime 5x

var (
	benchNouns = []string{"Order", "Invoice", "Product", "Shipment", "Customer", "Stock", "Payment", "Report", "Coupon", "Refund",
		"Cart", "Address", "Warehouse", "Carrier", "Discount", "Tax", "Price", "Review", "Account", "Session"}
	benchRoles  = []string{"Store", "Index", "Policy", "Builder", "Cache", "Queue", "Service", "Handler", "Rule", "Record"}
	benchVerbs  = []string{"Apply", "Merge", "Split", "Refresh", "Export", "Reserve", "Cancel", "Estimate"}
	benchGoPkgs = []string{"orders", "billing", "catalog", "shipping", "users", "inventory", "payments", "reports"}
	benchPyPkgs = []string{"analytics", "notifications", "search", "importers"}
	benchPerPkg = 25
	benchModule = "example.com/shop"
)

func benchType(pkg, i int) string {
	return benchNouns[i%len(benchNouns)] + benchRoles[(i/len(benchNouns)+pkg+i)%len(benchRoles)]
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func words(s string) string { return strings.ReplaceAll(snake(s), "_", " ") }

func goFile(pkg, i int, rng *rand.Rand) string {
	name := benchType(pkg, i)
	other := (pkg + 1 + i%3) % len(benchGoPkgs)
	otherType := benchType(other, (i*7)%benchPerPkg)
	local := benchType(pkg, (i+1)%benchPerPkg)
	verb := benchVerbs[rng.IntN(len(benchVerbs))]
	noun := benchNouns[rng.IntN(len(benchNouns))]
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"fmt\"\n\t\"sort\"\n\n\t\"%s/%s\"\n)\n\n", benchGoPkgs[pkg], benchModule, benchGoPkgs[other])
	fmt.Fprintf(&b, "// %s keeps the %s of the %s domain: what is read, validated and stored together.\n", name, words(name), benchGoPkgs[pkg])
	fmt.Fprintf(&b, "type %s struct {\n\tID      string\n\tName    string\n\tItems   []%s.%s\n\tnext    *%s\n\tupdated int64\n\tlimit   int\n}\n\n",
		name, benchGoPkgs[other], otherType, local)
	fmt.Fprintf(&b, "// New%s makes an empty %s with a name.\nfunc New%s(id, name string) *%s {\n\treturn &%s{ID: id, Name: name, limit: %d}\n}\n\n",
		name, words(name), name, name, name, 10+rng.IntN(90))
	fmt.Fprintf(&b, "// Validate checks the %s and every item it holds.\nfunc (x *%s) Validate() error {\n", words(name), name)
	fmt.Fprintf(&b, "\tif x.Name == \"\" {\n\t\treturn fmt.Errorf(\"%s: %s %%s has no name\", x.ID)\n\t}\n", benchGoPkgs[pkg], words(name))
	fmt.Fprintf(&b, "\tif len(x.Items) > x.limit {\n\t\treturn fmt.Errorf(\"%s: too many items in %s %%s (%%d > %%d)\", x.ID, len(x.Items), x.limit)\n\t}\n", benchGoPkgs[pkg], words(name))
	fmt.Fprintf(&b, "\tfor _, it := range x.Items {\n\t\tif err := %s.Check%s(it); err != nil {\n\t\t\treturn fmt.Errorf(\"%s %%s: %%w\", x.ID, err)\n\t\t}\n\t}\n\treturn nil\n}\n\n",
		benchGoPkgs[other], otherType, words(name))
	fmt.Fprintf(&b, "// %s%s works out the %s for n units; it follows the chain of linked %s values.\n", verb, noun, words(noun), words(local))
	fmt.Fprintf(&b, "func (x *%s) %s%s(n int) int {\n\ttotal := 0\n\tfor cur := x.next; cur != nil; cur = cur.next {\n\t\ttotal += cur.%s%s(n)\n\t}\n",
		name, verb, noun, benchVerbs[(i+1)%len(benchVerbs)], benchNouns[(i+3)%len(benchNouns)])
	fmt.Fprintf(&b, "\t// TODO: the %s should be cached per %s\n\treturn total + n*len(x.Items)\n}\n\n", words(noun), words(name))
	fmt.Fprintf(&b, "// Sorted returns the items of the %s by name.\nfunc (x *%s) Sorted() []%s.%s {\n", words(name), name, benchGoPkgs[other], otherType)
	fmt.Fprintf(&b, "\tout := append([]%s.%s(nil), x.Items...)\n\tsort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })\n\treturn out\n}\n\n", benchGoPkgs[other], otherType)
	fmt.Fprintf(&b, "// Check%s reports why a %s cannot be used.\nfunc Check%s(x %s) error {\n\tif x.ID == \"\" {\n\t\treturn fmt.Errorf(\"%s without an id\")\n\t}\n\treturn nil\n}\n",
		name, words(name), name, name, words(name))
	return b.String()
}

func pyFile(pkg, i int, rng *rand.Rand) string {
	name := benchType(len(benchGoPkgs)+pkg, i)
	other := (pkg + 1) % len(benchPyPkgs)
	otherType := benchType(len(benchGoPkgs)+other, (i*3)%benchPerPkg)
	verb := strings.ToLower(benchVerbs[rng.IntN(len(benchVerbs))])
	noun := snake(benchNouns[rng.IntN(len(benchNouns))])
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"%s for the %s service.\"\"\"\n\nfrom %s.%s import %s, check_%s\n\n\n", name, benchPyPkgs[pkg],
		benchPyPkgs[other], snake(otherType), otherType, snake(otherType))
	fmt.Fprintf(&b, "class %s:\n    \"\"\"Keeps the %s and the items it was built from.\"\"\"\n\n", name, words(name))
	fmt.Fprintf(&b, "    def __init__(self, name, limit=%d):\n        self.name = name\n        self.limit = limit\n        self.items = []\n\n", 10+rng.IntN(90))
	fmt.Fprintf(&b, "    def validate(self):\n        if not self.name:\n            raise ValueError(\"%s: %s has no name\")\n", benchPyPkgs[pkg], words(name))
	fmt.Fprintf(&b, "        if len(self.items) > self.limit:\n            raise ValueError(\"%s: too many items in %%s\" %% self.name)\n", words(name))
	fmt.Fprintf(&b, "        return all(check_%s(item) for item in self.items)\n\n", snake(otherType))
	fmt.Fprintf(&b, "    def %s_%s(self, count):\n        # TODO: %s the %s in batches\n        return %s(self.name).total(count) + len(self.items)\n\n",
		verb, noun, verb, words(noun), otherType)
	fmt.Fprintf(&b, "    def total(self, count):\n        return count * self.limit\n\n\n")
	fmt.Fprintf(&b, "def check_%s(item):\n    \"\"\"Tells whether a %s can be used.\"\"\"\n    return item is not None and bool(item.name)\n", snake(name), words(name))
	return b.String()
}

// benchWorkspace writes the generated workspace (300 files) under a fresh folder.
func benchWorkspace(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	write := func(rel, text string) {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("go.mod", "module "+benchModule+"\n\ngo 1.22\n")
	for p, pkg := range benchGoPkgs {
		for i := 0; i < benchPerPkg; i++ {
			write(fmt.Sprintf("%s/%s.go", pkg, snake(benchType(p, i))), goFile(p, i, rng))
		}
	}
	for p, pkg := range benchPyPkgs {
		write(pkg+"/__init__.py", "")
		for i := 0; i < benchPerPkg; i++ {
			write(fmt.Sprintf("%s/%s.py", pkg, snake(benchType(len(benchGoPkgs)+p, i))), pyFile(p, i, rng))
		}
	}
	return root
}

func openBuilt(b *testing.B, root, cache string) *index.Index {
	b.Helper()
	ix, err := index.Open(context.Background(), index.Options{Root: root, CacheDir: cache, Config: &index.Config{}})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ix.Build(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return ix
}

func BenchmarkColdIndex(b *testing.B) {
	root := benchWorkspace(b)
	files := 0
	for b.Loop() {
		cache := b.TempDir()
		ix := openBuilt(b, root, cache)
		b.StopTimer()
		files = ix.Snapshot().Stats().Files
		ix.WaitVectors()
		ix.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(files), "files")
}

func BenchmarkWarmStart(b *testing.B) {
	root, cache := benchWorkspace(b), b.TempDir()
	ix := openBuilt(b, root, cache)
	ix.WaitVectors()
	ix.Close()
	for b.Loop() {
		ix, err := index.Open(context.Background(), index.Options{Root: root, CacheDir: cache, Config: &index.Config{}})
		if err != nil {
			b.Fatal(err)
		}
		st, err := ix.Build(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if st.Parsed != 0 {
			b.Fatalf("warm start parsed %d files", st.Parsed)
		}
		ix.Close()
		b.StartTimer()
	}
}

func BenchmarkUpdateOneFile(b *testing.B) {
	root := benchWorkspace(b)
	ix := openBuilt(b, root, b.TempDir())
	defer ix.Close()
	ix.WaitVectors()
	paths := ix.Snapshot().Paths
	n := 0
	for b.Loop() {
		p := paths[n%len(paths)]
		name := fmt.Sprintf("BenchEdit%d", n)
		code := fmt.Sprintf("\n// %s is an edit.\nfunc %s() int { return %d }\n", name, name, n)
		if strings.HasSuffix(p, ".py") {
			name = fmt.Sprintf("bench_edit_%d", n)
			code = fmt.Sprintf("\n\ndef %s():\n    return %d\n", name, n)
		}
		f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(p)), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.WriteString(code); err != nil {
			b.Fatal(err)
		}
		f.Close()
		if err := ix.Update(context.Background(), []string{p}); err != nil {
			b.Fatal(err)
		}
		if len(ix.Snapshot().Symbols[name]) == 0 {
			b.Fatalf("%s not found after the update of %s", name, p)
		}
		n++
	}
}

func BenchmarkContext(b *testing.B) {
	root := benchWorkspace(b)
	ix := openBuilt(b, root, b.TempDir())
	defer ix.Close()
	ix.WaitVectors()
	texts := []string{
		"OrderStore.Validate fails with \"orders: order store has no name\" when the name comes from an import",
		"Add a way to estimate the shipping tax for a cart\n\nThe estimate should use the carrier's price and the warehouse address.",
		"check_refund_cache raises for an empty refund\n\n```\nTraceback (most recent call last):\n  File \"analytics/refund_cache.py\", line 12, in validate\nValueError: analytics: refund cache has no name\n```",
		"The payments queue sorts items by name but invoices should be ordered by amount",
		"Refactor the discount policy so that coupons and refunds share the same validation",
		"TODO in the stock index: cache the price per stock index",
	}
	n, tokens := 0, 0
	for b.Loop() {
		res, err := askIndex(ix, index.Request{Text: texts[n%len(texts)], Budget: 8000})
		if err != nil {
			b.Fatal(err)
		}
		tokens += res.Pack.Tokens
		n++
	}
	b.ReportMetric(float64(tokens)/float64(n), "tokens/op")
}

// askIndex resolves req against the index's configuration and answers it.
func askIndex(ix *index.Index, req index.Request) (*index.Result, error) {
	resolved, err := req.Resolve(ix.Config())
	if err != nil {
		return nil, err
	}
	return ix.Context(context.Background(), resolved)
}
