package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

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
