package query

import (
	"regexp"
	"strconv"
	"strings"
)

// The parts of an issue's text, as an engineer reads them: the reporter's prose and code, the traces
// and quoted messages (trace.go, errmsg.go), a quoted diff, and the parts an issue template or a bug
// reporting tool adds, which say nothing of where the fix goes: the short answers to a template's
// questions (### Version / 1.2.3, **OS**: macOS), environment blocks (versions, operating system,
// "System Details", pip freeze, go env), HTML comments, links and images. Templates are recognised by
// their shape (a heading or a label followed by a short answer), not by the headings of one project.

// SetAside counts what the analysis read and set aside: it makes no names, terms or entities.
type SetAside struct {
	TemplateAnswers   int `json:"templateAnswers,omitempty"`
	EnvironmentBlocks int `json:"environmentBlocks,omitempty"`
	Images            int `json:"images,omitempty"`
}

// Note says what was set aside, for a pack's header: "2 template answers, 1 environment block and 1
// image ignored"; "" when nothing was.
func (s SetAside) Note() string {
	var parts []string
	count := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, strconv.Itoa(n)+" "+many)
		}
	}
	count(s.TemplateAnswers, "template answer", "template answers")
	count(s.EnvironmentBlocks, "environment block", "environment blocks")
	count(s.Images, "image", "images")
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0] + " ignored"
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + " ignored"
}

// classify marks the lines of the parts set aside (skip) and counts them; a quoted diff's lines are
// marked as such.
func (d *document) classify() {
	d.fencedBlocks()
	d.environmentParagraphs()
	d.templateAnswers()
}

// fencedBlocks judges each fenced block whole: a diff, an environment block, or code.
func (d *document) fencedBlocks() {
	for i := 0; i < len(d.lines); i++ {
		if !d.lines[i].fence {
			continue
		}
		end := i + 1
		for end < len(d.lines) && !d.lines[end].fence {
			end++
		}
		info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(d.lines[i].raw), "`~>")))
		body := d.lines[i+1 : min(end, len(d.lines))]
		switch {
		case info == "diff" || info == "patch" || diffShape(body):
			for k := range body {
				body[k].diff = true
			}
		case environmentShape(body) || installShape(body):
			for k := range body {
				body[k].skip = true
			}
			d.aside.EnvironmentBlocks++
		}
		i = end
	}
}

// environmentParagraphs sets aside the paragraphs of prose that read as an environment block.
func (d *document) environmentParagraphs() {
	for i := 0; i < len(d.lines); {
		if d.lines[i].code || d.lines[i].skip || strings.TrimSpace(d.lines[i].raw) == "" {
			i++
			continue
		}
		end := i
		for end < len(d.lines) && !d.lines[end].code && !d.lines[end].skip && strings.TrimSpace(d.lines[end].raw) != "" {
			end++
		}
		if par := d.lines[i:end]; environmentShape(par) || installShape(par) {
			for k := range par {
				par[k].skip = true
			}
			d.aside.EnvironmentBlocks++
		}
		i = end
	}
}

// templateAnswers sets aside the short answers to a template's questions: a heading followed by one
// short line before the next heading ("### Version" / "2.3.1"), and a label with a short value on one
// line ("**OS**: macOS 14", "- Install method: Homebrew").
func (d *document) templateAnswers() {
	for i := range d.lines {
		l := &d.lines[i]
		if l.code || l.skip || l.head || l.title {
			continue
		}
		if label, value, ok := labelled(l.raw); ok && shortAnswer(value) && !errorLabel(label) {
			l.skip = true
			d.aside.TemplateAnswers++
		}
	}
	for i := range d.lines {
		l := &d.lines[i]
		if l.code || l.skip || l.head || l.title || !shortAnswer(strings.TrimSpace(l.raw)) {
			continue
		}
		// the line answers the heading above it, alone before the next heading or answer
		above := i - 1
		for above >= 0 && strings.TrimSpace(d.lines[above].raw) == "" {
			above--
		}
		below := i + 1
		for below < len(d.lines) && strings.TrimSpace(d.lines[below].raw) == "" {
			below++
		}
		if above >= 0 && d.lines[above].head && (below == len(d.lines) || d.lines[below].head || d.lines[below].skip || d.lines[below].fence) {
			l.skip = true
			d.aside.TemplateAnswers++
		}
	}
}

// reLabel is "Label: value" with the markdown a template puts around the label.
var reLabel = regexp.MustCompile(`^\s*(?:[-*+]\s+)?(?:\*\*|__)?([A-Za-z][A-Za-z0-9 ()/._-]{0,38}?)(?:\*\*|__)?\s*:(?:\*\*|__)?\s+(\S.*)$`)

func labelled(raw string) (label, value string, ok bool) {
	m := reLabel.FindStringSubmatch(raw)
	if m == nil || len(strings.Fields(m[1])) > 4 || strings.Contains(m[2], "://") && !strings.Contains(m[2], " ") {
		return "", "", false
	}
	return strings.TrimSpace(m[1]), strings.TrimSpace(m[2]), true
}

// errorLabel tells a message's prefix (Error: ..., panic: ...) from a template's label.
func errorLabel(label string) bool {
	l := strings.ToLower(label)
	for _, k := range errorKeywords {
		if strings.Contains(l, k) {
			return true
		}
	}
	return strings.HasPrefix(l, "caused by") || strings.HasPrefix(l, "traceback") || strings.Contains(l, "note")
}

var reVersion = regexp.MustCompile(`\bv?\d+\.\d+(?:\.\d+)*\b`)

// shortAnswer is a template's kind of answer: a name (Homebrew, develop), a version or a system with
// its number (Windows 11), yes or no; not words of the reporter's own ("Parse bytes"). An answer that
// quotes code or names a path is the reporter's evidence and stays.
func shortAnswer(s string) bool {
	s = strings.TrimSpace(strings.Trim(s, "*_"))
	if s == "" || strings.ContainsAny(s, "`/\\(") || len(s) > 60 {
		return false
	}
	n := len(strings.Fields(s))
	return n == 1 || n <= 5 && strings.ContainsAny(s, "0123456789")
}

var (
	rePipFreeze = regexp.MustCompile(`^[A-Za-z0-9][\w.\-\[\]]*\s*(?:==|>=|<=|~=|===)\s*\S+$|^[A-Za-z0-9][\w.\-]* @ \S+$`)
	reGoEnv     = regexp.MustCompile(`^(?:set |export )?[A-Z][A-Z0-9_]{2,}=\S*$|^(?:set |export )?[A-Z][A-Z0-9_]{2,}=["'].*["']$`)
	reColumns   = regexp.MustCompile(`^[A-Za-z][\w.\-]*\s{2,}v?\d+(?:\.\w+)+\S*(?:\s.*)?$`)
	reOSName    = regexp.MustCompile(`(?i)\b(?:linux|windows|macos|mac os|os x|darwin|ubuntu|debian|fedora|centos|alpine|arch|wsl|x86_64|amd64|arm64|aarch64)\b`)
)

// environmentLine is one line of an environment block: a package's version (pip freeze, a table of
// packages), a variable (go env), or a label whose value is a version or an operating system.
func environmentLine(raw string) bool {
	t := strings.TrimSpace(raw)
	if rePipFreeze.MatchString(t) || reGoEnv.MatchString(t) || reColumns.MatchString(t) {
		return true
	}
	label, value, ok := labelled(raw)
	return ok && !errorLabel(label) && len(value) <= 100 && (reVersion.MatchString(value) || reOSName.MatchString(value))
}

// environmentShape tells a block of lines that is an environment: a list of labelled values (or
// packages and variables) of which at least two are versions or systems, with section labels
// ("Binaries:") and headings between them.
func environmentShape(lines []line) bool {
	env, other := 0, 0
	for _, l := range lines {
		t := strings.TrimSpace(l.raw)
		switch {
		case t == "":
		case environmentLine(l.raw):
			env++
		case strings.HasSuffix(t, ":") && len(strings.Fields(t)) <= 3 || l.head:
		default:
			if label, _, ok := labelled(l.raw); !ok || errorLabel(label) {
				other++
			}
		}
	}
	return env >= 2 && other == 0
}

// reInstall is a command that installs a package or a tool: how the reporter got it, which says
// nothing of where the fix goes ("brew install ripgrep", "$ pip install -U requests==2.31").
var reInstall = regexp.MustCompile(`^(?:[$#>]\s*)?(?:sudo\s+)?(?:brew|pip3?|pipx|python3? -m pip|uv pip|poetry|npm|npx|yarn|pnpm|bun|cargo|go|gem|apt(?:-get)?|dnf|yum|pacman|apk|zypper|snap|choco|scoop|winget|port|conda|mamba|nix-env)\s+(?:install|add|get|-S)\b`)

// installShape tells a block whose every line installs something (or says nothing): the answer to a
// template's "how did you install it".
func installShape(lines []line) bool {
	n := 0
	for _, l := range lines {
		t := strings.TrimSpace(l.raw)
		switch {
		case t == "":
		case reInstall.MatchString(t):
			n++
		default:
			return false
		}
	}
	return n > 0
}

// diffShape tells a unified diff: a hunk header, or file headers.
func diffShape(lines []line) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l.raw)
		if strings.HasPrefix(t, "@@ ") || strings.HasPrefix(t, "diff --git ") || strings.HasPrefix(t, "+++ b/") {
			return true
		}
	}
	return false
}

// hunkFunction is the function a diff's hunk header names: "@@ -10,6 +10,8 @@ func (s *S) run(x int) {" -> run.
func hunkFunction(raw string) string {
	t := strings.TrimSpace(raw)
	if !strings.HasPrefix(t, "@@ ") {
		return ""
	}
	end := strings.Index(t[3:], "@@")
	if end < 0 {
		return ""
	}
	ctx := strings.TrimSpace(t[3+end+2:])
	open := strings.IndexByte(ctx, '(')
	if open <= 0 {
		return ""
	}
	if strings.HasPrefix(ctx, "func (") { // a Go method: the name after the receiver
		if r := strings.IndexByte(ctx, ')'); r > 0 {
			rest := strings.TrimSpace(ctx[r+1:])
			if j := strings.IndexByte(rest, '('); j > 0 {
				return lastName(rest[:j])
			}
		}
		return ""
	}
	return lastName(ctx[:open])
}

// lastName is the last identifier of a declaration's head: "def save_all" -> save_all,
// "public static void Foo.bar" -> Foo.bar.
func lastName(head string) string {
	fields := strings.Fields(head)
	if len(fields) == 0 {
		return ""
	}
	name := strings.TrimLeft(fields[len(fields)-1], "*&")
	if !isIdent(strings.NewReplacer(".", "", "::", "").Replace(name)) {
		return ""
	}
	return name
}

// diffPath is the file a diff's header names, without git's a/ and b/: "+++ b/src/x.py" -> src/x.py.
func diffPath(raw string) string {
	t := strings.TrimSpace(raw)
	for _, p := range []string{"+++ b/", "--- a/", "+++ ", "--- "} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			rest, _, _ = strings.Cut(rest, "\t")
			if rest == "/dev/null" || strings.ContainsAny(rest, " ") {
				return ""
			}
			return rest
		}
	}
	return ""
}
