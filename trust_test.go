package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/embed/embedtest"
)

// trustWorkspace is a small workspace whose .ctxmap.yaml sends its chunks to endpoint with the key of
// $CTXMAP_TEST_SECRET.
func trustWorkspace(t *testing.T, endpoint string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"rule/rule.go": "package rule\n\n// Activate turns a rule on.\nfunc Activate(key string) error { return nil }\n",
		".ctxmap.yaml": "budget: 3000\nembedding:\n  provider: openai\n  url: " + endpoint + "\n  model: m\n  apiKeyEnv: CTXMAP_TEST_SECRET\nmaxFileSize: 67000000\n",
	}
	for p, body := range files {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A checkout's .ctxmap.yaml naming an embedding endpoint and a credential's variable sends nothing
// until the user trusts the folder (or sets the same in the user's own configuration); ctxmap says
// what it ignored. After `ctxmap trust` the endpoint is used, with the key.
func TestCheckoutConfigSendsNothingUntilTrusted(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	srv := embedtest.NewServer(t, 16, nil)
	const secret = "s3cret-deploy-token"
	run := func(configHome, root string, args ...string) (string, string) {
		t.Helper()
		cmd := command(bin, t.TempDir(), args...)
		cmd.Dir = root
		cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+configHome, "CTXMAP_TEST_SECRET="+secret)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	sent := func() (n int, keys []string) {
		for _, r := range srv.Requests() {
			n++
			keys = append(keys, r.Authorization)
		}
		return n, keys
	}

	t.Run("untrusted", func(t *testing.T) {
		root, home := trustWorkspace(t, srv.BaseURL()), t.TempDir()
		_, stderr := run(home, root, "context", "-C", root, "activate a rule")
		if n, keys := sent(); n != 0 {
			t.Fatalf("%d requests went to the checkout's endpoint (keys %q)", n, keys)
		}
		if strings.Count(stderr, "not trusted") != 1 || !strings.Contains(stderr, "embedding") || !strings.Contains(stderr, "maxFileSize") {
			t.Errorf("want one warning naming embedding and maxFileSize, got:\n%s", stderr)
		}
		if strings.Contains(stderr, secret) {
			t.Errorf("the secret is in the output:\n%s", stderr)
		}
	})

	t.Run("trusted", func(t *testing.T) {
		root, home := trustWorkspace(t, srv.BaseURL()), t.TempDir()
		if out, _ := run(home, root, "trust", "-C", root); !strings.Contains(out, "trusted:") {
			t.Fatalf("ctxmap trust says %q", out)
		}
		_, stderr := run(home, root, "context", "-C", root, "activate a rule")
		n, keys := sent()
		if n == 0 || keys[0] != "Bearer "+secret {
			t.Fatalf("after trust: %d requests, keys %q\n%s", n, keys, stderr)
		}
		if strings.Contains(stderr, "not trusted") {
			t.Errorf("a trusted folder is warned about:\n%s", stderr)
		}
		before := n
		run(home, root, "trust", "--revoke", "-C", root)
		run(home, root, "context", "-C", root, "activate a rule")
		if n, _ := sent(); n != before {
			t.Errorf("after --revoke, %d more requests", n-before)
		}
	})

	t.Run("user config", func(t *testing.T) {
		root, home := trustWorkspace(t, srv.BaseURL()), t.TempDir()
		os.WriteFile(filepath.Join(root, ".ctxmap.yaml"), []byte("budget: 3000\n"), 0o644)
		os.MkdirAll(filepath.Join(home, "ctxmap"), 0o700)
		user := "embedding:\n  provider: openai\n  url: " + srv.BaseURL() + "\n  model: m\n  apiKeyEnv: CTXMAP_TEST_SECRET\n"
		if err := os.WriteFile(filepath.Join(home, "ctxmap", "config.yaml"), []byte(user), 0o600); err != nil {
			t.Fatal(err)
		}
		before, _ := sent()
		run(home, root, "context", "-C", root, "activate a rule")
		if n, _ := sent(); n == before {
			t.Error("the user's own configuration of an endpoint was not used")
		}
	})
}
