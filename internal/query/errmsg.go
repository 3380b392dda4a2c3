package query

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/words"
)

const (
	maxErrors     = 20
	maxErrorBytes = 200
)

var (
	// ValueError: message, java.io.IOException: message, TypeError: message, KeyError: 'foo'
	reException = regexp.MustCompile(`(?:^|[\s(])(?:[A-Za-z_$][\w$]*\.)*([A-Z][\w$]*(?:Error|Exception|Exit|Interrupt|Fault|Failure|Warning))(?::\s+(.+))?$`)
	// panic: ..., fatal error: ..., error[E0308]: ..., file.cpp:3:5: error: ..., mypy: error: ...
	reErrorLine = regexp.MustCompile(`(?i)(?:^|[\s:.=])(?:panic|fatal error|fatal|error(?:\[\w+\])?|runtime error|assertion failed|assertion)(?::|!)\s+(.+)$`)
)

func findErrors(doc *document) []string {
	var out []string
	seen := map[string]bool{}
	add := func(msg string) {
		msg = cleanMessage(msg)
		if msg == "" || seen[msg] || len(out) >= maxErrors {
			return
		}
		seen[msg] = true
		out = append(out, msg)
	}
	rustPanic := false
	for _, l := range doc.lines {
		t := strings.TrimSpace(strings.TrimLeft(l.raw, " \t>"))
		if rustPanic {
			rustPanic = false
			if t != "" && !strings.HasPrefix(t, "note:") {
				add(t) // the message follows "panicked at path:line:col:"
				continue
			}
		}
		if t == "" || l.fence || l.skip || l.frame && !strings.Contains(t, "panicked at") {
			continue
		}
		if i := strings.Index(t, "panicked at "); i >= 0 {
			rest := t[i+len("panicked at "):]
			if rest == "" {
				continue
			}
			if q := rest[0]; q == '\'' || q == '"' {
				if end := strings.LastIndex(rest, string(q)+", "); end > 0 {
					add(rest[1:end])
				}
			} else {
				rustPanic = true
			}
			continue
		}
		t = strings.TrimPrefix(t, "E ") // pytest
		t = strings.TrimPrefix(t, "Caused by: ")
		t = strings.TrimPrefix(t, "Uncaught ")
		if strings.HasPrefix(t, "Exception in thread ") {
			if j := strings.Index(t, "\" "); j >= 0 {
				t = t[j+2:]
			}
		}
		if !mayHoldError(t) {
			// nothing below can match
		} else if m := reException.FindStringSubmatch(t); m != nil && (l.code || m[2] != "" && len(t) < 300) {
			add(m[2])
		} else if m := reErrorLine.FindStringSubmatch(t); m != nil {
			add(strings.TrimPrefix(m[1], "runtime error: "))
		}
		if !l.code {
			for _, s := range l.spans {
				if strings.ContainsRune(s, ' ') {
					if m := reException.FindStringSubmatch(s); m != nil && m[2] != "" {
						add(m[2])
					} else if isMessage(s) {
						add(s)
					}
				}
			}
			for _, q := range quoted(l.prose) {
				add(q)
			}
		}
	}
	return out
}

// mayHoldError is a cheap test before the regular expressions: their keywords, in any case, and a
// colon or "!" to end them.
func mayHoldError(t string) bool {
	if !strings.ContainsAny(t, ":!") {
		return false
	}
	for i := 0; i+4 <= len(t); i++ {
		switch t[i] | 0x20 {
		case 'e', 'i', 'f', 'w', 'p', 'a':
			rest := t[i:]
			for _, k := range errorKeywords {
				if len(rest) >= len(k) && strings.EqualFold(rest[:len(k)], k) {
					return true
				}
			}
		}
	}
	return false
}

var errorKeywords = []string{"error", "exception", "exit", "interrupt", "fault", "failure", "warning", "panic", "fatal", "assert"}

// quoted returns the "double", 'single' and “curly” quoted phrases of a prose line that read as
// messages. An apostrophe inside a word (doesn't, user's) neither opens nor closes a quote.
func quoted(s string) []string {
	if !strings.ContainsAny(s, "\"'“") {
		return nil
	}
	var out []string
	for i := 0; i < len(s); {
		open, closeQ, size := byte(0), "", 1
		switch {
		case s[i] == '"':
			open, closeQ = '"', `"`
		case s[i] == '\'':
			open, closeQ = '\'', "'"
		case strings.HasPrefix(s[i:], "“"):
			open, closeQ, size = 'x', "”", len("“")
		}
		if open == 0 || i > 0 && isAlnum(s[i-1]) {
			i++
			continue
		}
		start := i + size
		end := -1
		for j := start; j < len(s) && j <= start+maxErrorBytes; j++ { // a longer quote is no message
			if strings.HasPrefix(s[j:], closeQ) && (j+len(closeQ) == len(s) || !isAlnum(s[j+len(closeQ)])) {
				end = j
				break
			}
		}
		if end < 0 {
			i = start
			continue
		}
		if q := s[start:end]; isMessage(q) {
			out = append(out, q)
		}
		i = end + len(closeQ)
	}
	return out
}

// isMessage reports whether a quoted phrase reads like a message (words, not code): at least two
// words, mostly letters, no assignments or braces.
func isMessage(q string) bool {
	q = strings.TrimSpace(q)
	if len(q) < 6 || len(q) > maxErrorBytes || !strings.ContainsRune(q, ' ') || strings.ContainsAny(q, "={};[]") {
		return false
	}
	fields := strings.Fields(q)
	if shellCommands[fields[0]] {
		return false // pytest --fixtures, pip list
	}
	for _, f := range fields {
		if strings.HasPrefix(f, "-") && len(f) > 1 && f[1] != ' ' && !(f[1] >= '0' && f[1] <= '9') {
			return false // a command line with flags
		}
	}
	letters, other := 0, 0
	for _, r := range q {
		switch {
		case unicode.IsLetter(r) || r == ' ':
			letters++
		default:
			other++
		}
	}
	return letters >= 4*other && len(fields) >= 2
}

var shellCommands = words.Set(`pip pip3 npm npx yarn pnpm pytest python python3 pylint make cmake git cargo go rustc gcc
g++ clang node deno docker kubectl rg grep jq curl wget sudo apt brew mvn gradle java javac tox nox poetry
conda bash sh cd ls cat echo sphinx-build mypy flake8 black ruff`)

// cleanMessage trims a message to what a string literal in code could hold.
func cleanMessage(m string) string {
	m = strings.TrimSpace(m)
	m = strings.TrimSuffix(m, " [recovered]")
	for len(m) >= 2 && (m[0] == '\'' && m[len(m)-1] == '\'' || m[0] == '"' && m[len(m)-1] == '"') {
		m = strings.TrimSpace(m[1 : len(m)-1])
	}
	m = strings.TrimRight(m, " .:")
	m = strings.TrimLeft(m, " ,.;:")
	if len(m) > maxErrorBytes {
		cut := maxErrorBytes
		for cut > 0 && !utf8.RuneStart(m[cut]) {
			cut--
		}
		m = m[:cut]
	}
	if len(m) < 3 || strings.IndexFunc(m, unicode.IsLetter) < 0 {
		return ""
	}
	return m
}
