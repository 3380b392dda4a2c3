package cli

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"unicode/utf8"

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
		if e.stdoutTerminal() {
			body = visible(body)
		}
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

// summarise says what a pack holds as the editors do (VS Code's summarisePack, Neovim's M.summary):
// "7,842 tokens: 6 files (2 whole), 14 definitions, 12 outlined". Definitions are the ranked ones,
// their tests and their callers; a pack of whole files does not say "0 definitions".
func summarise(p *index.Pack) string {
	shown, outlined := map[string]bool{}, map[string]bool{}
	whole, defs := 0, 0
	for _, it := range p.Items {
		switch it.Kind {
		case "outline":
			outlined[it.Path] = true
			continue
		case "file":
			whole++
		case "definition", "test", "caller":
			defs++
		}
		shown[it.Path] = true
	}
	files := count(len(shown), "file")
	if whole > 0 {
		files += " (" + index.Thousands(whole) + " whole)"
	}
	parts := []string{files}
	if defs > 0 || whole == 0 {
		parts = append(parts, count(defs, "definition"))
	}
	n := 0
	for path := range outlined {
		if !shown[path] {
			n++
		}
	}
	if n > 0 {
		parts = append(parts, index.Thousands(n)+" outlined")
	}
	return count(p.Tokens, "token") + ": " + strings.Join(parts, ", ")
}

func count(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return index.Thousands(n) + " " + what
}

// visible is text for a terminal: the control characters a repository's files may hold (an escape
// sequence that moves the cursor, retitles the window or writes a link) shown as symbols, not obeyed.
// Line breaks and tabs stay; C0 controls become their Unicode pictures (ESC as ␛), DEL ␡, and C1
// controls and bytes that are not UTF-8 their code (\u009b, \x9b).
func visible(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == '\n' || r == '\t':
			out = append(out, b[0])
		case r < 0x20:
			out = utf8.AppendRune(out, 0x2400+r)
		case r == 0x7f:
			out = utf8.AppendRune(out, 0x2421)
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, "\\x%02x", b[0])
		case 0x80 <= r && r <= 0x9f:
			out = fmt.Appendf(out, "\\u%04x", r)
		default:
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}
