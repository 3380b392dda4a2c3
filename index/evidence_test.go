package index

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/rank"
)

// The evidence suite: a trace alone, a quoted name and a quoted error message each put the definition
// they point at in the pack, labelled with their own evidence, whatever the ranker and the pack style.

var packStyles = []struct {
	name string
	req  Request
}{
	{"learned, tight", Request{}},
	{"learned, filled", Request{Fill: true}},
	{"fusion, filled", Request{Ranker: RankerFusion}},
}

// inEveryStyle asks text with budget (0: the default) in every pack style, each a subtest named
// prefix and the style, and checks each answer.
func inEveryStyle(t *testing.T, ix *Index, prefix, text string, budget int, check func(t *testing.T, res *Result)) {
	for _, st := range packStyles {
		t.Run(prefix+st.name, func(t *testing.T) {
			req := st.req
			req.Text, req.Budget = text, budget
			res, err := ask(context.Background(), ix, req)
			if err != nil {
				t.Fatal(err)
			}
			check(t, res)
		})
	}
}

func TestATraceAlonePutsTheInnermostFrameFirst(t *testing.T) {
	ix, marks := shop(t)
	for _, c := range goldenCases(t) {
		if c.why != "stack frame" {
			continue
		}
		// the trace alone: no title to help
		_, trace, _ := strings.Cut(fill(t, c.text, marks), "\n\n")
		inEveryStyle(t, ix, c.name+"/", trace, 4000, func(t *testing.T, res *Result) {
			if len(res.Pack.Items) == 0 {
				t.Fatal("an empty pack")
			}
			first := res.Pack.Items[0]
			if got := first.Path + "::" + first.Symbol; got != c.item {
				t.Fatalf("first item %s, want %s; items: %v", got, c.item, itemNames(res.Pack))
			}
			if !strings.HasPrefix(first.Why[0], "stack frame 0 (") {
				t.Errorf("first item's reasons %q do not start with its frame", first.Why)
			}
		})
	}
}

func TestAQuotedNameAndMessagePinTheirDefinition(t *testing.T) {
	ix, _ := shop(t)
	cases := []struct{ text, item, why string }{
		// lookup_code is a helper no word of the text names but its quote
		{"Codes bought in the spring sale are refused. I suspect `lookup_code`.", "shop/discount.py::lookup_code", "`lookup_code` quoted in the text"},
		{"The cart says \"discount code SPRING has expired\" for a code bought today.", "shop/discount.py::apply_discount", "error message"},
	}
	for _, c := range cases {
		inEveryStyle(t, ix, c.item+"/", c.text, 4000, func(t *testing.T, res *Result) {
			it := findItem(ix, res.Pack, c.item)
			if it == nil {
				t.Fatalf("the pack lacks %s; items: %v", c.item, itemNames(res.Pack))
			}
			if !strings.HasPrefix(it.Why[0], c.why) {
				t.Errorf("%s: why = %q, want it to start with %q", c.item, it.Why, c.why)
			}
		})
	}
}

// A name quoted in the text that several definitions share pins none of them.
func TestAnAmbiguousQuoteIsNotPinned(t *testing.T) {
	ix := built(t, map[string]string{
		"a/reader.go": "package a\n\n// Close ends a read.\nfunc Close() error { return nil }\n",
		"b/writer.go": "package b\n\n// Close ends a write.\nfunc Close() error { return nil }\n",
	})
	res, err := ask(context.Background(), ix, Request{Text: "`Close` misbehaves", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Pack.Items {
		if strings.Contains(strings.Join(it.Why, ";"), "quoted in the text") {
			t.Errorf("%s::%s pinned by an ambiguous quote: %q", it.Path, it.Symbol, it.Why)
		}
	}
}

// checkoutGo is shaped like cli/cli's pkg/cmd/pr/checkout/checkout.go: checkoutRun spans lines 73-139
// and calls cmdsForExistingRemote, which holds line 150.
func checkoutGo() string {
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	// fill repeats s until the file has n lines
	fill := func(n int, s string) {
		for strings.Count(b.String(), "\n") < n {
			line(s)
		}
	}
	line("package checkout")
	fill(72, "")
	line("func checkoutRun(opts *CheckoutOptions) error {") // 73
	fill(116, "\t// resolve the pull request and the remote")
	line("\tcmds, err := cmdsForExistingRemote(opts.Remote, opts.PR)") // 117
	fill(138, "\t_ = cmds")
	line("}") // 139
	line("")
	line("func cmdsForExistingRemote(remote *Remote, pr *PullRequest) ([][]string, error) {") // 141
	fill(149, "\tvar cmds [][]string")
	line("\trefSpec := pr.HeadRefName + \":\" + remote.Name // 150: pr.HeadRepository is nil") // 150
	fill(159, "\t_ = refSpec")
	line("\treturn nil, nil")
	line("}")
	line("")
	line("type CheckoutOptions struct {\n\tRemote *Remote\n\tPR     *PullRequest\n}")
	line("type Remote struct{ Name string }")
	line("type PullRequest struct{ HeadRefName string }")
	return b.String()
}

func TestTheCheckoutPanicGivesItsFramesInOrder(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"pkg/cmd/pr/checkout/checkout.go": checkoutGo(),
		"pkg/cmdutil/errors.go":           "package cmdutil\n\n// IsUserCancellation tells a cancelled prompt.\nfunc IsUserCancellation(err error) bool { return err == nil }\n",
		"pkg/cmd/pr/shared/finder.go":     "package shared\n\n// Find finds a pull request by number or branch.\nfunc Find(number int) error { return nil }\n",
		"pkg/cmd/root/root.go":            "package root\n\n// NewCmdRoot makes the root command.\nfunc NewCmdRoot() error { return nil }\n",
	}
	for i := range 30 { // a project, not three files
		files[fmt.Sprintf("pkg/cmd/other%d/other.go", i)] = fmt.Sprintf("package other%d\n\n// Run runs command %d.\nfunc Run%d() error { return nil }\n", i, i, i)
	}
	writeFiles(t, root, files)
	ix := open(t, root, "")
	defer ix.Close()
	text := `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1234]

goroutine 1 [running]:
github.com/cli/cli/v2/pkg/cmd/pr/checkout.cmdsForExistingRemote(0xc0001, 0xc0002)
	/home/runner/work/cli/cli/pkg/cmd/pr/checkout/checkout.go:150 +0x2c
github.com/cli/cli/v2/pkg/cmd/pr/checkout.checkoutRun(0xc0003)
	/home/runner/work/cli/cli/pkg/cmd/pr/checkout/checkout.go:117 +0x3f1
github.com/cli/cli/v2/pkg/cmd/pr/checkout.NewCmdCheckout.func1(0xc0004, {0xc0005, 0x1, 0x1})
	/home/runner/work/cli/cli/pkg/cmd/pr/checkout/checkout.go:60 +0x1a5
main.main()
	/home/runner/work/cli/cli/cmd/gh/main.go:35 +0x13
`
	inEveryStyle(t, ix, "", text, 0, func(t *testing.T, res *Result) {
		items := res.Pack.Items
		if len(items) < 2 {
			t.Fatalf("items: %v", itemNames(res.Pack))
		}
		want := []struct{ symbol, why string }{
			{"cmdsForExistingRemote", "stack frame 0 (checkout.go:150, in cmdsForExistingRemote)"},
			{"checkoutRun", "stack frame 1 (checkout.go:117, in checkoutRun)"},
		}
		for i, w := range want {
			if items[i].Symbol != w.symbol || items[i].Why[0] != w.why {
				t.Errorf("item %d: %s %q, want %s %q", i, items[i].Symbol, items[i].Why, w.symbol, w.why)
			}
		}
	})
}

// A C program's crash under gdb: the innermost frame in the project comes first.
func TestAGdbBacktracePinsTheCrashingFunction(t *testing.T) {
	ix := built(t, map[string]string{
		"src/parser.c": "#include <stddef.h>\n\nstatic int depth(const char *s) {\n  int d = 0;\n  while (*s) {\n    d += *s == '[';\n    s++;\n  }\n  return d;\n}\n\nint parse(const char *s) {\n  if (s == NULL) return -1;\n  return depth(s);\n}\n",
		"src/main.c":   "int parse(const char *s);\n\nint main(int argc, char **argv) {\n  return parse(argv[1]);\n}\n",
		"src/util.c":   "int clamp(int x) {\n  return x < 0 ? 0 : x;\n}\n",
	})
	text := "Program received signal SIGSEGV, Segmentation fault.\n" +
		"#0  0x0000555555555189 in depth (s=0x0) at src/parser.c:5\n" +
		"#1  0x00005555555551c4 in parse (s=0x0) at src/parser.c:14\n" +
		"#2  0x00005555555551e9 in main (argc=1, argv=0x7fffffffe4c8) at src/main.c:4\n"
	res, err := ask(context.Background(), ix, Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	items := res.Pack.Items
	if len(items) < 3 || items[0].Symbol != "depth" || items[1].Symbol != "parse" || items[2].Symbol != "main" {
		t.Fatalf("items: %v", itemNames(res.Pack))
	}
	if !strings.HasPrefix(items[0].Why[0], "stack frame 0 (parser.c:5") {
		t.Errorf("first item's reasons: %q", items[0].Why)
	}
}

// Where a tight pack stops, the next likely files are outlined: their path and their likeliest
// definitions' signatures, a few tokens each, as items of kind outline.
func TestTheNextLikelyFilesAreOutlined(t *testing.T) {
	ix, marks := shop(t)
	var text string
	for _, c := range goldenCases(t) {
		if c.name == "go_panic" {
			text = fill(t, c.text, marks)
		}
	}
	res, err := ask(context.Background(), ix, Request{Text: text, Budget: 1500})
	if err != nil {
		t.Fatal(err)
	}
	var outlines []string
	for _, it := range res.Pack.Items {
		if it.Kind != "outline" {
			continue
		}
		outlines = append(outlines, it.Path)
		if it.Size != "compact" || it.Tokens > rank.OutlineCap+40 || !strings.Contains(strings.Join(it.Why, ";"), "where the pack stops") {
			t.Errorf("outline %+v", it)
		}
		for _, other := range res.Pack.Items {
			if other.Kind != "outline" && other.Path == it.Path {
				t.Errorf("%s is outlined and shown", it.Path)
			}
		}
	}
	if len(outlines) == 0 || !strings.Contains(res.Pack.Text, "(outline, p=") {
		t.Errorf("no outline in the pack: %v", itemNames(res.Pack))
	}
}

// A trace whose innermost project frame is in a shared client that the ranking places below the
// command that called it (the text talks of the command): the client's function still comes first.
func TestTheInnermostFrameInASharedHelperComesFirst(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"pkg/cmd/release/create/create.go": "package create\n\n// createRun creates a release and uploads its assets.\nfunc createRun(opts *CreateOptions) error {\n\trelease, err := api.CreateRelease(opts.Repo, opts.TagName)\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn uploadAssets(release, opts.Assets)\n}\n\n// uploadAssets uploads a release's assets.\nfunc uploadAssets(r *Release, assets []string) error { return nil }\n",
		"pkg/api/client.go":                "package api\n\n// REST sends a request to the API.\nfunc REST(method, path string, body any) error {\n\treq := newRequest(method, path)\n\treturn do(req.Header.Get(\"Accept\"), body)\n}\n\nfunc newRequest(method, path string) *Request { return nil }\n",
		"pkg/api/releases.go":              "package api\n\n// CreateRelease creates a release for a tag.\nfunc CreateRelease(repo, tag string) (*Release, error) {\n\treturn nil, REST(\"POST\", \"releases\", tag)\n}\n",
	}
	for i := range 30 {
		files[fmt.Sprintf("pkg/cmd/other%d/other.go", i)] = fmt.Sprintf("package other%d\n\n// Run runs command %d and calls the API.\nfunc Run%d() error { return api.REST(\"GET\", \"x\", nil) }\n", i, i, i)
	}
	writeFiles(t, root, files)
	ix := open(t, root, "")
	defer ix.Close()
	text := "gh release create panics in `createRun` when the tag name has a slash: the release is created but " +
		"the assets are not uploaded; release create should upload the assets of a release whose tag has a slash\n\n" +
		"panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 1 [running]:\n" +
		"github.com/cli/cli/v2/pkg/api.REST({0x1, 0x2}, {0x3, 0x4})\n\t/home/me/cli/pkg/api/client.go:6 +0x2c\n" +
		"github.com/cli/cli/v2/pkg/api.CreateRelease({0x5, 0x6})\n\t/home/me/cli/pkg/api/releases.go:5 +0x3f\n" +
		"github.com/cli/cli/v2/pkg/cmd/release/create.createRun(0xc0003)\n\t/home/me/cli/pkg/cmd/release/create/create.go:5 +0x3f1\n"
	inEveryStyle(t, ix, "", text, 0, func(t *testing.T, res *Result) {
		rankOf := map[string]int{}
		for k, f := range res.Files {
			rankOf[f.Path] = k
		}
		if rankOf["pkg/api/client.go"] <= rankOf["pkg/cmd/release/create/create.go"] {
			t.Fatalf("the ranking puts the client at #%d, the command at #%d: the case is not the one meant",
				rankOf["pkg/api/client.go"]+1, rankOf["pkg/cmd/release/create/create.go"]+1)
		}
		items := res.Pack.Items
		if len(items) == 0 || items[0].Path != "pkg/api/client.go" || items[0].Symbol != "REST" ||
			!strings.HasPrefix(items[0].Why[0], "stack frame 0 (client.go:6, in ") {
			t.Fatalf("first item: %v", itemNames(res.Pack))
		}
	})
}
