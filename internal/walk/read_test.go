package walk

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ReadRegular refuses a FIFO, a device (through a symlink too) and a file over its limit without
// waiting or reading them whole; ReadInside refuses a symlink that leads out of the root.
func TestReadRegular(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	os.Symlink("/dev/zero", filepath.Join(root, "zero"))
	os.WriteFile(filepath.Join(root, "big"), make([]byte, 2000), 0o644)
	os.WriteFile(filepath.Join(root, "small"), []byte("ok"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("root:x:0:0"), 0o644)
	os.Symlink(outside, filepath.Join(root, "out"))
	for name, want := range map[string]string{"fifo": "not a regular file", "zero": "not a regular file", "big": "over the limit"} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadRegular(filepath.Join(root, name), 1000)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", name, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5 s", name)
		}
	}
	if b, err := ReadInside(root, filepath.Join(root, "small"), 1000); err != nil || string(b) != "ok" {
		t.Errorf("a small file: %q, %v", b, err)
	}
	if _, err := ReadInside(root, filepath.Join(root, "out"), 1000); err == nil || strings.Contains(err.Error(), "root:x") {
		t.Errorf("a symlink out of the root: %v, want it refused", err)
	}
	if _, err := ReadInside(root, filepath.Join(root, "zero"), 1000); err == nil {
		t.Error("a symlink to /dev/zero: read")
	}
	if _, err := ReadRegular(filepath.Join(root, "missing"), 1000); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
}
