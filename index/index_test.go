package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sahilm/fuzzy"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/query"
	"github.com/ctxmap/ctxmap/internal/rank"
	"github.com/ctxmap/ctxmap/internal/records"
)

func TestBuildAndContext(t *testing.T) {
	ix := built(t, sample)
	st := ix.Snapshot().Stats()
	if st.Files != len(sample) {
		t.Errorf("files = %d, want %d (%+v)", st.Files, len(sample), st)
	}
	if st.Definitions < 10 || st.Entities == 0 {
		t.Errorf("stats too small: %+v", st)
	}
	res, err := ask(context.Background(), ix, Request{Text: "Cannot search for words longer than 15 characters in rule descriptions", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 || res.Files[0].Path != "rule/index.go" {
		t.Fatalf("top file = %v, want rule/index.go", res.Files)
	}
	if res.Pack.Tokens > 2000 || len(res.Pack.Items) == 0 {
		t.Fatalf("pack: %d tokens, %d items", res.Pack.Tokens, len(res.Pack.Items))
	}
	if !strings.Contains(res.Pack.Text, "func (r *RuleIndex) Search") {
		t.Errorf("pack lacks the Search method:\n%s", res.Pack.Text)
	}
	for _, it := range res.Pack.Items {
		if len(it.Why) == 0 {
			t.Errorf("item %s:%d has no why", it.Path, it.StartLine)
		}
	}
	if _, err := ask(context.Background(), ix, Request{Text: "  "}); err == nil {
		t.Error("empty text accepted")
	}
	if _, err := ask(context.Background(), ix, Request{Text: "x", Budget: 50}); err == nil {
		t.Error("budget 50 accepted")
	}
	if _, err := ix.Context(context.Background(), Resolved{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a request Resolve did not make: %v, want ErrInvalid", err)
	}
}

func TestErrorMessageFindsItsLiteral(t *testing.T) {
	ix := built(t, sample)
	res, err := ask(context.Background(), ix, Request{Text: `I get "cannot activate a rule without a key" when saving`})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Path != "qualityprofile/profile.go" {
		t.Fatalf("top file = %s, want qualityprofile/profile.go", res.Files[0].Path)
	}
	// without the literal matching, the generated error mapping still leads BM25 to the raising code
	res, err = ask(context.Background(), ix, Request{Text: `I get "cannot activate a rule without a key" when saving`, Without: []string{"errors"}, Ranker: RankerFusion})
	if err != nil {
		t.Fatal(err)
	}
	if top := res.Files[0]; top.Path != "qualityprofile/profile.go" || !strings.Contains(strings.Join(top.Why, " "), "matched via error at qualityprofile/profile.go") {
		t.Fatalf("without errors: top = %s %v", top.Path, top.Why)
	}
}

// snapshotState is what must be equal between an updated index and a fresh build.
func snapshotState(t *testing.T, ix *Index, without ...string) string {
	t.Helper()
	s := ix.Snapshot()
	type rec struct {
		Hash, Language, Skip string
		Lines                int
		File                 any
		Chunks               []records.ChunkRef
	}
	recs := map[string]rec{}
	for p, r := range s.files.All() {
		recs[p] = rec{Hash: r.Hash, Language: r.Language, Skip: r.Skip, Lines: r.Lines, File: r.File, Chunks: r.Chunks}
	}
	ents, _ := json.Marshal(s.Entities.Entities)
	state := map[string]any{"records": recs, "skipped": s.Skipped, "entities": string(ents), "graph": s.Graph, "symbols": s.Symbols, "lower": s.folded("rule")}
	b, err := json.MarshalIndent(state, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	// the cache's encoding does not keep empty lists apart from absent ones, and neither does the index
	b = []byte(strings.ReplaceAll(string(b), ": null", ": []"))
	// the lexical store must hold exactly the chunks of the records
	n, err := ix.lex.Count()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, term := range []string{"rule", "profile", "search", "export", "render", "func", "return", "variant"} {
		hits, err := ix.lex.Search(context.Background(), []bm25.Term{{Word: term, Weight: 1}}, 10000, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			ids = append(ids, term+":"+h.ID)
		}
	}
	sort.Strings(ids)
	// and a query must rank and pack alike, to the last bit of every score: BM25's statistics must not
	// depend on how the chunks came to be indexed
	ix.WaitVectors()
	res, err := ask(context.Background(), ix, Request{Text: "search the rule variants and export the quality profile", Without: without})
	if err != nil {
		t.Fatal(err)
	}
	var ranked []string
	for _, f := range res.Files {
		ranked = append(ranked, fmt.Sprintf("%s %v", f.Path, f.Score))
	}
	return fmt.Sprintf("%s\nchunks %d\n%s\nranked\n%s\npack\n%s", b, n, strings.Join(ids, "\n"), strings.Join(ranked, "\n"), res.Pack.Text)
}

// TestIncrementalEqualsRebuild applies random edits, creations, renames and deletions through Update
// and checks after each round that the index equals a fresh build of the same files.
func TestIncrementalEqualsRebuild(t *testing.T) {
	root := sampleRepo(t)
	cache := t.TempDir()
	ix := open(t, root, cache)
	defer func() { ix.Close() }()
	rng := rand.New(rand.NewSource(7))
	names := []string{"rule/index.go", "rule/rule.go", "qualityprofile/profile.go", "qualityprofile/export.py", "web/app.js", "README.md", "web/variant.js", "rule/extra/extra.go"}
	for round := 0; round < 12; round++ {
		var changed []string
		for k := 0; k < 1+rng.Intn(3); k++ {
			p := names[rng.Intn(len(names))]
			abs := filepath.Join(root, p)
			switch rng.Intn(4) {
			case 0: // delete
				os.Remove(abs)
				changed = append(changed, p)
			case 1: // rename to a sibling
				q := p + ".moved" + filepath.Ext(p)
				if os.Rename(abs, filepath.Join(root, q)) == nil {
					changed = append(changed, p, q)
					names = append(names, q)
				}
			default: // edit or create
				body := sample[p]
				if body == "" {
					body = fmt.Sprintf("// variant %d\nexport function variant%d(rule) { return rule.key; }\n", round, round)
					if strings.HasSuffix(p, ".go") {
						body = fmt.Sprintf("package extra\n\n// Variant%d is a rule variant.\nfunc Variant%d() string { return \"rule variant\" }\n", round, round)
					}
				}
				body += fmt.Sprintf("\n// edit %d: search rule variant %d\n", round, rng.Intn(100))
				if strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".md") {
					body = strings.ReplaceAll(body, "// edit", "# edit")
				}
				writeFiles(t, root, map[string]string{p: body})
				changed = append(changed, p)
			}
		}
		if round%4 == 3 {
			filetest.Git(t, root, "add", "-A")
			filetest.Git(t, root, "commit", "-q", "-m", fmt.Sprintf("Round %d: change rule variants", round))
			// history changes only with a build; a build must equal a fresh one too
			mustBuild(t, ix)
		} else if err := ix.Update(context.Background(), changed); err != nil {
			t.Fatal(err)
		}
		if round%6 == 5 {
			// a restart in between: the cache must carry the state over
			if err := ix.Close(); err != nil {
				t.Fatal(err)
			}
			ix = open(t, root, cache)
		}
		fresh := open(t, root, t.TempDir()) // on disk like ix: an in-memory index has no vectors
		got, want := snapshotState(t, ix), snapshotState(t, fresh)
		fresh.Close()
		if got != want {
			t.Fatalf("round %d (changed %v): updated index differs from a fresh build:\n%s", round, changed, firstDiff(got, want))
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  updated: %s\n  fresh:   %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d", len(al), len(bl))
}

// A frame names its folders: a relative basic/test_basic.py from the reporter's machine is not the
// workspace's tests/test_basic.py, while an absolute path ending in a workspace path is.
func TestFramePathsKeepTheirFolders(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"tests/test_basic.py": "def test_chained():\n    raise ValueError(1)\n",
		"pkg/report.py":       "def serialize(report):\n    return report\n",
	})
	ix := open(t, root, "")
	defer ix.Close()
	framed := func(text string) []string {
		res, err := ask(context.Background(), ix, Request{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range res.Files {
			if strings.Contains(strings.Join(f.Why, " "), "stack frame") {
				out = append(out, f.Path)
			}
		}
		return out
	}
	trace := func(frame string) string {
		return "Traceback (most recent call last):\n  " + frame + "\n    return report\nValueError: 11\n"
	}
	for _, tc := range []struct {
		name, frame, want string
	}{
		{"another folder", `File "basic/test_basic.py", line 1, in test_x`, ""},
		{"an absolute path", `File "/home/u/proj/pkg/report.py", line 2, in serialize`, "pkg/report.py"},
		// the same file name in the standard library: only the name matches, the folders do not
		{"the standard library", `File "C:\Python38\lib\report.py", line 1266, in stat`, ""},
		{"the installed package", `File "/usr/lib/python3/site-packages/pkg/report.py", line 2, in serialize`, "pkg/report.py"},
	} {
		got := framed(trace(tc.frame))
		if tc.want == "" && len(got) != 0 || tc.want != "" && (len(got) != 1 || got[0] != tc.want) {
			t.Errorf("a frame of %s resolved to %v, want %q", tc.name, got, tc.want)
		}
	}
}

// A question in a mapping file ranks its source first, says so in the why, and the file's own
// mapping YAML stays out of the way; a broken mapping file breaks nothing.
func TestMappingRanksItsSource(t *testing.T) {
	files := map[string]string{
		"billing/ledger.go":  "package billing\n\n// Post writes an entry.\nfunc Post(amount int) int { return amount }\n",
		"billing/invoice.go": "package billing\n\n// Render formats the invoice.\nfunc Render(id string) string { return id }\n",
		"mappings/ledger.yaml": "source: billing/ledger.go::Post\nmappings:\n  - type: question\n    text: how do I record a customer refund in the accounts\n" +
			"  - type: code_analog\n    language: python\n    text: accounts.record_refund(customer, amount)\n",
		"mappings/broken.yaml": "source: [\n",
	}
	for p, b := range sample {
		files[p] = b
	}
	ix := built(t, files)
	res, err := ask(context.Background(), ix, Request{Text: "How can I record a refund for a customer?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Path != "billing/ledger.go" || !strings.Contains(strings.Join(res.Files[0].Why, " "), "matched via ") || !strings.Contains(strings.Join(res.Files[0].Why, " "), " at mappings/ledger.yaml:") {
		t.Fatalf("top = %s %v", res.Files[0].Path, res.Files[0].Why)
	}
	if !showsDefinition(ix, res.Pack, "billing/ledger.go", "Post") {
		t.Errorf("the pack lacks the mapped definition: %+v", res.Pack.Items)
	}
}

// Secrets files are skipped with their reason and never reach a pack, even when asked for by name.
func TestSecretsNeverInAPack(t *testing.T) {
	files := map[string]string{
		".env":            "PAYMENT_TOKEN=sk-planted-0451\n",
		"deploy/tls.key":  "sk-planted-0451\n",
		"config/pay.go":   "package config\n\n// PaymentToken reads the payment token from the environment.\nfunc PaymentToken() string { return \"\" }\n",
		".env.example":    "PAYMENT_TOKEN=\n",
		"docs/payment.md": "# Payment\n\nSet PAYMENT_TOKEN in .env.\n",
	}
	ix := built(t, files)
	for _, q := range []string{"PAYMENT_TOKEN in .env is wrong", "what is in deploy/tls.key", "payment token"} {
		res, err := ask(context.Background(), ix, Request{Text: q, Format: "json"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Pack.Text, "sk-planted-0451") {
			t.Errorf("%q: a secret reached the pack:\n%s", q, res.Pack.Text)
		}
	}
	s := ix.Snapshot()
	for _, p := range []string{".env", "deploy/tls.key"} {
		if s.Skipped[p] != "secret" || s.Record(p) != nil {
			t.Errorf("%s: skipped as %q, want secret", p, s.Skipped[p])
		}
	}
}

// A NUL byte past the first 8 KiB the walk sniffs makes the file binary, a skip with its reason, not
// an index warning.
func TestLateNULIsBinary(t *testing.T) {
	ix := built(t, map[string]string{
		"data/sample.txt": strings.Repeat("plain text line\n", 1000) + "\x00tail\n",
		"main.go":         "package main\n\nfunc main() {}\n",
	})
	if got := ix.Snapshot().Skipped["data/sample.txt"]; got != "binary" {
		t.Errorf("skipped as %q, want binary", got)
	}
	for _, w := range ix.Warnings() {
		if strings.Contains(w, "sample.txt") {
			t.Errorf("warning: %s", w)
		}
	}
}

// A save without changes (a new modification time, the same bytes) keeps the file's chunks: the
// record is reused and the stores are left as they are.
func TestSaveWithoutChangesKeepsChunks(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, sample)
	ix := open(t, root, t.TempDir())
	defer ix.Close()
	before, err := ix.lex.Count()
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(root, "rule/index.go"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := ix.Update(context.Background(), []string{"rule/index.go"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Build(context.Background(), nil); err != nil { // and through a rescan
		t.Fatal(err)
	}
	after, _ := ix.lex.Count()
	if after != before {
		t.Fatalf("chunks %d -> %d after a save without changes", before, after)
	}
	res, err := ask(context.Background(), ix, Request{Text: "RuleIndex search"})
	if err != nil || res.Files[0].Path != "rule/index.go" {
		t.Fatalf("the file is no longer found: %v %+v", err, res.Files)
	}
}

// loopingSwift makes the swift grammar loop (found by FuzzParse): a mangled Kotlin file.
const loopingSwift = "etries and a backoff.\n */\nclass Downloader(private val client: HttpClient) {\n    private var attempts = 0\n\n    // Fetches url, retrying on I/O ors.\n    suspend fun fetch(url: String): ByteArray \x8a\n        repeat(MAX_RETRIES) { attempt ->\n            try {\n                retur\xdd\xe6 g\xe0\xbf\xc6n\xcadcatch lient.get(url)\n            } catch (e: IO\\xception) {\n                attempts++\n                // TODO:\x12\b\xb4\xca\xf8"

// A file its grammar cannot finish costs the parse deadline once: it is indexed as plain text, with a
// warning, stays searchable, and is not parsed again until it changes.
func TestGrammarLoopIndexesAsText(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the parse deadline")
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"Sources/Downloader.swift": loopingSwift,
		"main.go":                  "package main\n\nfunc main() {}\n",
	})
	ix := mustOpen(t, Options{Root: root, InMemory: true})
	defer ix.Close()
	st := mustBuild(t, ix)
	rec := ix.Snapshot().Record("Sources/Downloader.swift")
	if rec == nil || rec.Skip != "" || rec.File == nil || rec.File.Language != "text" {
		t.Fatalf("record = %+v, want the file indexed as text", rec)
	}
	if w := strings.Join(st.Warnings, "\n"); !strings.Contains(w, "Downloader.swift: the swift grammar did not finish") {
		t.Errorf("warnings: %s", w)
	}
	res, err := ask(context.Background(), ix, Request{Text: "the Downloader gives up retrying too early"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 || res.Files[0].Path != "Sources/Downloader.swift" {
		t.Errorf("files = %v, want Sources/Downloader.swift first", res.Files)
	}
	if st, err = ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if st.Parsed != 0 {
		t.Errorf("an unchanged file was parsed again (%d parsed)", st.Parsed)
	}
}

// A language without a grammar here (jq) is read by its keywords: a definition deep in a long file is a
// symbol, and the file is code, not prose to be kept behind the code.
func TestKeywordDefinitionsRank(t *testing.T) {
	var jq strings.Builder
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&jq, "def helper%d: . + %d;\n", i, i)
	}
	jq.WriteString("def sub($re; str; $flags): reduce match($re; $flags) as $edit (.; str);\n")
	jq.WriteString("def gsub($re; str): sub($re; str; \"g\");\n")
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"src/builtin.jq": jq.String(),
		"src/builtin.c": "/* match, test and split: an empty pattern must not loop forever; gsub calls match */\n" +
			"static int f_match(int input, int regex) {\n  return input + regex; /* the pattern */\n}\n",
		"docs/manual.yml": "- title: gsub\n  body: replaces every match of the pattern; an empty pattern loops\n",
	})
	ix := open(t, root, "")
	defer ix.Close()
	res, err := ask(context.Background(), ix, Request{Text: "gsub loops forever with an empty pattern\n\n    jq '.key|=gsub(\"\";\"\")'"})
	if err != nil {
		t.Fatal(err)
	}
	if top := res.Files[0]; top.Path != "src/builtin.jq" || !strings.Contains(strings.Join(top.Why, " "), "defines `gsub`") {
		t.Fatalf("top = %s %v, want src/builtin.jq defining gsub", top.Path, top.Why)
	}
}

// A long function is searchable to its end: past the first chunk's cap its body goes into windows of
// its own, linked to the function. A class's members have their own chunks instead.
func TestLongFunctionIsSearchableToItsEnd(t *testing.T) {
	var body, class strings.Builder
	body.WriteString("package main\n\nfunc main() {\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&body, "\tstep(%d)\n", i)
	}
	body.WriteString("\trotateJournal() // the journal is rotated after every run\n}\n\nfunc step(int) {}\nfunc rotateJournal() {}\n")
	class.WriteString("class Store:\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&class, "    def get%d(self):\n        return %d\n\n", i, i)
	}
	ix := built(t, map[string]string{"main.go": body.String(), "store.py": class.String(), "other.go": "package main\n\n// rotate the logs\nfunc other() {}\n"})
	windows := func(path, symbol string) (n int, last int) {
		for _, c := range ix.Snapshot().Record(path).Chunks {
			if c.Symbol == symbol {
				n, last = n+1, c.EndLine
			}
		}
		return n, last
	}
	if n, last := windows("main.go", "main"); n != 3 || last != 305 {
		t.Errorf("main: %d chunks ending at line %d, want 3 ending at 305", n, last)
	}
	if n, _ := windows("store.py", "Store"); n != 1 {
		t.Errorf("class Store: %d chunks, want 1 (its methods have theirs)", n)
	}
	res, err := ask(context.Background(), ix, Request{Text: "the journal is rotated after every run, twice"})
	if err != nil {
		t.Fatal(err)
	}
	if top := res.Files[0]; top.Path != "main.go" || !showsDefinition(ix, res.Pack, "main.go", "main") {
		t.Errorf("top = %s %v; want main.go with its main", top.Path, top.Why)
	}
}

// rankedFiles indexes files in a fresh workspace and ranks them for text.
func rankedFiles(t *testing.T, files map[string]string, text string) []rank.RankedFile {
	t.Helper()
	ix := built(t, files)
	res, err := ask(context.Background(), ix, Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 {
		t.Fatal("no file ranked")
	}
	return res.Files
}

// The project's own code comes first: before code copied in from another project (a fix goes
// upstream), before its type declarations, and whatever the paths of the reporter's machine say.
func TestTheProjectsCodeComesFirst(t *testing.T) {
	cases := []struct {
		name          string
		files         map[string]string
		text          string
		first, second string // second: "" when any file may follow
	}{{
		name: "vendored code is demoted",
		files: map[string]string{
			"third_party/cpplint/cpplint.py": "# lint: check the indentation of every line and report tabs\ndef check_indentation(line):\n    return line.startswith('\\t')\n",
			"src/format.py":                  "# the indentation of the output\ndef indent(line):\n    return '  ' + line\n",
		},
		text:  "wrong indentation of every line with tabs",
		first: "src/format.py",
	}, {
		name: "declaration files come after their code",
		files: map[string]string{
			"types/duration.d.ts": "// A duration of time in milliseconds, weeks, days.\nexport declare function duration(ms: number, unit?: string): Duration\nexport interface Duration { weeks(): number; days(): number }\n",
			"src/duration.js":     "// duration in weeks and days\nexport function duration(ms, unit) {\n  return { weeks: () => Math.floor(ms / 604800000), days: () => ms / 86400000 }\n}\n",
		},
		text:  "duration weeks() returns the wrong number of weeks in milliseconds",
		first: "src/duration.js", second: "types/duration.d.ts",
	}, {
		name: "the reporter's paths are not query words",
		files: map[string]string{
			"skipping.py":       "# an expected failure is read when the test runs\ndef expected(node):\n    return node.own_markers\n",
			"themes/sandbox.py": "# the sandbox theme: envs, packages and site settings for the users\ndef sandbox_theme(users, envs, packages, site):\n    return dict(users=users, envs=envs, packages=packages, site=site)\n",
		},
		text:  "An expected failure added when the test runs is ignored\n\n```\nLocation: /Users/me/sandbox/envs/theme/lib/site-packages\n/Users/me/sandbox/envs/theme/packages/site/users.py\n```\n",
		first: "skipping.py",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := rankedFiles(t, c.files, c.text)
			if files[0].Path != c.first || c.second != "" && (len(files) < 2 || files[1].Path != c.second) {
				t.Errorf("files = %v, want %s first, then %q", files, c.first, c.second)
			}
		})
	}
}

func TestCodeCallersBeforeProse(t *testing.T) {
	root := t.TempDir()
	readme := "# Billing\n"
	for i := 0; i < 8; i++ {
		readme += fmt.Sprintf("\n## Release %d\n\nThanks to contributor %d, who fixed `computeTotal()` once more.\n", i, i)
	}
	writeFiles(t, root, map[string]string{
		"README.md":          readme,
		"billing/invoice.go": "package billing\n\n// computeTotal adds the lines of an invoice with their tax.\nfunc computeTotal(lines []float64, tax float64) float64 {\n\tsum := 0.0\n\tfor _, l := range lines {\n\t\tsum += l\n\t}\n\treturn sum * (1 + tax)\n}\n",
		"shop/checkout.go":   "package shop\n\n// Checkout charges the cart.\nfunc Checkout(lines []float64) float64 {\n\treturn computeTotal(lines, 0.2)\n}\n",
	})
	ix := open(t, root, "")
	defer ix.Close()
	a := query.Analyze("computeTotal adds the tax twice on an invoice", nil)
	ranked, err := rank.Rank(context.Background(), ix.view(ix.Snapshot()), a, rank.Options{Ranker: rank.Fusion})
	if err != nil {
		t.Fatal(err)
	}
	if files := ranked.Files; len(files) == 0 || files[0].Path != "billing/invoice.go" {
		t.Fatalf("files = %v, want billing/invoice.go first", files)
	}
	for _, c := range ranked.Candidates {
		if c.Kind == "caller" {
			if c.Path != "shop/checkout.go" {
				t.Errorf("first caller is %s:%d, want the code that calls computeTotal, shop/checkout.go", c.Path, c.StartLine)
			}
			return
		}
	}
	t.Error("no caller among the candidates")
}

// The letters prefilter may only drop names a fuzzy match cannot find: matching the kept names gives
// the same matches, in the same order, as matching them all.
func TestLetterFilterKeepsEveryFuzzyMatch(t *testing.T) {
	names := []string{"BuildTree", "build_tree", "TreeBuilder", "buildTreeFromRoot", "bld_tr", "Bülder",
		"\u212Aeeper", "keeper", "KEEP_ALIVE", "parse2json", "Parse_JSON", "x", "", "tree", "rebuild"}
	for i := range 300 { // names of every ASCII character and a few non-ASCII ones
		names = append(names, fmt.Sprintf("n%c%c_%d", rune(33+i%94), rune(0xc0+i%64), i))
	}
	s := &Snapshot{Symbols: map[string][]records.SymbolRef{}}
	for _, n := range names {
		s.Symbols[n] = nil
	}
	patterns := []string{"buildtree", "build_tree", "treebuild", "keeper", "KEEP", "Parse2", "parsejson", "ülder", "n!", "~_1", "zzz"}
	for _, p := range patterns {
		var all, kept []string
		for _, m := range fuzzy.Find(p, s.SymbolNames()) {
			all = append(all, m.Str)
		}
		for _, m := range fuzzy.Find(p, s.namesWithLetters(p)) {
			kept = append(kept, m.Str)
		}
		if !slices.Equal(all, kept) {
			t.Errorf("%q: all names match %q, the filtered ones %q", p, all, kept)
		}
		if len(s.namesWithLetters(p)) == len(names) && p == "buildtree" {
			t.Errorf("%q: the filter kept every name", p)
		}
	}
	if got := s.namesWithLetters("keeper"); !slices.Contains(got, "\u212Aeeper") {
		t.Errorf("the Kelvin sign folds to k, yet %q was dropped: %q", "\u212Aeeper", got)
	}
}

// A build that reads some files first (those of a partial pack) answers as a build in path order does,
// also where BM25's scores tie past the chunks a search keeps.
func TestReadFirstBuildsTheSameIndex(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"pay/cart.go": "package pay\n\n// Cart holds what a refund gives back.\ntype Cart struct{}\n"}
	var late []string
	for i := range 2 * loadBatch {
		p := fmt.Sprintf("pay/refund%03d.go", i)
		files[p] = "package pay\n\n// Refund gives the money back.\nfunc Refund() {}\n"
		if i >= loadBatch {
			late = append(late, p)
		}
	}
	writeFiles(t, root, files)
	build := func(first []string) *Index {
		ix := mustOpen(t, Options{Root: root, InMemory: true})
		t.Cleanup(func() { ix.Close() })
		ix.ReadFirst(first)
		mustBuild(t, ix)
		return ix
	}
	inOrder, lateFirst := build(nil), build(late)
	for _, text := range []string{"the refund gives no money back", "`Refund` of a cart"} {
		want, err := ask(context.Background(), inOrder, Request{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ask(context.Background(), lateFirst, Request{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if got.Pack.Text != want.Pack.Text {
			t.Errorf("%s: the build that read %s first answers\n%s\nthe build in path order\n%s", text, late[0], got.Pack.Text, want.Pack.Text)
		}
	}
}

// ReadFirst's files go to the front of what a build has left, the others in their order.
func TestTakeFirst(t *testing.T) {
	ix := &Index{}
	ix.ReadFirst([]string{"d", "b", "z"})
	work := []fileStat{{path: "a"}, {path: "b"}, {path: "c"}, {path: "d"}}
	ix.takeFirst(work)
	var got []string
	for _, f := range work {
		got = append(got, f.path)
	}
	if want := []string{"b", "d", "a", "c"}; !slices.Equal(got, want) {
		t.Errorf("work %v, want %v", got, want)
	}
	if len(ix.first) != 0 {
		t.Errorf("names left after the build took them: %v", ix.first)
	}
}
