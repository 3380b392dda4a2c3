package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal: what the command writes to tty, the test reads from pt.
func openTerminal(t *testing.T) (pt, tty *os.File) {
	t.Helper()
	pt, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { pt.Close() })
	if err := unix.IoctlSetPointerInt(int(pt.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(pt.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return pt, tty
}

// A file's escape sequences reach a terminal as symbols: the window's title, the screen and the
// cursor stay as they are. Piped, the pack is the file's bytes.
func TestControlCharactersShownOnATerminal(t *testing.T) {
	root := t.TempDir()
	src := "package shop\n\n// Checkout empties the cart.\x1b]0;owned\x07\x1b[2J\u009b31m\x7f\nfunc Checkout() {}\n"
	if err := os.WriteFile(filepath.Join(root, "checkout.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"context", "--no-daemon", "-C", root, "checkout empties the cart"}
	pt, tty := openTerminal(t)
	var shown bytes.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&shown, pt); close(read) }()
	var stderr bytes.Buffer
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if code := Run(args, strings.NewReader(""), tty, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	tty.Close()
	<-read
	out := shown.String()
	if strings.ContainsAny(out, "\x1b\x07\x7f\u009b") {
		t.Errorf("control characters reached the terminal:\n%q", out)
	}
	if !strings.Contains(out, "empties the cart.␛]0;owned␇␛[2J\\u009b31m␡") {
		t.Errorf("the file's line is not shown with its controls made visible:\n%s", out)
	}

	code, piped, errOut := run(args...)
	if code != 0 || !strings.Contains(piped, "empties the cart.\x1b]0;owned\x07") {
		t.Errorf("piped, the pack changed the file's bytes (exit %d, %s):\n%q", code, errOut, piped)
	}
}
