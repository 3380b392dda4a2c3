package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// full runs the long versions of the reliability tests.
var full = os.Getenv("CTXMAP_RELIABILITY") == "full"

// vocabulary gives the files of a test workspace their words.
var vocabulary = strings.Fields(`invoice refund ledger tax discount coupon cart shipping carrier parcel warehouse stock
	supplier payment card wallet receipt currency rate customer address loyalty voucher basket checkout`)

// writeWorkspace makes a workspace of n Go files whose words differ enough that no two tie in BM25.
func writeWorkspace(t testing.TB, n int, vectors bool) string {
	t.Helper()
	root := t.TempDir()
	for i := 0; i < n; i++ {
		p := filepath.Join(root, fmt.Sprintf("pkg%02d", i%20), fmt.Sprintf("file%04d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		doc := strings.Repeat(vocabulary[i%len(vocabulary)]+" ", 1+i%5) + strings.Repeat(vocabulary[(i*7)%len(vocabulary)]+" ", 1+i%3)
		src := fmt.Sprintf("package pkg%02d\n\n// Order%d is about %s\ntype Order%d struct{ ID int }\n\n"+
			"// Total%d adds the lines of an invoice.\nfunc Total%d(o Order%d) int { return o.ID * %d }\n", i%20, i, doc, i, i, i, i, i)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !vectors {
		if err := os.WriteFile(filepath.Join(root, ".ctxmap.yaml"), []byte("vectors: false\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// indexed is one finished `ctxmap index`.
type indexed struct {
	stats  map[string]any
	stderr string
	err    error
}

// indexRun runs `ctxmap index --json` on root with cache as XDG_CACHE_HOME, killing it after limit.
func indexRun(bin, root, cache string, limit time.Duration) indexed {
	// --quiet: what is said on stderr is then only what went wrong
	stdout, stderr, err := runFor(command(bin, cache, "index", "-C", root, "--json", "--quiet"), limit)
	r := indexed{stderr: stderr, err: err}
	if err == nil {
		if jerr := json.Unmarshal([]byte(stdout), &r.stats); jerr != nil {
			r.err = fmt.Errorf("%v: %s", jerr, stdout)
		}
	}
	return r
}

var counted = []string{"files", "definitions", "references", "chunks", "entities"}

// sameCounts compares the counts of two runs, those named by keys or else all of counted.
func sameCounts(got, want map[string]any, keys ...string) string {
	if len(keys) == 0 {
		keys = counted
	}
	var diff []string
	for _, k := range keys {
		if got[k] != want[k] {
			diff = append(diff, fmt.Sprintf("%s %v, want %v", k, got[k], want[k]))
		}
	}
	return strings.Join(diff, "; ")
}

// Several `ctxmap index` processes started at once on a fresh cache (an editor starting while a
// terminal indexes, a script run twice): none hangs or fails, the one that owns the cache builds it,
// the others work in memory and say so, and the next run reads the cache as a fresh build would.
func TestProcessesStartedAtOnceOnAFreshCache(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	files, rounds := 150, map[int]int{2: 3, 4: 1}
	if full {
		files, rounds = 1500, map[int]int{2: 20, 4: 20}
	}
	root := writeWorkspace(t, files, false)
	clean := t.TempDir()
	want := indexRun(bin, root, clean, 2*time.Minute)
	if want.err != nil {
		t.Fatal(want.err)
	}
	wantPack := pack(t, bin, root, clean)
	for _, n := range []int{2, 4} {
		for round := 0; round < rounds[n]; round++ {
			cache := t.TempDir()
			runs := make(chan indexed, n)
			start := time.Now()
			for i := 0; i < n; i++ {
				go func() { runs <- indexRun(bin, root, cache, time.Minute) }()
			}
			owners := 0
			var slowest time.Duration
			for i := 0; i < n; i++ {
				r := <-runs
				slowest = max(slowest, time.Since(start))
				if r.err != nil {
					t.Fatalf("%d at once, round %d: a run failed: %v\n%s", n, round, r.err, r.stderr)
				}
				if d := sameCounts(r.stats, want.stats); d != "" {
					t.Errorf("%d at once, round %d: %s", n, round, d)
				}
				if r.stats["cache"] != "" {
					owners++
				} else if !strings.Contains(r.stderr, "in use by another ctxmap process; indexing in memory") {
					t.Errorf("%d at once, round %d: a run worked in memory without saying so: %s", n, round, r.stderr)
				}
			}
			if owners == 0 {
				t.Errorf("%d at once, round %d: no run kept the cache", n, round)
			}
			// the cache left behind is whole: the next run reads every file from it and packs as a fresh build
			next := indexRun(bin, root, cache, time.Minute)
			if next.err != nil {
				t.Fatalf("%d at once, round %d: the next run: %v\n%s", n, round, next.err, next.stderr)
			}
			if d := sameCounts(next.stats, want.stats); d != "" || next.stats["parsed"] != 0.0 || next.stderr != "" {
				t.Errorf("%d at once, round %d: the next run: %s, parsed %v, said %q", n, round, d, next.stats["parsed"], next.stderr)
			}
			if got := pack(t, bin, root, cache); got != wantPack {
				t.Errorf("%d at once, round %d: the pack differs from a fresh build's:\n%s\n---\n%s", n, round, got, wantPack)
			}
			t.Logf("%d at once, round %d: %d owned the cache, all done in %v", n, round, owners, slowest.Round(time.Millisecond))
		}
	}
}

// damage cuts a file to half its size, or overwrites its last 40 bytes (a segment's footer).
func damage(t *testing.T, path, how string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	switch how {
	case "half":
		err = os.Truncate(path, fi.Size()/2)
	case "tail":
		var f *os.File
		if f, err = os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			_, err = f.WriteAt([]byte(strings.Repeat("7", 40)), max(0, fi.Size()-40))
			f.Close()
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Every file of a cache damaged in turn: the next `ctxmap index` and `ctxmap serve` each recover,
// saying in one line which file was damaged, and equal a fresh build.
func TestEveryCacheFileDamaged(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	root := writeWorkspace(t, 60, true)
	clean := t.TempDir()
	want := indexRun(bin, root, clean, time.Minute)
	if want.err != nil {
		t.Fatal(want.err)
	}
	wantPack := pack(t, bin, root, clean)
	names := filetest.List(t, clean, nil)
	for _, want := range []string{"index.state", "vectors.bin", ".zap", "root.bolt", "index_meta.json"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Fatalf("the cache holds no %s: %v", want, names)
		}
	}
	hows := []string{"half"}
	if full {
		hows = append(hows, "tail")
	}
	for _, name := range names {
		for _, how := range hows {
			cache := t.TempDir()
			if err := os.CopyFS(cache, os.DirFS(clean)); err != nil {
				t.Fatal(err)
			}
			damage(t, filepath.Join(cache, name), how)
			// which files must be noticed: the lock file is empty; vectors.gen is a number, and half of
			// one is another (the vectors are then refilled); without the lexical index's manifest, its
			// files are all checked in full
			mustWarn := !strings.HasSuffix(name, ".lock") && !strings.HasSuffix(name, "vectors.gen") && !strings.HasSuffix(name, "ctxmap.sum")
			base := filepath.Base(name)
			check := func(what string, counts map[string]any, stderr string, keys ...string) {
				t.Helper()
				if d := sameCounts(counts, want.stats, keys...); d != "" {
					t.Errorf("%s %s, %s: %s", name, how, what, d)
				}
				if mustWarn && !strings.Contains(stderr, base) {
					t.Errorf("%s %s, %s: no warning naming the file: %q", name, how, what, stderr)
				}
				if strings.Contains(stderr, "panic") && !strings.Contains(stderr, "is damaged") {
					t.Errorf("%s %s, %s: %s", name, how, what, stderr)
				}
			}
			r := indexRun(bin, root, cache, time.Minute)
			if r.err != nil {
				t.Fatalf("%s %s: ctxmap index failed: %v\n%s", name, how, r.err, r.stderr)
			}
			check("index", r.stats, r.stderr)
			if strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Errorf("%s %s: more than one line said: %q", name, how, r.stderr)
			}
			// with vectors, which definitions of a file fill the budget varies from one run on the same
			// cache to the next; the files and their order do not
			if got := pack(t, bin, root, cache); rankedFiles(got) != rankedFiles(wantPack) {
				t.Errorf("%s %s: the pack differs from a fresh build's:\n%s\n---\n%s", name, how, got, wantPack)
			}
			if !full && !strings.HasSuffix(name, ".zap") {
				continue // the server opens the cache as the CLI does: one kind of damage by default
			}
			// the language server starts on the same damage
			cache = t.TempDir()
			os.CopyFS(cache, os.DirFS(clean))
			damage(t, filepath.Join(cache, name), how)
			counts, stderr := serveStatus(t, bin, root, cache)
			check("serve", counts, stderr, "files", "definitions", "entities")
		}
	}
}

// serveStatus starts `ctxmap serve`, waits until it has indexed, and returns its status counts and
// what it logged.
func serveStatus(t *testing.T, bin, root, cache string) (map[string]any, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--stdio", "-C", root)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr filetest.Log // read while the server writes it
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	in := bufio.NewReader(stdout)
	send := func(id int, method, params string) map[string]any {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
		for {
			msg, err := readLSP(in)
			if err != nil {
				t.Fatalf("%s: %v; the server said %s", method, err, stderr.String())
			}
			if msg["id"] == float64(id) {
				if msg["error"] != nil {
					t.Fatalf("%s: %v; the server said %s", method, msg["error"], stderr.String())
				}
				return msg
			}
			if msg["id"] != nil && msg["method"] != nil { // a request of the server's: answer it
				reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, mustJSON(msg["id"]))
				fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(reply), reply)
			}
		}
	}
	send(1, "initialize", `{"processId":null,"rootUri":null,"capabilities":{}}`)
	fmt.Fprintf(stdin, "Content-Length: 52\r\n\r\n%s", `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	deadline := time.Now().Add(time.Minute)
	for id := 2; ; id++ {
		res := send(id, "workspace/executeCommand", `{"command":"ctxmap.status","arguments":[]}`)
		st, _ := res["result"].(map[string]any)
		if st["ready"] == true && st["indexing"] == false {
			return map[string]any{"files": st["files"], "definitions": st["definitions"], "entities": st["entities"]}, stderr.String()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never became ready: %v; it said %s", st, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// readLSP reads one Content-Length framed message.
func readLSP(in *bufio.Reader) (map[string]any, error) {
	n := -1
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("a message without a length")
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(in, body); err != nil {
		return nil, err
	}
	var msg map[string]any
	return msg, json.Unmarshal(body, &msg)
}

// rankedFiles are the files of a pack in the order it ranks them.
func rankedFiles(pack string) string {
	var files []string
	seen := map[string]bool{}
	for _, line := range strings.Split(pack, "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			f, _, _ := strings.Cut(h, ":")
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	return strings.Join(files, " ")
}

// `ctxmap index` whose cache could not be written (here a file-size limit: the disk full for it) says
// so and exits 1; the answer commands go on from memory.
func TestIndexFailsWhenTheCacheIsNotSaved(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set a file-size limit")
	}
	root := t.TempDir()
	for i := range 40 {
		src := fmt.Sprintf("package ledger\n\n// Post%d posts entry %d to the ledger.\nfunc Post%d(amount int) int { return amount * %d }\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("post%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "-c", `ulimit -f 20 && exec "$0" "$@"`, bin, "index", "-C", root)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "not kept") {
		t.Errorf("index with a cache it cannot write: %v\n%s", err, out)
	}
}

// The real binary killed (SIGKILL) at random points while it indexes and writes its cache, then run
// again: the cache is detected incomplete and repaired or rebuilt, never trusted half-written, and the
// result equals a build on a clean cache.
func TestKilledWhileIndexing(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	tmp := t.TempDir()
	// embeddings fill in the background and a pack uses what is there: without them the rest compares exactly
	root := writeWorkspace(t, 1500, false)
	index := func(cache string) (map[string]any, error) {
		out, err := command(bin, cache, "index", "-C", root, "--json").Output()
		if err != nil {
			return nil, err
		}
		var st map[string]any
		if err := json.Unmarshal(out, &st); err != nil {
			return nil, fmt.Errorf("%v: %s", err, out)
		}
		return st, nil
	}
	want, err := index(filepath.Join(tmp, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(filetest.Seed(t)))
	cache := filepath.Join(tmp, "killed")
	for round := 0; round < 5; round++ {
		cmd := command(bin, cache, "index", "-C", root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Intn(1500)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		got, err := index(cache)
		if err != nil {
			t.Fatalf("round %d: the run after the kill failed: %v", round, err)
		}
		for _, k := range []string{"files", "definitions", "references", "chunks", "entities"} {
			if got[k] != want[k] {
				t.Errorf("round %d: %s = %v after a kill, %v on a clean cache", round, k, got[k], want[k])
			}
		}
		// the stores answer as a clean build does: the same pack for the same question (until the edits
		// begin: BM25's statistics then count deleted chunks per segment, which differ between histories)
		if a, b := pack(t, bin, root, cache), pack(t, bin, root, filepath.Join(tmp, "clean")); round < 2 && a != b {
			t.Errorf("round %d: the pack after a kill differs from a clean build's:\n%s\n---\n%s", round, a, b)
		}
		if round%2 == 0 {
			os.RemoveAll(cache) // the next kill lands on a cold build; otherwise on a warm one after edits
		} else {
			for i := 0; i < 200; i++ {
				p := filepath.Join(root, fmt.Sprintf("pkg%02d", i%20), fmt.Sprintf("file%04d.go", i))
				os.WriteFile(p, []byte(fmt.Sprintf("package pkg%02d\n\n// Refund%d returns an order.\nfunc Refund%d() {}\n", i%20, round*1000+i, round*1000+i)), 0o644)
			}
			if want, err = index(filepath.Join(tmp, "clean")); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func pack(t *testing.T, bin, root, cache string) string {
	t.Helper()
	out, err := command(bin, cache, "context", "-C", root, "--budget", "600", "the refund of a parcel paid by card shows a wrong tax on the receipt").Output()
	if err != nil {
		t.Fatalf("context: %v", err)
	}
	return string(out)
}

// Two processes on one workspace (two editor windows): the second finds the cache taken, says so and
// works in memory; neither blocks, both answer, and the cache is sound for the next start.
func TestTwoProcessesOnOneCache(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	root, cache := t.TempDir(), t.TempDir()
	for p, body := range map[string]string{
		"rule/rule.go":   "package rule\n\n// Activate turns a rule on.\nfunc Activate(key string) error { return errors.New(\"cannot activate a rule without a key\") }\n",
		"profile/p.go":   "package profile\n\n// Profile groups rules.\ntype Profile struct{ Rules []string }\n",
		"docs/README.md": "# Rules\n\nRules are grouped in profiles.\n",
	} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the first holds the cache: a language server waiting on its stdin
	server := command(bin, cache, "serve", "--stdio", "-C", root)
	stdin, err := server.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); server.Wait() }()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	body = `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	filetest.Eventually(t, 30*time.Second, "the server to index and hold its cache", func() bool {
		ms, _ := filepath.Glob(filepath.Join(cache, "ctxmap", "*", "index.state"))
		return len(ms) > 0
	})
	// explore opens the index itself (a context query would be answered by the server)
	second := command(bin, cache, "explore", "-C", root, "rule")
	var stderr strings.Builder
	second.Stderr = &stderr
	done := make(chan struct{})
	var out []byte
	go func() { out, err = second.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		second.Process.Kill()
		t.Fatal("the second process blocked on the cache")
	}
	if err != nil || !strings.Contains(string(out), "rule/rule.go") {
		t.Fatalf("the second process: %v\n%s", err, out)
	}
	if !strings.Contains(stderr.String(), "in use by another ctxmap process") {
		t.Errorf("the second process did not say the cache was taken: %s", stderr.String())
	}
	// a context query is the server's to answer: the command does not open the cache
	asked := command(bin, cache, "context", "-C", root, "--budget", "400", "cannot activate a rule without a key")
	asked.Env = daemonEnv(cache, time.Minute) // a command that may hand off (--no-daemon never asks)
	stderr.Reset()
	asked.Stderr = &stderr
	if out, err := asked.Output(); err != nil || !strings.Contains(string(out), "rule/rule.go") || stderr.Len() > 0 {
		t.Errorf("a context query while the server runs: %v\n%s\nstderr: %s", err, out, stderr.String())
	}
	stdin.Close()
	server.Wait()
	if out, err := command(bin, cache, "index", "-C", root, "--json").Output(); err != nil || !strings.Contains(string(out), `"files": 3`) || strings.Contains(string(out), `"cache": ""`) {
		t.Errorf("after the server left: %v\n%s", err, out)
	}
}

// ctxmapRun runs the ctxmap binary with cache as XDG_CACHE_HOME and returns its stdout and stderr.
func ctxmapRun(t testing.TB, bin, cache string, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, err := runFor(command(bin, cache, args...), 2*time.Minute)
	if err != nil {
		t.Fatalf("ctxmap %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return stdout, stderr
}

// Every file of a cache, flipped or cut at half of it: the next `ctxmap context` answers with a fresh
// build's pack (the run that finds damage names the file and rebuilds before it answers; a run that
// finds none was given damage that changes nothing), and `ctxmap index --verify` names the file every
// time. BenchmarkEveryCacheFileDamagedAtEveryOffset damages each at a quarter and at 97% too.
func TestEveryCacheFileDamagedAtSeveralOffsets(t *testing.T) {
	t.Parallel()
	damageEveryCacheFile(t, []float64{0.5})
}

// BenchmarkEveryCacheFileDamagedAtEveryOffset is the test above at a quarter, half and 97% of every
// file: a minute and more, so a benchmark (go test -run - -bench EveryOffset -benchtime 1x .).
func BenchmarkEveryCacheFileDamagedAtEveryOffset(b *testing.B) {
	for b.Loop() {
		damageEveryCacheFile(b, []float64{0.25, 0.5, 0.97})
	}
}

// damageEveryCacheFile damages every file of a cache at each fraction of it, flipped and cut, and
// checks what the next commands make of it.
func damageEveryCacheFile(t testing.TB, fracs []float64) {
	bin := buildBinary(t)
	root := writeWorkspace(t, 60, true)
	clean := t.TempDir()
	ctxmapRun(t, bin, clean, "index", "-q", "-C", root)
	query := []string{"context", "-q", "-C", root, "--budget", "600", "the refund of a parcel paid by card shows a wrong tax on the receipt"}
	want, _ := ctxmapRun(t, bin, clean, query...)
	names := filetest.List(t, clean, func(fi fs.FileInfo) bool { return fi.Mode().IsRegular() && fi.Size() > 0 })
	for _, want := range []string{"index.state", "vectors.bin", "vectors.gen", ".zap", "root.bolt", "index_meta.json", "ctxmap.sum"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Fatalf("the cache holds no %s: %v", want, names)
		}
	}
	copyDamaged := func(name, how string, frac float64) string {
		cache := t.TempDir()
		if err := os.CopyFS(cache, os.DirFS(clean)); err != nil {
			t.Fatal(err)
		}
		filetest.Damage(t, filepath.Join(cache, name), how, frac)
		return cache
	}
	for _, name := range names {
		base := filepath.Base(name)
		for _, how := range []string{"flip", "cut"} {
			for _, frac := range fracs {
				what := fmt.Sprintf("%s %s at %.0f%%", name, how, 100*frac)
				got, said := ctxmapRun(t, bin, copyDamaged(name, how, frac), query...)
				warned := strings.Contains(said, base)
				if got != want {
					t.Errorf("%s: the pack differs from a fresh build's (warned: %v %q):\n%s\n---\n%s", what, warned, said, got, want)
				} else if !warned {
					t.Logf("%s: not said, and harmless: the pack is a fresh build's", what)
				}
				if strings.Contains(said, "panic") && !strings.Contains(said, "is damaged") {
					t.Errorf("%s: %s", what, said)
				}
				_, said = ctxmapRun(t, bin, copyDamaged(name, how, frac), "index", "-q", "--verify", "-C", root)
				if !strings.Contains(said, base) {
					t.Errorf("%s: ctxmap index --verify does not name the file: %q", what, said)
				}
			}
		}
	}
}

// Twenty commands at once on a new cache, with the background process: none is told to stop it
// because another was busy, none gets an answer from an index cut short, and every one prints the
// same pack as a command in its own process.
func TestManyCommandsAtOnceOnANewCache(t *testing.T) {
	t.Parallel()
	bin := backgroundBinary(t)
	root := shopRepository(t)
	for i := range 300 { // a build that takes a while, so that the commands meet it
		src := fmt.Sprintf("package filler\n\n// Fill%d pads the ledger.\nfunc Fill%d(n int) int { return n + %d }\n", i, i, i)
		p := filepath.Join(root, "filler", fmt.Sprintf("f%03d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	question := []string{"context", "-C", root, "--budget", "600", "checkout fails when the cart is empty"}
	want, _ := runWith(t, bin, daemonEnv(t.TempDir(), time.Minute), append(question, "--no-daemon")...)

	env := daemonEnv(t.TempDir(), time.Minute)
	const n = 20
	var wg sync.WaitGroup
	outs, errs := make([]string, n), make([]string, n)
	failed := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i], failed[i] = run(bin, env, question...)
		}()
	}
	wg.Wait()
	for i := range n {
		if failed[i] != nil {
			t.Errorf("command %d: %v\n%s", i, failed[i], errs[i])
			continue
		}
		if outs[i] != want && !strings.Contains(outs[i], "- partial: from ") {
			t.Errorf("command %d printed another pack than its own process would:\n%s\n---\n%s", i, outs[i], want)
		}
	}
	if pids := settledProcesses(t, bin, 1); len(pids) != 1 {
		t.Errorf("background processes %v after the commands; want one", pids)
	}
}
