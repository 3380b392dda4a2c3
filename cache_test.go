package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	var stderr lockedText // read while the server writes it
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

// lockedText collects a process's output while others read it.
type lockedText struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedText) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
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
