package index

import (
	"context"
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
	{"learned, recall", Request{}},
	{"learned, tight", Request{Tight: true}},
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
		if c.first == nil || c.first.why != "stack frame" {
			continue
		}
		// the trace alone: no title to help
		_, trace, _ := strings.Cut(fill(t, c.text, marks), "\n\n")
		inEveryStyle(t, ix, c.name+"/", trace, 4000, func(t *testing.T, res *Result) {
			if len(res.Pack.Items) == 0 {
				t.Fatal("an empty pack")
			}
			first := res.Pack.Items[0]
			if got := first.Path + "::" + first.Symbol; got != c.first.ref {
				t.Fatalf("first item %s, want %s; items: %v", got, c.first.ref, itemNames(res.Pack))
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
	withOthers(files, 30, "go") // a project, not three files
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
	files := map[string]string{
		"pkg/cmd/release/create/create.go": "package create\n\n// createRun creates a release and uploads its assets.\nfunc createRun(opts *CreateOptions) error {\n\trelease, err := api.CreateRelease(opts.Repo, opts.TagName)\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn uploadAssets(release, opts.Assets)\n}\n\n// uploadAssets uploads a release's assets.\nfunc uploadAssets(r *Release, assets []string) error { return nil }\n",
		"pkg/api/client.go":                "package api\n\n// REST sends a request to the API.\nfunc REST(method, path string, body any) error {\n\treq := newRequest(method, path)\n\treturn do(req.Header.Get(\"Accept\"), body)\n}\n\nfunc newRequest(method, path string) *Request { return nil }\n",
		"pkg/api/releases.go":              "package api\n\n// CreateRelease creates a release for a tag.\nfunc CreateRelease(repo, tag string) (*Release, error) {\n\treturn nil, REST(\"POST\", \"releases\", tag)\n}\n",
	}
	ix := built(t, copies(files, 30, "pkg/cmd/other%d/other.go",
		"package other%[1]d\n\n// Run runs command %[1]d and calls the API.\nfunc Run%[1]d() error { return api.REST(\"GET\", \"x\", nil) }\n"))
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

// withOthers adds n small files of other commands to a workspace, so that a case is a project, not
// three files; lang is "go" or "py".
func withOthers(files map[string]string, n int, lang string) map[string]string {
	if lang == "py" {
		return copies(files, n, "app/other%d/run.py", "def run%[1]d(args):\n    \"\"\"Run command %[1]d.\"\"\"\n    return args\n")
	}
	return copies(files, n, "pkg/cmd/other%d/other.go", "package other%[1]d\n\n// Run runs command %[1]d.\nfunc Run%[1]d() error { return nil }\n")
}

// pinnedBy checks that the pack holds item, its first reason starting with why.
func pinnedBy(t *testing.T, ix *Index, res *Result, item, why string) {
	t.Helper()
	it := findItem(ix, res.Pack, item)
	if it == nil {
		t.Fatalf("the pack lacks %s; items: %v", item, itemNames(res.Pack))
	}
	if !strings.HasPrefix(it.Why[0], why) {
		t.Errorf("%s: why = %q, want it to start with %q", item, it.Why, why)
	}
}

// A quoted message pins the definition whose literal holds the most of it, not one whose format string
// shares its last words.
func TestAQuotedMessagePinsTheWholeMatch(t *testing.T) {
	ix := built(t, withOthers(map[string]string{
		"pkg/cache/store.go": "package cache\n\n// Put adds an entry.\nfunc Put(key string) error {\n\tif key == \"\" {\n\t\treturn nil\n\t}\n" +
			"\treturn fmt.Errorf(\"%s already exists\", key)\n}\n",
		"pkg/cmd/release/create/create.go": "package create\n\n// createRun creates a release.\nfunc createRun(tag string) error {\n\tif tag == \"\" {\n\t\treturn nil\n\t}\n" +
			"\treturn fmt.Errorf(\"a release with tag %s already exists\", tag)\n}\n",
	}, 30, "go"))
	text := "gh release create says \"a release with tag v1.2.0 already exists\" for a new tag"
	inEveryStyle(t, ix, "", text, 4000, func(t *testing.T, res *Result) {
		pinnedBy(t, ix, res, "pkg/cmd/release/create/create.go::createRun", "error message")
		if it := findItem(ix, res.Pack, "pkg/cache/store.go::Put"); it != nil && strings.HasPrefix(it.Why[0], "error message") {
			t.Errorf("the format string that shares the message's last words is pinned: %q", it.Why)
		}
	})
}

// A Go frame's function is looked up in its package's folder: another package's function of the same
// name is not that frame.
func TestAGoFrameNamesItsPackagesFunction(t *testing.T) {
	view := func(pkg string) string {
		return "package view\n\n// run renders the " + pkg + " view.\nfunc run(w io.Writer) error {\n\tvar rows []string\n\tfor _, r := range rows {\n" +
			"\t\tfmt.Fprintln(w, r)\n\t}\n\treturn render(w)\n}\n"
	}
	ix := built(t, withOthers(map[string]string{
		"pkg/a/view/view.go":   view("a"),
		"pkg/b/view/view.go":   view("b"),
		"pkg/a/view/render.go": "package view\n\n// render draws the table.\nfunc render(w io.Writer) error {\n\tvar t *Table\n\treturn t.Draw(w)\n}\n",
	}, 20, "go"))
	text := "panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 1 [running]:\n" +
		"example.com/app/pkg/a/view.render({0x1, 0x2})\n\t/build/app/pkg/a/view/render.go:6 +0x2c\n" +
		"example.com/app/pkg/a/view.run({0x3, 0x4})\n\t/build/app/pkg/a/view/view.go:9 +0x3f\n"
	inEveryStyle(t, ix, "", text, 4000, func(t *testing.T, res *Result) {
		for _, it := range res.Pack.Items {
			if it.Path == "pkg/b/view/view.go" && strings.Contains(strings.Join(it.Why, ";"), "stack frame") {
				t.Errorf("another package's run is labelled a frame: %q", it.Why)
			}
		}
		for _, f := range res.Files {
			if f.Path == "pkg/b/view/view.go" && strings.Contains(strings.Join(f.Why, ";"), "stack frame") {
				t.Errorf("another package's run is ranked as a frame: %q", f.Why)
			}
		}
	})
}

// A trace whose innermost project frame is in a small shared module's top-level code: the module,
// shown whole, comes first, before its caller's frame.
func TestAFrameInAWholeSmallFileLeads(t *testing.T) {
	ix := built(t, withOthers(map[string]string{
		"app/api/client.py": "import os\n\nimport requests\n\nSESSION = requests.Session()\nSESSION.headers[\"Authorization\"] = os.environ[\"API_TOKEN\"]\n\n\n" +
			"def get(path):\n    return SESSION.get(path)\n",
		"app/cmd/release.py": "def create_release(tag):\n    \"\"\"Create a release for a tag and upload its assets.\"\"\"\n    if not tag:\n        return None\n" +
			"    from app.api import client\n    return client.get('/releases/' + tag)\n\n\ndef upload_assets(release, assets):\n    \"\"\"Upload a release's assets.\"\"\"\n    return [release, assets]\n",
	}, 30, "py"))
	text := "Creating a release crashes with a KeyError when I run `create_release` without a token: the release " +
		"command should say that the token is missing\n\n```\nTraceback (most recent call last):\n" +
		"  File \"/home/me/app/cmd/release.py\", line 5, in create_release\n    from app.api import client\n" +
		"  File \"/home/me/app/api/client.py\", line 6, in <module>\n    SESSION.headers[\"Authorization\"] = os.environ[\"API_TOKEN\"]\n" +
		"KeyError: 'API_TOKEN'\n```\n"
	inEveryStyle(t, ix, "", text, 0, func(t *testing.T, res *Result) {
		items := res.Pack.Items
		if len(items) == 0 || items[0].Path != "app/api/client.py" || !strings.HasPrefix(items[0].Why[0], "stack frame 0 (client.py:6") {
			t.Fatalf("first item: %v", itemNames(res.Pack))
		}
	})
}

// giftCardShop is a project where the words of an issue template's answers, an environment block and
// an image link each name files that have nothing to do with the bug.
func giftCardShop(t *testing.T) *Index {
	return built(t, withOthers(map[string]string{
		"pkg/refund/giftcard.go": "package refund\n\n// RefundGiftCard gives a gift card's balance back after a refund.\nfunc RefundGiftCard(card *GiftCard, amount int) error {\n" +
			"\tif card.Balance+amount > card.Limit {\n\t\treturn errLimit\n\t}\n\tcard.Balance += amount\n\treturn nil\n}\n",
		"packaging/homebrew/formula.rb": "# Homebrew formula: install method for macOS\nclass Shop < Formula\n  desc \"shop\"\n  version \"2.4.1\"\n" +
			"  def install\n    bin.install \"shop\"\n  end\nend\n",
		"internal/platform/macos.go": "package platform\n\n// MacOSVersion names the operating system on macOS (darwin, arm64).\nfunc MacOSVersion() string { return \"14.2\" }\n\n" +
			"// CPU names the processor: Apple M1, arm64.\nfunc CPU() string { return \"arm64\" }\n",
		"scripts/node.js":         "// Checks the Node and npm versions the binaries need.\nfunction nodeVersion() { return process.versions.node }\nfunction npmVersion() { return '9.6.7' }\n",
		"adapters/http/server.go": "package http\n\n// Server adapts the shop to HTTP: images, png and user uploads.\nfunc Server() bool { return true }\n",
		"adapters/http/image.go":  "package http\n\n// Image serves a png image of githubusercontent assets.\nfunc Image() bool { return true }\n",
	}, 30, "go"))
}

// noItemFrom fails the test when the pack shows a file under one of the folders.
func noItemFrom(t *testing.T, res *Result, folders ...string) {
	t.Helper()
	for _, it := range res.Pack.Items {
		for _, f := range folders {
			if strings.HasPrefix(it.Path, f) {
				t.Errorf("%s::%s (%q) from words that were set aside", it.Path, it.Symbol, it.Why)
			}
		}
	}
}

// setAsideDrivesNothing checks, in every style, that the packs for text over the gift card shop show
// no file under folders, and that their header says what was set aside (said).
func setAsideDrivesNothing(t *testing.T, text, said string, folders ...string) {
	t.Helper()
	ix := giftCardShop(t)
	inEveryStyle(t, ix, "", text, 4000, func(t *testing.T, res *Result) {
		noItemFrom(t, res, folders...)
		if !strings.Contains(res.Pack.Text, "- set aside: "+said+" ignored") {
			t.Errorf("the header does not say what was set aside:\n%s", head(res.Pack.Text, 12))
		}
	})
}

func TestATemplatesAnswersDriveNothing(t *testing.T) {
	text := "Gift card refunds fail\n\n### Describe the bug\n\nRefunding a gift card returns an error and the balance is not restored.\n\n" +
		"### Version\n\n2.4.1\n\n### Installation method\n\nHomebrew\n\n### Operating system\n\nmacOS\n"
	setAsideDrivesNothing(t, text, "3 template answers", "packaging/", "internal/platform/")
}

func TestAnEnvironmentBlockDrivesNothing(t *testing.T) {
	text := "Gift card refunds fail\n\nRefunding a gift card returns an error and the balance is not restored.\n\n### System Details\n\n" +
		"```\nSystem:\n  OS: macOS 14.2\n  CPU: (8) arm64 Apple M1\nBinaries:\n  Node: 18.17.0 - /usr/local/bin/node\n  npm: 9.6.7 - /usr/local/bin/npm\n```\n"
	setAsideDrivesNothing(t, text, "1 environment block", "scripts/", "internal/platform/", "packaging/")
}

func TestAnImageLinkDrivesNothing(t *testing.T) {
	text := "Gift card refunds fail\n\nRefunding a gift card returns an error and the balance is not restored.\n\n" +
		"![image](https://user-images.githubusercontent.com/1234/http-server-image.png)\n"
	setAsideDrivesNothing(t, text, "1 image", "adapters/")
}

// head is the first n lines of s.
func head(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// A title in Chinese that names a class in code, with no space around it: the class leads the pack.
func TestAChineseTitleNamingAClassFindsIt(t *testing.T) {
	class := func(pkg, name, doc string) string {
		return "package com.acme." + pkg + ";\n\n/** " + doc + " */\npublic class " + name + " {\n    public boolean accept(String token) {\n" +
			"        return token != null && !token.isEmpty();\n    }\n}\n"
	}
	ix := built(t, withOthers(map[string]string{
		"src/main/java/com/acme/auth/TokenValidator.java": class("auth", "TokenValidator", "Checks a session token's signature and expiry."),
		"src/main/java/com/acme/auth/TokenStore.java":     class("auth", "TokenStore", "Keeps the tokens of the sessions."),
		"src/main/java/com/acme/auth/TokenCache.java":     class("auth", "TokenCache", "Caches tokens for a minute."),
		"src/main/java/com/acme/order/OrderService.java":  class("order", "OrderService", "Places orders."),
	}, 20, "go"))
	text := "调用TokenValidator校验令牌时抛出异常\n\n升级到2.0之后，每次登录都会报错，截图如下。"
	inEveryStyle(t, ix, "", text, 4000, func(t *testing.T, res *Result) {
		if len(res.Pack.Items) == 0 || res.Pack.Items[0].Path != "src/main/java/com/acme/auth/TokenValidator.java" {
			t.Fatalf("items: %v", itemNames(res.Pack))
		}
	})
}

// A name quoted as a language writes it, or a flag, pins the definition it means: a nested Java class
// in its binary form (Outer$Inner) the class Outer.Inner; a Rust macro named with its bang the macro,
// not a function of the same name; a command-line flag the string literal that declares it; a Go name
// with its package's import path the function in that package's folder.
func TestAQuotedNamePinsTheDefinitionItMeans(t *testing.T) {
	entry := func(pkg, outer string) string {
		return "package com.acme." + pkg + ";\n\npublic class " + outer + " {\n    /** One line of the " + pkg + ". */\n" +
			"    public static class Entry {\n        private final String id;\n\n        Entry(String id) {\n            this.id = id;\n        }\n\n" +
			"        public String key() {\n            return id.trim();\n        }\n    }\n\n    public Entry first() {\n        return null;\n    }\n}\n"
	}
	view := func(pkg string) string {
		return "package view\n\n// run renders the " + pkg + " view.\nfunc run(w io.Writer) error {\n\treturn nil\n}\n"
	}
	for _, c := range []struct {
		name   string
		files  map[string]string
		others int
		text   string
		item   string
		why    string
	}{
		{"nested class", map[string]string{
			"src/main/java/com/acme/order/OrderBook.java": entry("order", "OrderBook"),
			"src/main/java/com/acme/cart/Cart.java":       entry("cart", "Cart"),
		}, 20, "NullPointerException from `OrderBook$Entry` when a line has no id",
			"src/main/java/com/acme/order/OrderBook.java::OrderBook.Entry", "`OrderBook$Entry` quoted in the text"},
		{"macro", map[string]string{
			"src/macros.rs": "/// Checks a buffer's length.\n#[macro_export]\nmacro_rules! ensure_len {\n    ($buf:expr, $n:expr) => {\n" +
				"        if $buf.len() < $n {\n            panic!(\"buffer of {} bytes\", $buf.len());\n        }\n    };\n}\n",
			"src/legacy.rs": "/// The old check, kept for the C API.\npub fn ensure_len(buf: &[u8], n: usize) -> bool {\n    buf.len() >= n\n}\n",
			"src/frame.rs":  "/// Reads a frame.\npub fn read_frame(buf: &[u8]) -> usize {\n    ensure_len!(buf, 4);\n    buf[0] as usize\n}\n",
		}, 20, "Calling ensure_len! on an empty buffer panics with a message that names no frame",
			"src/macros.rs::ensure_len", "`ensure_len!` quoted in the text"},
		{"flag", map[string]string{
			"pkg/cmd/repo/sync/sync.go": "package sync\n\n// NewCmdSync makes the sync command.\nfunc NewCmdSync(opts *SyncOptions) *Command {\n" +
				"\tcmd := &Command{Use: \"sync\"}\n\tcmd.Flags().BoolVar(&opts.Force, \"force\", false, \"Hard reset the branch\")\n" +
				"\tcmd.Flags().BoolVar(&opts.Preview, \"dry-run\", false, \"Show the changes without making them\")\n\treturn cmd\n}\n\n" +
				"// syncRun syncs a repository.\nfunc syncRun(opts *SyncOptions) error {\n\tif opts.Preview {\n\t\treturn nil\n\t}\n\treturn push(opts)\n}\n",
			"pkg/cmd/repo/sync/git.go": "package sync\n\n// push pushes the branch.\nfunc push(opts *SyncOptions) error { return nil }\n",
		}, 30, "gh repo sync `--dry-run` still pushes\n\nWith the flag the command should only say what it would change.",
			"pkg/cmd/repo/sync/sync.go::NewCmdSync", "flag `--dry-run` declared at line 7"},
		{"go import path", map[string]string{
			"pkg/a/view/view.go": view("a"),
			"pkg/b/view/view.go": view("b"),
		}, 20, "`example.com/app/pkg/a/view.run` writes nothing when the table is empty",
			"pkg/a/view/view.go::run", "`example.com/app/pkg/a/view.run` quoted in the text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ix := built(t, withOthers(c.files, c.others, "go"))
			inEveryStyle(t, ix, "", c.text, 4000, func(t *testing.T, res *Result) {
				pinnedBy(t, ix, res, c.item, c.why)
			})
		})
	}
}
