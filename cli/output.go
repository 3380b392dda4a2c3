package cli

import (
	"fmt"
	"os"
	"runtime"

	"github.com/atotto/clipboard"

	"github.com/ctxmap/ctxmap/index"
)

// packOutput is where a pack goes: stdout unless a file or the clipboard is named.
type packOutput struct {
	file string
	copy bool
}

// check finds what would make the output fail before any work is done: a person on a machine
// without a clipboard learns it at once, not after a cold index.
func (o packOutput) check() error {
	if !o.copy {
		return nil
	}
	switch runtime.GOOS {
	case "windows", "darwin":
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return fmt.Errorf("--copy: no clipboard here (no display: DISPLAY and WAYLAND_DISPLAY are unset); write the pack to a file with -o FILE, or pipe it")
		}
	}
	if clipboard.Unsupported {
		return fmt.Errorf("--copy: no clipboard program found: install xclip, xsel or wl-clipboard, or write the pack to a file with -o FILE")
	}
	return nil
}

// emit writes body (the rendered pack) where o says, and tells on stderr what went where.
func (e *env) emit(o packOutput, body []byte, p *index.Pack) error {
	if o.file == "" && !o.copy {
		_, err := e.stdout.Write(body)
		return err
	}
	if o.file != "" {
		if err := os.WriteFile(o.file, body, 0o644); err != nil {
			return fmt.Errorf("write the pack: %w", err)
		}
		fmt.Fprintf(e.stderr, "ctxmap: wrote %s: %s\n", o.file, summarise(p))
	}
	if o.copy {
		if err := clipboard.WriteAll(string(body)); err != nil {
			// the clipboard program's own words went nowhere: say where to look
			return fmt.Errorf("--copy: the clipboard program failed (%v); check that the display %q is reachable, or write the pack with -o FILE", err, os.Getenv("DISPLAY")+os.Getenv("WAYLAND_DISPLAY"))
		}
		fmt.Fprintf(e.stderr, "ctxmap: copied %s\n", summarise(p))
	}
	return nil
}

// summarise says what a pack holds as the editors do: "7,842 tokens: 6 files, 14 definitions".
func summarise(p *index.Pack) string {
	files := map[string]bool{}
	defs := 0
	for _, it := range p.Items {
		files[it.Path] = true
		if it.Kind == "definition" {
			defs++
		}
	}
	return fmt.Sprintf("%s: %s, %s", count(p.Tokens, "token"), count(len(files), "file"), count(defs, "definition"))
}

func count(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return index.Thousands(n) + " " + what
}
