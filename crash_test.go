package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

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
