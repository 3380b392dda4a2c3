package cli

import (
	"os"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

func TestMain(m *testing.M) {
	// the binary's commands in these tests answer in their own process (the background process is
	// tested at the top, with the real binary: daemon_test.go)
	os.Setenv(NoDaemonEnv, "1")
	code := m.Run()
	filetest.RemoveBinary()
	os.Exit(code)
}
