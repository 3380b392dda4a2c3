package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

func TestMain(m *testing.M) {
	// the binary's commands in these tests answer in their own process (the background process is
	// tested at the top, with the real binary: daemon_test.go)
	os.Setenv(NoDaemonEnv, "1")
	os.Exit(m.Run())
}

// goCache is Go's build cache as the tests found it: a test that sets XDG_CACHE_HOME would otherwise
// send the build to an empty cache, and the grammars take minutes to compile again.
var goCache = func() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	dir, _ := os.UserCacheDir()
	return filepath.Join(dir, "go-build")
}()

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
		cmd := exec.Command("go", "build", "-o", binary.path, "github.com/ctxmap/ctxmap")
		cmd.Env = append(os.Environ(), "GOCACHE="+goCache)
		out, err := cmd.CombinedOutput()
		if err != nil {
			binary.err = errors.New(string(out))
		}
	})
	if binary.err != nil {
		t.Fatalf("cannot build ctxmap: %v", binary.err)
	}
	return binary.path
}
