// Package history reads the commit log of the repository that holds the workspace and turns commit
// messages into terms per file: what the people who changed a file said they were working on.
package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Commit is one commit of the log. Files are relative to the workspace root, slash-separated, and only
// those inside the root.
type Commit struct {
	Hash    string
	Time    time.Time
	Subject string
	Body    string
	Files   []string
}

// Log is the history of the workspace, newest commit first. It is immutable once read; the derived
// indexes are built on first use and shared by concurrent readers.
type Log struct {
	Available bool   // false when git is missing or the root is not in a repository
	Reason    string // why not, for the stats ("not a git repository", "git not found")
	Head      string // HEAD's hash, "" when unavailable (tells whether the log must be re-read)
	Commits   []Commit

	once sync.Once
	idx  *index
}

// LastChanged is the time of the newest commit that touched each file; none for a nil log.
func (l *Log) LastChanged() map[string]time.Time {
	out := map[string]time.Time{}
	if l == nil {
		return out
	}
	for _, c := range l.Commits {
		for _, f := range c.Files {
			if t, ok := out[f]; !ok || c.Time.After(t) {
				out[f] = c.Time
			}
		}
	}
	return out
}

// DefaultMax is how many commits Read takes when asked for 0.
const DefaultMax = 5000

// readTimeout bounds one Read when the caller's context has no earlier deadline.
const readTimeout = 30 * time.Second

// Read returns the ancestors of HEAD that touched the workspace root, newest first, at most max (0 means
// DefaultMax; a negative max turns history off). A missing git, a root outside any repository or a
// repository without commits give a Log with Available false and the reason; only real failures
// (git failing on a readable repository, a deadline) are errors.
func Read(ctx context.Context, root string, max int) (*Log, error) {
	if max < 0 {
		return &Log{Reason: "history disabled"}, nil
	}
	if max == 0 {
		max = DefaultMax
	}
	if st, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("read history of %s: %w", root, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("read history of %s: not a folder", root)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return &Log{Reason: "git not found"}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()

	prefix, err := Output(ctx, root, "rev-parse", "--show-prefix")
	if err != nil {
		if reason, ok := unavailable(err); ok {
			return &Log{Reason: reason}, nil
		}
		return nil, fmt.Errorf("read history of %s: %w", root, err)
	}
	head, err := Output(ctx, root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ctx.Err() == nil {
			return &Log{Reason: "no commits yet"}, nil
		}
		return nil, fmt.Errorf("read history of %s: %w", root, err)
	}
	head = strings.TrimSpace(head)
	out, cut, err := readLog(ctx, root, "log", head, "-n", strconv.Itoa(max), "-z", "--no-merges", "--no-renames",
		"--name-only", "--no-color", "--format="+logFormat, "--", ".")
	if err != nil {
		return nil, fmt.Errorf("read history of %s: %w", root, err)
	}
	commits := parseLog(out, strings.TrimSuffix(prefix, "\n"))
	if cut && len(commits) > 0 {
		commits = commits[:len(commits)-1] // its names may be cut short
	}
	return &Log{Available: true, Head: head, Commits: commits}, nil
}

// What a log keeps of git's output: each field (a subject, a body, a file name) up to maxField bytes,
// and up to maxLog bytes in all, the older commits past it left out. A commit message of 100 MB
// otherwise cost 600 MB and half a minute, though its terms come from its start.
var (
	maxField = 8 << 10
	maxLog   = 64 << 20
)

// errLogFull stops git once the log kept maxLog bytes.
var errLogFull = errors.New("log too long")

// readLog runs git's log as git does, keeping its output as a cappedLog; cut says it was stopped at
// maxLog.
func readLog(ctx context.Context, root string, args ...string) (out []byte, cut bool, err error) {
	cmd, err := Git(ctx, root, args...)
	if err != nil {
		return nil, false, err
	}
	var stderr bytes.Buffer
	log := &cappedLog{}
	cmd.Stdout, cmd.Stderr = log, &stderr
	err = cmd.Run()
	switch {
	case log.full:
		return log.buf.Bytes(), true, nil
	case err != nil && ctx.Err() != nil:
		return nil, false, fmt.Errorf("git %s: %w", args[0], ctx.Err())
	case err != nil && stderr.Len() > 0:
		return nil, false, fmt.Errorf("git %s: %w: %s", args[0], err, firstLine(strings.TrimSpace(stderr.String())))
	case err != nil:
		return nil, false, fmt.Errorf("git %s: %w", args[0], err)
	}
	return log.buf.Bytes(), false, nil
}

// cappedLog keeps what git writes with each field cut at maxField bytes (fields end at a NUL or a
// separator of logFormat) and the whole at maxLog.
type cappedLog struct {
	buf   bytes.Buffer
	field int // bytes of the current field kept
	full  bool
}

func (c *cappedLog) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if c.buf.Len() >= maxLog {
			c.full = true
			return n, errLogFull
		}
		end := bytes.IndexAny(p, "\x00\x1e\x1f")
		text := p
		if end >= 0 {
			text = p[:end]
		}
		keep := min(len(text), max(maxField-c.field, 0))
		c.buf.Write(text[:keep])
		c.field += keep
		if end < 0 {
			break
		}
		c.buf.WriteByte(p[end])
		c.field = 0
		p = p[end+1:]
	}
	return n, nil
}

// Reread is the log of root, read again only when HEAD moved since old was read (nil: never read);
// a negative max turns history off, as the configuration asks. An error comes with the old log or an
// unavailable one.
func Reread(ctx context.Context, root string, max int, old *Log) (*Log, error) {
	if max < 0 {
		return sameOrNew(old, &Log{Reason: "disabled in the configuration"}), nil
	}
	if old != nil && old.Available && old.Head != "" && old.Head == Head(ctx, root) {
		return old, nil
	}
	h, err := Read(ctx, root, max)
	if err != nil {
		return sameOrNew(old, &Log{Reason: err.Error()}), err
	}
	return sameOrNew(old, h), nil
}

// sameOrNew keeps the old log when the new one is as unavailable, for the same reason: the snapshot
// derived from it stays valid.
func sameOrNew(old, h *Log) *Log {
	if old != nil && !old.Available && !h.Available && old.Reason == h.Reason {
		return old
	}
	return h
}

// Head is the commit HEAD of root, "" when root is not a git checkout or git is missing.
func Head(ctx context.Context, root string) string {
	out, err := Output(ctx, root, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Each commit starts with a record separator; fields are split by unit separators; the body ends with
// a unit separator followed by the NUL that -z puts after the header, then come the NUL-ended names.
const logFormat = "%x1e%H%x1f%ct%x1f%s%x1f%b%x1f"

// unavailable tells apart "there is no usable repository here" (a state, reported in the stats) from a
// failure worth an error.
func unavailable(err error) (string, bool) {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return "", false
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "not a git repository"):
		return "not a git repository", true
	case strings.Contains(msg, "dubious ownership"):
		return "git refuses the repository (dubious ownership; see git config safe.directory)", true
	case strings.Contains(msg, "must be run in a work tree"):
		return "not inside a git work tree", true
	}
	return "", false
}

func firstLine(s string) string {
	s = strings.TrimPrefix(s, "fatal: ")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// parseLog reads the output of logFormat with -z --name-only. It is sequential rather than a split on
// separators so that a stray control character in a message or a file name costs at most that commit.
func parseLog(out []byte, prefix string) []Commit {
	var commits []Commit
	for len(out) > 0 {
		start := bytes.IndexByte(out, 0x1e)
		if start < 0 {
			break
		}
		out = out[start+1:]
		c, rest, ok := parseCommit(out, prefix)
		out = rest
		if ok {
			commits = append(commits, c)
		}
	}
	return commits
}

func parseCommit(b []byte, prefix string) (Commit, []byte, bool) {
	var c Commit
	hash, b, ok := cutField(b)
	if !ok || !isHash(hash) {
		return c, b, false
	}
	ts, b, ok := cutField(b)
	if !ok {
		return c, b, false
	}
	secs, err := strconv.ParseInt(string(ts), 10, 64)
	if err != nil {
		return c, b, false
	}
	subject, b, ok := cutField(b)
	if !ok {
		return c, b, false
	}
	// The body may hold anything but NUL, so it ends at the first separator followed by NUL.
	end := bytes.Index(b, []byte{0x1f, 0})
	if end < 0 {
		return c, nil, false
	}
	c.Hash, c.Time = string(hash), time.Unix(secs, 0).UTC()
	c.Subject, c.Body = strings.TrimSpace(string(subject)), strings.TrimSpace(string(b[:end]))
	b = b[end+2:]
	if len(b) > 0 && b[0] == '\n' {
		b = b[1:]
	}
	for len(b) > 0 && !startsCommit(b) {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			i = len(b)
		}
		if name := string(b[:i]); name != "" {
			if p, ok := strings.CutPrefix(name, prefix); ok && p != "" {
				c.Files = append(c.Files, p)
			}
		}
		if i == len(b) {
			b = nil
		} else {
			b = b[i+1:]
		}
	}
	return c, b, true
}

func cutField(b []byte) ([]byte, []byte, bool) {
	i := bytes.IndexByte(b, 0x1f)
	if i < 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], true
}

// startsCommit reports whether b opens the next commit's header: a record separator, a hash, a unit
// separator. A file name starting with a record separator would have to be followed by exactly that.
func startsCommit(b []byte) bool {
	if len(b) < 2 || b[0] != 0x1e {
		return false
	}
	i := bytes.IndexByte(b[1:], 0x1f)
	return i > 0 && isHash(b[1:1+i])
}

func isHash(b []byte) bool {
	if len(b) != 40 && len(b) != 64 {
		return false
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
