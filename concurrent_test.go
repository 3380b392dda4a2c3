package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

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
	if pids := backgroundProcesses(t, bin); len(pids) != 1 {
		t.Errorf("background processes %v after the commands; want one", pids)
	}
}
