package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
)

// -o writes the same pack the command prints, and says what it wrote.
func TestContextToAFile(t *testing.T) {
	root := shop(t)
	question := []string{"context", "-C", root, "--budget", "800", "checkout fails when the cart is empty"}
	code, printed, stderr := run(question...)
	if code != 0 {
		t.Fatalf("context: exit %d: %s", code, stderr)
	}
	for _, format := range []string{"markdown", "json"} {
		file := filepath.Join(t.TempDir(), "pack."+format)
		code, stdout, stderr := run(append(question, "--format", format, "-o", file)...)
		if code != 0 || stdout != "" {
			t.Fatalf("context -o: exit %d, stdout %q: %s", code, stdout, stderr)
		}
		if !strings.Contains(stderr, "wrote "+file+": ") || !strings.Contains(stderr, " tokens: ") {
			t.Errorf("context -o says %q", stderr)
		}
		written, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		_, want, _ := run(append(question, "--format", format)...)
		if string(written) != want {
			t.Errorf("%s: the file differs from what is printed:\n%s\n---\n%s", format, written, want)
		}
		if format == "markdown" && string(written) != printed {
			t.Errorf("the default format is not markdown")
		}
	}
	if code, _, stderr := run(append(question, "-o", filepath.Join(root, "no", "such", "folder", "p.md"))...); code != 1 || !strings.Contains(stderr, "write the pack") {
		t.Errorf("-o into a missing folder: exit %d: %s", code, stderr)
	}
}

// Without a display there is no clipboard: the command says so at once, before any work.
func TestCopyWithoutAClipboard(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	code, stdout, stderr := run("context", "-C", t.TempDir(), "--copy", "anything")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "no clipboard") || !strings.Contains(stderr, "-o FILE") {
		t.Errorf("--copy on a headless machine: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// With a display (a virtual one) --copy puts the pack on the clipboard, where another program reads it.
func TestCopyToTheClipboard(t *testing.T) {
	for _, p := range []string{"Xvfb", "xclip"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s for a clipboard", p)
		}
	}
	display := fmt.Sprintf(":%d", 90+os.Getpid()%100)
	x := exec.Command("Xvfb", display, "-nolisten", "tcp")
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { x.Process.Kill(); x.Wait() }()
	socket := "/tmp/.X11-unix/X" + display[1:]
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(socket); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}

	root := shop(t)
	bin := filetest.Binary(t)
	env := append(os.Environ(), "DISPLAY="+display, "XDG_CACHE_HOME="+t.TempDir())
	cmd := exec.Command(bin, "context", "-C", root, "--budget", "600", "--copy", "price rounding")
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.Len() > 0 || !strings.Contains(stderr.String(), "ctxmap: copied ") {
		t.Fatalf("--copy: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	paste := exec.Command("xclip", "-o", "-selection", "clipboard")
	paste.Env = env
	got, err := paste.Output()
	if err != nil {
		t.Fatalf("read the clipboard: %v", err)
	}
	want := exec.Command(bin, "context", "-C", root, "--budget", "600", "price rounding")
	want.Env = env
	printed, err := want.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(printed) || len(got) == 0 {
		t.Errorf("the clipboard holds %q, the command prints %q", got, printed)
	}
}

// A display that cannot be reached: the clipboard program fails, and the command says where to look.
func TestCopyToAnUnreachableDisplay(t *testing.T) {
	if _, err := exec.LookPath("xclip"); err != nil {
		t.Skip("no xclip")
	}
	root := shop(t)
	bin := filetest.Binary(t)
	cmd := exec.Command(bin, "context", "-C", root, "--budget", "300", "--copy", "price rounding")
	cmd.Env = append(os.Environ(), "DISPLAY=:999", "WAYLAND_DISPLAY=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), `display ":999"`) {
		t.Errorf("--copy with DISPLAY=:999: %v, exit %d: %s", err, code, stderr.String())
	}
}

// The copy message counts what a pack shows as both editors do (their tests hold the same cases).
func TestSummaryCountsWhatThePackShows(t *testing.T) {
	for _, c := range []struct {
		items []index.Item
		want  string
	}{
		{[]index.Item{
			{Kind: "definition", Path: "rules/index.go", Symbol: "RuleIndex"},
			{Kind: "caller", Path: "profile/service.go", Symbol: "Service.Change"},
			{Kind: "import", Path: "rules/index.go"},
		}, "7,842 tokens: 2 files, 2 definitions"},
		{[]index.Item{
			{Kind: "file", Path: "cart/cart.go"},
			{Kind: "file", Path: "cart/total.go"},
			{Kind: "outline", Path: "cart/total.go"},
			{Kind: "outline", Path: "order/order.go"},
		}, "7,842 tokens: 2 files (2 whole), 1 outlined"},
		{nil, "7,842 tokens: 0 files, 0 definitions"},
	} {
		if got := summarise(&index.Pack{Tokens: 7842, Items: c.items}); got != c.want {
			t.Errorf("summarise = %q, want %q", got, c.want)
		}
	}
}
