package history

import (
	"regexp"
	"strconv"
	"strings"
)

// Issue references: an issue that names an earlier one ("a follow up to #3112", "similar to #402", a
// link to a pull request) points at the code that issue's fix changed, and the commits that name it
// say which files those were.

// maxRef bounds an issue number: past it, "#" and digits are something else (an id, a colour). A bare
// "#" and one digit is an ordinal more often than an issue ("step #2", "the #1 cause").
const (
	maxRef     = 9_999_999
	minHashRef = 10
)

var (
	reHashRef = regexp.MustCompile(`#(\d{1,7})\b`)
	reGHRef   = regexp.MustCompile(`(?i)\bgh-(\d{1,7})\b`)
	reLinkRef = regexp.MustCompile(`(?i)\b(?:github\.com|gitlab\.com|codeberg\.org)/[\w.-]+/[\w.-]+/(?:-/)?(?:issues|pull|merge_requests)/(\d{1,7})\b`)
)

// IssueRefs are the issue and pull request numbers a text names, in order of appearance: #123 (from
// #10; not owner/name#123, another project's, nor &#123; or a debugger's frame "#12 0x4f3a in ..."),
// GH-123 (as some projects write them), and links to an issue or a pull request.
func IssueRefs(text string) []int {
	var out []int
	seen := map[int]bool{}
	add := func(digits string, least int) {
		n, err := strconv.Atoi(digits)
		if err != nil || n < least || n > maxRef || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, n)
	}
	for _, m := range reHashRef.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 {
			if c := text[m[0]-1]; isWordByte(c) || c == '/' || c == '&' || c == '#' || c == '-' {
				continue
			}
		}
		if rest := strings.TrimLeft(text[m[1]:], " \t"); len(rest) < len(text[m[1]:]) && strings.HasPrefix(rest, "0x") {
			continue // a frame of a native stack trace
		}
		add(text[m[2]:m[3]], minHashRef)
	}
	for _, m := range reGHRef.FindAllStringSubmatch(text, -1) {
		add(m[1], 1)
	}
	for _, m := range reLinkRef.FindAllStringSubmatch(text, -1) {
		add(m[1], 1)
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Naming is the commits whose message names issue or pull request n, newest first; none for a nil log.
func (l *Log) Naming(n int) []Commit {
	if l == nil || len(l.Commits) == 0 {
		return nil
	}
	var out []Commit
	for _, i := range l.index().refs[n] {
		out = append(out, l.Commits[i])
	}
	return out
}
