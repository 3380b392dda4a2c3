package cli

import "testing"

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
