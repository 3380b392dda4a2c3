package cli

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A pack's format: --format, --json, else -o's extension; a picture's extension is refused.
func TestPackFormat(t *testing.T) {
	for _, c := range []struct {
		format string
		asJSON bool
		file   string
		want   string
		bad    bool
	}{
		{"", false, "", "", false},
		{"", true, "", "json", false},
		{"", false, "pack.json", "json", false},
		{"", false, "pack.XML", "xml", false},
		{"", false, "pack.md", "markdown", false},
		{"", false, "pack.txt", "markdown", false},
		{"", false, "pack.out", "", false},
		{"json", false, "pack.json", "json", false},
		{"xml", false, "pack.json", "", true},
		{"xml", true, "", "", true},
		{"", false, "pack.html", "", true},
	} {
		got, err := packFormat(c.format, c.asJSON, c.file)
		if got != c.want || (err != nil) != c.bad {
			t.Errorf("packFormat(%q, %v, %q) = %q, %v", c.format, c.asJSON, c.file, got, err)
		}
	}
}

// go run's binary lives in go's temporary build folder, which go removes when it ends.
func TestGoRun(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build1234/b001/exe/ctxmap": true,
		"/home/me/go/bin/ctxmap":            false,
		"/usr/local/bin/ctxmap":             false,
	} {
		if goRun(exe) != want {
			t.Errorf("goRun(%s) = %v", exe, !want)
		}
	}
}

// context --json is held to the budget as the text is, small budgets included: its bytes/4 within
// 1.5 times the pack's tokens.
func TestContextJSONHeldToTheBudget(t *testing.T) {
	root := shop(t)
	for _, budget := range []string{"500", "2000", "8000"} {
		var stdout, stderr bytes.Buffer
		if code := Run([]string{"context", "-C", root, "--no-daemon", "-q", "--json", "--budget", budget, "checkout fails when the cart is empty"}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		var p struct{ Tokens int }
		if err := json.Unmarshal(stdout.Bytes(), &p); err != nil || p.Tokens == 0 {
			t.Fatalf("budget %s: %v: %s", budget, err, stdout.String())
		}
		if r := float64(stdout.Len()) / 4 / float64(p.Tokens); r > 1.5 {
			t.Errorf("budget %s: %d bytes for %d tokens: bytes/4 is %.2f times the tokens", budget, stdout.Len(), p.Tokens, r)
		}
	}
}
