package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var binary struct {
	once sync.Once
	path string
	err  error
}

// ctxmapBinary builds the real command once per test run, for what only a process shows: a terminal,
// exit codes as a shell sees them.
func ctxmapBinary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "ctxmap-bin")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "ctxmap")
		out, err := exec.Command("go", "build", "-o", binary.path, "github.com/ctxmap/ctxmap").CombinedOutput()
		if err != nil {
			binary.err = errors.New(string(out))
		}
	})
	if binary.err != nil {
		t.Fatalf("cannot build ctxmap: %v", binary.err)
	}
	return binary.path
}
