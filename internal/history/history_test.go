package history

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// repo is a real git repository in a temporary folder, with commits at increasing, fixed times.
type repo struct {
	t   testing.TB
	dir string
	n   int
}

func newRepo(t testing.TB) *repo {
	t.Helper()
	filetest.NeedGit(t)
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q")
	r.git("checkout", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	out, err := filetest.GitAt(r.dir, int64(1700000000+r.n*3600), args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// commit writes the files (path -> content; content "" deletes) and commits them with msg.
func (r *repo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for p, content := range files {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if content == "" {
			if err := os.Remove(full); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.n++
	r.git("add", "-A")
	msgFile := filepath.Join(r.t.TempDir(), "msg")
	if err := os.WriteFile(msgFile, []byte(msg), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.git("commit", "-q", "--allow-empty", "-F", msgFile)
	return r.git("rev-parse", "HEAD")
}

func read(t *testing.T, root string, max int) *Log {
	t.Helper()
	l, err := Read(context.Background(), root, max)
	if err != nil {
		t.Fatalf("Read(%s): %v", root, err)
	}
	return l
}

func termCount(tc []TermCount, term string) int {
	for _, c := range tc {
		if c.Term == term {
			return c.Count
		}
	}
	return 0
}

func rulesRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.commit("Initial import", map[string]string{
		"server/rule/index.go":         "package rule // v1",
		"server/rule/updater.go":       "package rule",
		"server/profile/exporter.go":   "package profile",
		"docs/guide.md":                "# guide",
		"server/naïve dir/odd name.go": "package odd",
	})
	r.commit("Fix rule search for long descriptions\n\nThe rule index truncated words.\n\nSigned-off-by: Alice Smith <alice@example.com>\nCo-authored-by: Bob Jones <bob@example.com>",
		map[string]string{"server/rule/index.go": "package rule // v2"})
	r.commit("Add quality profile export (#123)\n\nSee https://tracker.example.com/browse/SONAR-4567 and commit 9fceb02d0ae598e95dc970b74767f19372d61af8.",
		map[string]string{"server/profile/exporter.go": "package profile // v2"})
	r.commit("Update rule updater to validate rule parameters\n\nFixes SONAR-1234",
		map[string]string{"server/rule/updater.go": "package rule // v2", "server/rule/index.go": "package rule // v3"})
	r.commit("Document the quality profile guide", map[string]string{"docs/guide.md": "# guide v2"})
	return r
}

func TestReadCommitsAndFiles(t *testing.T) {
	r := rulesRepo(t)
	l := read(t, r.dir, 0)
	if !l.Available || l.Reason != "" {
		t.Fatalf("Available=%v Reason=%q", l.Available, l.Reason)
	}
	if want := r.git("rev-parse", "HEAD"); l.Head != want {
		t.Errorf("Head = %s, want %s", l.Head, want)
	}
	var subjects []string
	for _, c := range l.Commits {
		subjects = append(subjects, c.Subject)
	}
	want := []string{"Document the quality profile guide", "Update rule updater to validate rule parameters",
		"Add quality profile export (#123)", "Fix rule search for long descriptions", "Initial import"}
	if !slices.Equal(subjects, want) {
		t.Fatalf("subjects (newest first) = %q\nwant %q", subjects, want)
	}
	fix := l.Commits[3]
	if !strings.HasPrefix(fix.Body, "The rule index truncated words.") || fix.Time.Before(l.Commits[4].Time) {
		t.Errorf("body/time not read: %+v", fix)
	}
	if !slices.Equal(fix.Files, []string{"server/rule/index.go"}) {
		t.Errorf("files of the fix = %q", fix.Files)
	}
	if got := l.Commits[1].Files; !slices.Equal(got, []string{"server/rule/index.go", "server/rule/updater.go"}) {
		t.Errorf("files of the update = %q", got)
	}
	if !slices.Contains(l.Commits[4].Files, "server/naïve dir/odd name.go") {
		t.Errorf("file names with spaces and non-ASCII letters must come out unquoted: %q", l.Commits[4].Files)
	}

	limited := read(t, r.dir, 2)
	if len(limited.Commits) != 2 || limited.Commits[0].Subject != want[0] {
		t.Errorf("max=2 gave %d commits", len(limited.Commits))
	}
	if off := read(t, r.dir, -1); off.Available || off.Reason == "" {
		t.Errorf("max<0 must turn history off with a reason, got %+v", off)
	}
}

func TestFileTerms(t *testing.T) {
	l := read(t, rulesRepo(t).dir, 0)
	terms := l.FileTerms("server/rule/index.go")
	if len(terms) == 0 || terms[0].Term != "rule" || terms[0].Count != 2 {
		t.Fatalf("index.go terms = %+v, want rule (2 commits) first", terms)
	}
	for _, w := range []string{"search", "word", "parameter", "validate", "truncate"} {
		if termCount(terms, w) != 1 {
			t.Errorf("index.go: term %q missing from %+v", w, terms)
		}
	}
	// the ritual of committing, trailers, addresses, numbers and hashes are not terms
	for _, w := range []string{"fix", "add", "update", "import", "initial", "sign", "alice", "smith", "bob",
		"example", "sonar", "1234", "https", "com"} {
		if n := termCount(terms, w); n != 0 {
			t.Errorf("index.go: noise term %q counted %d times", w, n)
		}
	}
	exp := l.FileTerms("server/profile/exporter.go")
	for _, w := range []string{"quality", "profile", "export"} {
		if termCount(exp, w) != 1 {
			t.Errorf("exporter.go: term %q missing from %+v", w, exp)
		}
	}
	for _, w := range []string{"tracker", "browse", "9fceb02", "fceb", "ae", "dc"} {
		if termCount(exp, w) != 0 {
			t.Errorf("exporter.go: URL or hash word %q became a term: %+v", w, exp)
		}
	}
	if l.FileTerms("no/such/file.go") != nil {
		t.Error("a file without commits must have no terms")
	}
	if l.FileCommits("server/rule/index.go") != 3 || l.TermCommits("rule") != 2 || l.TermCommits("profile") != 2 {
		t.Errorf("FileCommits=%d TermCommits(rule)=%d TermCommits(profile)=%d", l.FileCommits("server/rule/index.go"),
			l.TermCommits("rule"), l.TermCommits("profile"))
	}
}

// The engine caches the Log with gob: the decoded copy must answer like the original.
func TestLogGobRoundTrip(t *testing.T) {
	l := read(t, rulesRepo(t).dir, 0)
	l.FileTerms("server/rule/index.go") // the index is built, and must not be part of the encoding
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(l); err != nil {
		t.Fatal(err)
	}
	var back Log
	if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
		t.Fatal(err)
	}
	if back.Head != l.Head || len(back.Commits) != len(l.Commits) || !back.Available {
		t.Fatalf("decoded log: %+v", back.Commits)
	}
	if !slices.Equal(back.FileTerms("server/rule/index.go"), l.FileTerms("server/rule/index.go")) {
		t.Error("decoded log gives other terms")
	}
	if a, b := back.Search([]string{"rule"}, 3), l.Search([]string{"rule"}, 3); len(a) != len(b) || a[0].Path != b[0].Path {
		t.Errorf("decoded log searches differently: %+v vs %+v", a, b)
	}
}

// Readers share one Log; its indexes are built on first use by whichever reader comes first.
func TestConcurrentReaders(t *testing.T) {
	l := read(t, rulesRepo(t).dir, 0)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := l.Search([]string{"rule"}, 2); len(r) == 0 {
				t.Error("no search result")
			}
			if tc, _ := l.Terms([]string{"server/rule/index.go"}, 1); termCount(tc, "rule") != 2 {
				t.Errorf("Terms = %+v", tc)
			}
			l.FileTerms("server/profile/exporter.go")
		}()
	}
	wg.Wait()
}

func TestTermsOfSeveralFiles(t *testing.T) {
	l := read(t, rulesRepo(t).dir, 0)
	paths := []string{"server/rule/index.go", "server/rule/updater.go"}
	terms, total := l.Terms(paths, 1)
	// initial import (both files, weight 2), the fix (index.go, 1), the update (both, 2)
	if total != 5 || termCount(terms, "rule") != 3 || termCount(terms, "parameter") != 2 || termCount(terms, "search") != 1 {
		t.Fatalf("Terms = %+v, total %d", terms, total)
	}
	frequent, _ := l.Terms(paths, 2)
	if termCount(frequent, "search") != 0 || termCount(frequent, "rule") != 3 {
		t.Errorf("Terms(min 2) = %+v", frequent)
	}
	frequent[0].Count = 99 // the caller's copy: the remembered answer must not change
	again, total2 := l.Terms(paths, 2)
	if termCount(again, "rule") != 3 || total2 != total {
		t.Errorf("a second call gave %+v, %d", again, total2)
	}
	if got, n := l.Terms(nil, 1); got != nil || n != 0 {
		t.Errorf("Terms(nil) = %+v, %d", got, n)
	}
}

func TestSearch(t *testing.T) {
	l := read(t, rulesRepo(t).dir, 0)
	res := l.Search([]string{"rule", "descriptions"}, 10)
	if len(res) < 2 {
		t.Fatalf("Search = %+v", res)
	}
	if res[0].Path != "server/rule/index.go" {
		t.Errorf("best file for 'rule descriptions' = %s, want server/rule/index.go (%+v)", res[0].Path, res)
	}
	if res[0].Commits[0] != "Fix rule search for long descriptions" {
		t.Errorf("best commit of the best file = %q", res[0].Commits)
	}
	for i := 1; i < len(res); i++ {
		if res[i].Score > res[i-1].Score {
			t.Errorf("results not sorted: %+v", res)
		}
	}
	for _, fs := range res {
		if strings.HasPrefix(fs.Path, "docs/") || strings.Contains(fs.Path, "profile") {
			t.Errorf("%s shares no term with the query", fs.Path)
		}
	}
	qp := l.Search([]string{"QualityProfile"}, 1)
	if len(qp) != 1 || qp[0].Path != "docs/guide.md" && qp[0].Path != "server/profile/exporter.go" {
		t.Errorf("Search(QualityProfile, 1) = %+v", qp)
	}
	if got := l.Search([]string{"kubernetes"}, 5); len(got) != 0 {
		t.Errorf("unknown term matched %+v", got)
	}
}

// Two files whose commits match equally: the one changed more recently wins the tie.
func TestSearchRecencyBreaksTies(t *testing.T) {
	r := newRepo(t)
	r.commit("Gist sharing", map[string]string{"old.go": "a"})
	r.commit("Gist sharing", map[string]string{"new.go": "a"})
	res := read(t, r.dir, 0).Search([]string{"gist"}, 0)
	if len(res) != 2 || res[0].Path != "new.go" || res[0].Score-res[1].Score > recencyWeight {
		t.Errorf("Search = %+v, want new.go first by a tie-breaker", res)
	}
}

func TestReadSubfolderRoot(t *testing.T) {
	r := rulesRepo(t)
	l := read(t, filepath.Join(r.dir, "server", "rule"), 0)
	if !l.Available {
		t.Fatalf("subfolder: %+v", l)
	}
	var subjects []string
	for _, c := range l.Commits {
		subjects = append(subjects, c.Subject)
		for _, f := range c.Files {
			if strings.Contains(f, "/") || !strings.HasSuffix(f, ".go") {
				t.Errorf("path %q is not relative to server/rule", f)
			}
		}
	}
	want := []string{"Update rule updater to validate rule parameters", "Fix rule search for long descriptions", "Initial import"}
	if !slices.Equal(subjects, want) {
		t.Errorf("commits under server/rule = %q, want %q", subjects, want)
	}
	if !slices.Equal(l.Commits[2].Files, []string{"index.go", "updater.go"}) {
		t.Errorf("initial commit seen from server/rule = %q", l.Commits[2].Files)
	}
	if termCount(l.FileTerms("index.go"), "rule") != 2 {
		t.Errorf("terms of index.go from the subfolder: %+v", l.FileTerms("index.go"))
	}
}

func TestReadUnavailable(t *testing.T) {
	filetest.NeedGit(t)
	plain := t.TempDir()
	l := read(t, plain, 0)
	if l.Available || l.Reason != "not a git repository" || l.Head != "" || len(l.Commits) != 0 {
		t.Errorf("plain folder: %+v", l)
	}
	if l.FileTerms("x") != nil || l.Search([]string{"x"}, 3) != nil {
		t.Error("an unavailable log must answer nothing")
	}

	empty := newRepo(t)
	if l := read(t, empty.dir, 0); l.Available || l.Reason != "no commits yet" {
		t.Errorf("repository without commits: %+v", l)
	}

	if _, err := Read(context.Background(), filepath.Join(plain, "missing"), 0); err == nil {
		t.Error("a missing root must be an error")
	}

	t.Setenv("PATH", t.TempDir())
	if l := read(t, plain, 0); l.Available || l.Reason != "git not found" {
		t.Errorf("without git: %+v", l)
	}
}

// Reread reads the log again only when HEAD moved, and keeps an unavailable log that is unavailable
// for the same reason, so that what was derived from it stays valid.
func TestReread(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.commit("add rules", map[string]string{"rule.go": "package rule\n"})
	first, err := Reread(ctx, r.dir, 0, nil)
	if err != nil || !first.Available || first.Head != Head(ctx, r.dir) {
		t.Fatalf("first read: %+v, %v", first, err)
	}
	if again, _ := Reread(ctx, r.dir, 0, first); again != first {
		t.Error("HEAD did not move, yet the log was read again")
	}
	r.commit("fix rules", map[string]string{"rule.go": "package rule\n\n// fixed\n"})
	if moved, _ := Reread(ctx, r.dir, 0, first); moved == first || len(moved.Commits) != 2 {
		t.Errorf("HEAD moved: %+v, want the log read again with two commits", moved)
	}
	off, _ := Reread(ctx, r.dir, -1, first)
	if off.Available || off.Reason != "disabled in the configuration" {
		t.Errorf("turned off: %+v", off)
	}
	if still, _ := Reread(ctx, r.dir, -1, off); still != off {
		t.Error("a log unavailable for the same reason was replaced")
	}
	if Head(ctx, t.TempDir()) != "" {
		t.Error("a folder outside any repository has a HEAD")
	}
}

func TestReadCancelled(t *testing.T) {
	r := rulesRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if l, err := Read(ctx, r.dir, 0); err == nil {
		t.Errorf("a cancelled read must fail, got %+v", l)
	}
}

func TestMassCommitGivesNoTerms(t *testing.T) {
	r := newRepo(t)
	files := map[string]string{}
	for i := 0; i < massFiles+20; i++ {
		files[fmt.Sprintf("pkg/f%03d.go", i)] = "package pkg"
	}
	r.commit("Reformat with the new linter settings", files)
	r.commit("Gist visibility toggle", map[string]string{"pkg/f007.go": "package pkg // toggle"})
	l := read(t, r.dir, 0)
	if len(l.Commits) != 2 || len(l.Commits[1].Files) != massFiles+20 {
		t.Fatalf("commits = %d, files of the mass commit = %d", len(l.Commits), len(l.Commits[1].Files))
	}
	terms := l.FileTerms("pkg/f007.go")
	if termCount(terms, "reformat") != 0 || termCount(terms, "linter") != 0 || termCount(terms, "gist") != 1 {
		t.Errorf("terms of a file in a mass commit = %+v", terms)
	}
	if l.FileTerms("pkg/f001.go") != nil {
		t.Errorf("a file touched only by the mass commit has terms %+v", l.FileTerms("pkg/f001.go"))
	}
	if got := l.Search([]string{"reformat"}, 0); len(got) != 0 {
		t.Errorf("mass commit is a search hit: %d files", len(got))
	}
}

func TestMergesAndOddMessages(t *testing.T) {
	r := newRepo(t)
	r.commit("Start", map[string]string{"a.go": "a"})
	r.git("checkout", "-q", "-b", "topic")
	r.commit("Gist starring", map[string]string{"b.go": "b"})
	r.git("checkout", "-q", "main")
	r.commit("Release notes", map[string]string{"c.go": "c"})
	r.n++
	r.git("merge", "-q", "--no-ff", "-m", "Merge pull request #7 from someone/topic", "topic")
	// control characters of the log format inside a message must not lose the commit nor the next one
	r.commit("Odd \x1e subject \x1f here\n\nbody \x1e with \x1f separators", map[string]string{"d.go": "d"})
	l := read(t, r.dir, 0)
	var subjects []string
	for _, c := range l.Commits {
		subjects = append(subjects, c.Subject)
		if strings.HasPrefix(c.Subject, "Merge") {
			t.Errorf("merge commit listed: %+v", c)
		}
	}
	if len(l.Commits) != 4 {
		t.Fatalf("commits = %q", subjects)
	}
	if !slices.Equal(l.Commits[0].Files, []string{"d.go"}) {
		t.Errorf("odd commit files = %q (subject %q)", l.Commits[0].Files, l.Commits[0].Subject)
	}
	if termCount(l.FileTerms("b.go"), "gist") != 1 || termCount(l.FileTerms("b.go"), "someone") != 0 {
		t.Errorf("b.go terms = %+v", l.FileTerms("b.go"))
	}
}

func TestMessageTerms(t *testing.T) {
	cases := []struct {
		subject, body string
		want          []string
	}{
		{"Fix rule search for long descriptions", "", []string{"description", "rule", "search"}},
		{"Merge pull request #12 from alice/rule-search", "Quality profile export", []string{"export", "profile", "quality"}},
		{"Bump gist renderer (GH-431)", "Signed-off-by: Jo <jo@x.org>\nChange-Id: I8f3a9c2d1e", []string{"gist", "renderer"}},
		{"Revert \"Add release notes\"", "This reverts commit 4e1243bd22c66e76c2ba9eddc1f91394e57f9f83.", []string{"note", "release"}},
	}
	for _, c := range cases {
		got := messageTerms(c.subject, c.body)
		if !slices.Equal(got, c.want) {
			t.Errorf("messageTerms(%q, %q) = %q, want %q", c.subject, c.body, got, c.want)
		}
	}
}

// BenchmarkRead reads 5,000 commits over 1,000 files, made with git fast-import in a temporary folder.
func BenchmarkRead(b *testing.B) {
	r := newRepo(b)
	var sb strings.Builder
	nouns := []string{"rule", "profile", "gist", "release", "search", "index", "export", "quality", "issue", "user"}
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&sb, "commit refs/heads/main\ncommitter Dev <dev@example.com> %d +0000\n", 1600000000+i*60)
		msg := fmt.Sprintf("Improve %s %s handling\n\nThe %s code path now covers case %d.\n", nouns[i%10], nouns[(i/10)%10], nouns[(i/3)%10], i)
		fmt.Fprintf(&sb, "data %d\n%s", len(msg), msg)
		for j := 0; j < 3; j++ {
			content := fmt.Sprintf("package p // %d %d\n", i, j)
			fmt.Fprintf(&sb, "M 100644 inline src/m%02d/file%03d.go\ndata %d\n%s", (i*7+j)%40, (i*13+j*101)%1000, len(content), content)
		}
		sb.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.dir
	cmd.Stdin = strings.NewReader(sb.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	r.git("reset", "-q", "--hard", "main")
	b.ResetTimer()
	for b.Loop() {
		l, err := Read(context.Background(), r.dir, 5000)
		if err != nil || len(l.Commits) != 5000 {
			b.Fatalf("Read: %v, %d commits", err, len(l.Commits))
		}
		l.FileTerms("src/m00/file000.go") // builds the term index
	}
}

// live checks that git as a user runs it does start the trap in this repository, so that the test
// that follows shows the protection and not a setting that does nothing; then it clears the marker.
func live(t *testing.T, r *repo, marker string, args ...string) {
	t.Helper()
	_, _ = filetest.GitAt(r.dir, 0, args...)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("git %v did not start the trap without the protection: %v", args, err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
}

// A partial clone missing a tree makes git fetch it from its promisor remote, running whatever the
// checkout names as its upload-pack or transport: reading the history must not.
func TestPromisorRemoteIsNeverAsked(t *testing.T) {
	for _, how := range []string{"uploadpack", "ext"} {
		t.Run(how, func(t *testing.T) {
			r := newRepo(t)
			r.commit("add the rules", map[string]string{"rule/rule.go": "package rule\n"})
			r.commit("search the rules", map[string]string{"rule/search.go": "package rule\n"})
			tree := r.git("rev-parse", "HEAD~1:rule")
			if err := os.Remove(filepath.Join(r.dir, ".git", "objects", tree[:2], tree[2:])); err != nil {
				t.Fatal(err)
			}
			program, marker := filetest.Trap(t, "upload-pack")
			r.git("config", "core.repositoryformatversion", "1")
			r.git("config", "extensions.partialClone", "origin")
			r.git("config", "remote.origin.promisor", "true")
			r.git("config", "protocol.allow", "always")
			if how == "ext" {
				r.git("config", "remote.origin.url", "ext::"+program+" %S")
			} else {
				r.git("config", "remote.origin.url", t.TempDir())
				r.git("config", "remote.origin.uploadpack", program)
			}
			live(t, r, marker, "log", "--name-only", "--format=%H")

			if _, err := Read(context.Background(), r.dir, 0); err == nil {
				t.Error("the history of a repository missing a tree was read without an error")
			}
			filetest.Sprung(t, marker)
			Head(context.Background(), r.dir)
			filetest.Sprung(t, marker)
		})
	}
}

// The programs a checkout's configuration and attributes name are never started by a command made
// with Git: each case sets one, sees plain git start it, then runs the command through Git.
func TestProgramsTheCheckoutNamesAreNotStarted(t *testing.T) {
	cases := []struct {
		name string
		set  func(r *repo, program string)
		args []string
	}{
		{"fsmonitor", func(r *repo, program string) {
			r.git("config", "core.fsmonitor", program)
		}, []string{"status", "--porcelain", "--untracked-files=no"}},
		{"hooksPath", func(r *repo, program string) {
			hooks := filepath.Dir(program)
			if err := os.Rename(program, filepath.Join(hooks, "post-index-change")); err != nil {
				r.t.Fatal(err)
			}
			r.git("config", "core.hooksPath", hooks)
		}, []string{"status", "--porcelain", "--untracked-files=no"}},
		{"hooks folder", func(r *repo, program string) {
			if err := os.Rename(program, filepath.Join(r.dir, ".git", "hooks", "post-index-change")); err != nil {
				r.t.Fatal(err)
			}
		}, []string{"status", "--porcelain", "--untracked-files=no"}},
		{"clean filter in status", func(r *repo, program string) {
			attributes(r, "*.go filter=evil")
			r.git("config", "filter.evil.clean", program)
			r.git("config", "filter.evil.required", "true")
		}, []string{"status", "--porcelain", "--untracked-files=no"}},
		{"clean filter in diff", func(r *repo, program string) {
			attributes(r, "*.go filter=evil")
			r.git("config", "filter.evil.clean", program)
		}, []string{"diff", "--name-only", "HEAD", "--"}},
		{"process filter", func(r *repo, program string) {
			attributes(r, "*.go filter=evil")
			r.git("config", "filter.evil.process", program)
		}, []string{"diff", "--name-only", "HEAD", "--"}},
		{"filter named with =", func(r *repo, program string) {
			attributes(r, "*.go filter=e=vil")
			r.git("config", "filter.e=vil.clean", program)
		}, []string{"status", "--porcelain", "--untracked-files=no"}},
		{"smudge filter", func(r *repo, program string) {
			attributes(r, "*.go filter=evil")
			r.git("config", "filter.evil.smudge", program)
		}, []string{"checkout", "-q", "--", "rule/rule.go"}},
		{"textconv", func(r *repo, program string) {
			attributes(r, "*.go diff=evil")
			r.git("config", "diff.evil.textconv", program)
		}, []string{"diff", "HEAD~1", "HEAD"}},
		{"diff command", func(r *repo, program string) {
			attributes(r, "*.go diff=evil")
			r.git("config", "diff.evil.command", program)
		}, []string{"diff", "HEAD~1", "HEAD"}},
		{"external diff", func(r *repo, program string) {
			r.git("config", "diff.external", program)
		}, []string{"diff", "HEAD~1", "HEAD"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRepo(t)
			r.commit("add the rules", map[string]string{"rule/rule.go": "package rule\n"})
			r.commit("search the rules", map[string]string{"rule/rule.go": "package rule\n\nfunc Search() {}\n"})
			// a tracked file of the index's size and another time is read, through its filter; a
			// missing one is written again, through its smudge filter
			search := filepath.Join(r.dir, "rule", "search.go")
			if err := os.WriteFile(search, []byte("package rule\n\n// Search finds rules.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r.git("add", "--", "rule/search.go")
			program, marker := filetest.Trap(t, "program")
			c.set(r, program)
			when := time.Now()
			changed := func(line string) {
				if err := os.WriteFile(search, []byte("package rule\n\n// "+line+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				when = when.Add(time.Hour)
				if err := os.Chtimes(search, when, when); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(filepath.Join(r.dir, "rule", "rule.go")); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
			changed("Search finds RULES.")
			live(t, r, marker, c.args...)
			changed("SEARCH finds rules.")

			cmd, err := Git(context.Background(), r.dir, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Logf("git %v: %v\n%s", c.args, err, out)
			}
			filetest.Sprung(t, marker)
		})
	}
}

// attributes commits a .gitattributes file holding line.
func attributes(r *repo, line string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, ".gitattributes"), []byte(line+"\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// A filter or diff driver the user's own configuration defines is the user's: it is kept.
func TestUsersDriversAreKept(t *testing.T) {
	r := newRepo(t)
	r.commit("add the rules", map[string]string{"rule/rule.go": "package rule\n"})
	drivers, err := repositoryDrivers(context.Background(), r.dir)
	if err != nil || len(drivers) != 0 {
		t.Fatalf("drivers of a repository that sets none = %v, %v", drivers, err)
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Dir(global))
	if err := os.Rename(global, filepath.Join(filepath.Dir(global), ".gitconfig")); err != nil {
		t.Fatal(err)
	}
	r.git("config", "filter.Evil.clean", "evil")
	drivers, err = repositoryDrivers(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(drivers) != 1 || drivers[0] != [2]string{"filter.Evil.clean", ""} {
		t.Errorf("drivers = %q, want the repository's one emptied", drivers)
	}
}

// A commit message of megabytes is kept by its first maxField bytes, and the commits before it are
// read as usual; a log past maxLog keeps its newest commits.
func TestLongMessagesAndLogsAreCut(t *testing.T) {
	r := newRepo(t)
	r.commit("add the rules", map[string]string{"rule/rule.go": "package rule\n"})
	long := "Search the rules\n\n" + strings.Repeat("the search finds every rule by its words ", 100000) // 4 MB
	r.commit(long, map[string]string{"rule/search.go": "package rule\n"})
	for i := range 30 {
		r.commit(fmt.Sprintf("edit %d", i), map[string]string{"rule/edit.go": fmt.Sprintf("package rule // %d\n", i)})
	}
	l := read(t, r.dir, 0)
	if len(l.Commits) != 32 {
		t.Fatalf("%d commits read, want 32", len(l.Commits))
	}
	if c := l.Commits[30]; c.Subject != "Search the rules" || len(c.Body) > maxField || !strings.HasPrefix(c.Body, "the search finds") {
		t.Errorf("the long commit kept a body of %d bytes (at most %d), subject %q", len(c.Body), maxField, c.Subject)
	}
	if c := l.Commits[31]; c.Subject != "add the rules" || !slices.Equal(c.Files, []string{"rule/rule.go"}) {
		t.Errorf("the commit before the long one: %+v", c)
	}

	defer func(was int) { maxLog = was }(maxLog)
	maxLog = 2000
	l = read(t, r.dir, 0)
	if len(l.Commits) == 0 || len(l.Commits) >= 30 || l.Commits[0].Subject != "edit 29" {
		t.Errorf("a log cut at %d bytes kept %d commits, the first %+v", maxLog, len(l.Commits), l.Commits[:min(1, len(l.Commits))])
	}
	for _, c := range l.Commits {
		if len(c.Files) != 1 {
			t.Errorf("a commit of the cut log has files %q", c.Files)
		}
	}
}
