package mapping

import (
	"regexp"
	"strings"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// raises recognises a line that raises, throws, panics, returns or logs an error: the messages a user
// pastes into an issue.
var raises = regexp.MustCompile(`(?i)\b(raise|throw|panic|errors?\.new|errorf|fatalf?|error\s*\(|exception\s*\(|err\s*\(|bail!|anyhow!|log\w*\.(error|warn|fatal|critical|exception)|logger\.(error|warn|warning|fatal|critical|exception)|console\.(error|warn)|eprintln!|warn!|error!)`)

// raiseWords are what every match of raises contains, lower-cased: most lines have none of them and
// skip the regular expression, which costs a tenth of a cold index when it reads every literal's line.
var raiseWords = []string{"raise", "throw", "panic", "err", "fatal", "exception", "bail!", "anyhow!", "warn", "critical", "eprintln!"}

func raising(line string) bool {
	lower := strings.ToLower(line)
	for _, w := range raiseWords {
		if strings.Contains(lower, w) {
			return raises.MatchString(line)
		}
	}
	return false
}

// Generated makes the mappings a file gives without any model: an error mapping for every message
// literal the code raises or logs, linked to the definition around it. (Keyword mappings would only
// repeat what the index already searches: split identifiers and doc comments.)
func Generated(p string, f *parse.File, src []byte) []Entry {
	if f == nil || len(f.Literals) == 0 {
		return nil
	}
	lines := strings.Split(string(src), "\n")
	var out []Entry
	seen := map[string]bool{}
	for _, l := range f.Literals {
		if l.Line < 1 || l.Line > len(lines) || seen[l.Text] || len(strings.Fields(l.Text)) < 2 {
			continue
		}
		if !raising(lines[l.Line-1]) && (l.Line < 2 || !raising(lines[l.Line-2])) {
			continue
		}
		seen[l.Text] = true
		sym := enclosing(f, l.Line)
		src := p
		if sym != "" {
			src += "::" + sym
		}
		out = append(out, Entry{Source: src, Path: p, Symbol: sym, SourceType: "code", Type: "error", Text: l.Text, File: p, Line: l.Line})
	}
	return out
}

// enclosing names the innermost definition around a line: Parent.Name or Name.
func enclosing(f *parse.File, line int) string {
	best := -1
	for i, d := range f.Definitions {
		if d.StartLine <= line && line <= d.EndLine && (best < 0 || d.StartLine >= f.Definitions[best].StartLine) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	d := f.Definitions[best]
	if d.Parent != "" {
		return d.Parent + "." + d.Name
	}
	return d.Name
}
