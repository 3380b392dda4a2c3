package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/config"
	"github.com/ctxmap/ctxmap/internal/filetest"
)

// A checkout comes with its own .git/config and .gitattributes: the programs they name are started by
// none of index, export and import, whatever git is asked for on the way.
func TestCheckoutsGitRunsNothing(t *testing.T) {
	ctx := context.Background()
	// hostile sets every program a checkout can name for the commands these run, and leaves a file of
	// the index's size with another time, which git reads through its filter
	hostile := func(t *testing.T, root string) (marker string) {
		program, marker := filetest.Trap(t, "program")
		if err := os.WriteFile(filepath.Join(root, ".git", "info", "attributes"), []byte("* filter=evil diff=evil\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		hooks := filepath.Join(root, ".git", "hooks")
		for _, hook := range []string{"post-index-change", "reference-transaction", "post-checkout"} {
			if err := os.Symlink(program, filepath.Join(hooks, hook)); err != nil {
				t.Fatal(err)
			}
		}
		for _, kv := range [][2]string{{"core.fsmonitor", program}, {"filter.evil.clean", program},
			{"filter.evil.process", program}, {"diff.evil.textconv", program}, {"diff.external", program}} {
			filetest.Git(t, root, "config", kv[0], kv[1])
		}
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(root, "rule", "rule.go"), later, later); err != nil {
			t.Fatal(err)
		}
		return marker
	}

	t.Run("export", func(t *testing.T) {
		root := sampleRepo(t)
		marker := hostile(t, root)
		// the work tree is clean: with its filter off, git finds the file as committed
		_, err := Export(ctx, Options{Root: root, CacheDir: t.TempDir(), Config: &withoutVectors}, filepath.Join(t.TempDir(), "index.tar"))
		if err != nil {
			t.Error(err)
		}
		filetest.Sprung(t, marker)
	})
	t.Run("import", func(t *testing.T) {
		origin, exported := committed(t, t.TempDir())
		clone := filepath.Join(t.TempDir(), "clone")
		filetest.Git(t, origin, "clone", "-q", origin, clone)
		marker := hostile(t, clone)
		if _, err := Import(ctx, Options{Root: clone, CacheDir: t.TempDir(), Config: &withoutVectors}, exported); err != nil {
			t.Error(err)
		}
		filetest.Sprung(t, marker)
	})
	t.Run("a partial clone's missing tree", func(t *testing.T) {
		root := sampleRepo(t)
		writeFiles(t, root, map[string]string{"rule/retire.go": "package rule\n\n// Retire marks a rule as retired.\nfunc Retire() {}\n"})
		filetest.Git(t, root, "add", ".")
		filetest.Git(t, root, "commit", "-q", "-m", "Retire rules")
		tree := filetest.Git(t, root, "rev-parse", "HEAD~1:rule")
		if err := os.Remove(filepath.Join(root, ".git", "objects", tree[:2], tree[2:])); err != nil {
			t.Fatal(err)
		}
		program, marker := filetest.Trap(t, "upload-pack")
		for _, kv := range [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.partialClone", "origin"},
			{"remote.origin.promisor", "true"}, {"remote.origin.url", t.TempDir()}, {"remote.origin.uploadpack", program},
			{"protocol.file.allow", "always"}} {
			filetest.Git(t, root, "config", kv[0], kv[1])
		}
		ix := mustOpen(t, Options{Root: root, InMemory: true})
		defer ix.Close()
		mustBuild(t, ix)
		filetest.Sprung(t, marker)
	})
}

// A file that changed with the likeliest one in the history is added to the pack as its companion;
// one the index keeps without its parse (here a minified build, as axios commits dist/ with lib/) is
// left out, not shown (it made every axios question panic).
func TestCompanionWithoutParseIsLeftOut(t *testing.T) {
	root := t.TempDir()
	minified := "var a=" + strings.Repeat("function(r){return r.headers&&r.redirect},", 60) + "0;\n"
	for i := range 3 {
		writeFiles(t, root, map[string]string{
			"lib/redirect.js": fmt.Sprintf("// follow keeps the request headers when a redirect is followed (%d).\n"+
				"function follow(request, headers) {\n  request.headers = headers;\n  return request;\n}\nmodule.exports = follow;\n", i),
			"dist/app.js": fmt.Sprintf("%s// build %d\n", minified, i),
		})
		if i == 0 {
			filetest.Git(t, root, "init", "-q")
		}
		filetest.Git(t, root, "add", ".")
		filetest.Git(t, root, "commit", "-q", "-m", fmt.Sprintf("Release %d: redirect headers", i))
	}
	var logged []string
	ix := mustOpen(t, Options{Root: root, InMemory: true, Logf: func(format string, args ...any) {
		logged = append(logged, fmt.Sprintf(format, args...))
	}})
	defer ix.Close()
	mustBuild(t, ix)
	if rec := ix.Snapshot().Record("dist/app.js"); rec == nil || rec.Skip != "minified" {
		t.Fatalf("dist/app.js is not kept as a minified file: %+v", rec)
	}
	res, err := ask(context.Background(), ix, Request{Text: "headers are lost on redirect"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Pack.Items {
		if it.Path == "dist/app.js" {
			t.Errorf("the minified companion is in the pack: %+v", it)
		}
	}
	if len(res.Pack.Items) == 0 || res.Pack.Items[0].Path != "lib/redirect.js" {
		t.Errorf("the pack does not open with lib/redirect.js: %+v", res.Pack.Items)
	}
	t.Logf("log: %q", logged)
}

// What the user's own configuration excludes stays out whatever the checkout's .ctxmap.yaml
// re-includes; the checkout's own exclusions still hold.
func TestUsersExclusionsWin(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	writeFiles(t, home, map[string]string{"ctxmap/" + config.UserFile: "exclude: [\"secrets/\"]\n"})
	writeFiles(t, root, map[string]string{
		config.File:          "exclude: [\"!secrets/\", \"!secrets/**\", \"gen/\"]\n",
		"secrets/stripe.txt": "STRIPE_KEY=sk_live_1234\n",
		"gen/types.go":       "package gen\n",
		"pay/pay.go":         "package pay\n\n// Charge reads STRIPE_KEY.\nfunc Charge() {}\n",
	})
	cfg, err := LoadConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	ix := mustOpen(t, Options{Root: root, InMemory: true, Config: &cfg})
	defer ix.Close()
	mustBuild(t, ix)
	if got := ix.Snapshot().Paths; !slices.Equal(got, []string{config.File, "pay/pay.go"}) {
		t.Errorf("indexed %q, want the configuration and pay/pay.go", got)
	}
}
