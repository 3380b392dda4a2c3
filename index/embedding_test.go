package index

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/embed/embedtest"
	"github.com/ctxmap/ctxmap/internal/vector"
)

func TestDefaultConfigEmbedsOffline(t *testing.T) {
	for _, e := range []Embedding{{}, {Provider: "glove"}} {
		got, err := embed.New(context.Background(), e)
		if err != nil || got != embed.Default() {
			t.Errorf("embedder for %+v: %v, %v; want the GloVe embedder", e, got, err)
		}
	}
	root := t.TempDir()
	writeFiles(t, root, sample)
	ix := open(t, root, t.TempDir())
	defer ix.Close()
	if got := ix.VectorStatus(); got != embed.Default().ID() {
		t.Errorf("VectorStatus = %q, want %q", got, embed.Default().ID())
	}
}

// gizmo is the one file about gizmos; a query that says "flibbertigibbet" reaches it only through
// the test server's embedding, which takes that word for "gizmo".
var gizmo = map[string]string{
	"gizmo/spin.go": `package gizmo

// Spin turns the gizmo until the gizmo stops.
func Spin(g *Gizmo) { g.turns++ }
`,
	"gizmo/long.go": "package gizmo\n\n// Long is a long function.\nfunc Long() {\n" + strings.Repeat("\tprintln(\"a line of a long function body\")\n", 400) + "}\n",
}

var synonyms = map[string]string{"flibbertigibbet": "gizmo"}

func withGizmo() map[string]string {
	files := map[string]string{}
	for _, m := range []map[string]string{sample, gizmo} {
		for p, c := range m {
			files[p] = c
		}
	}
	return files
}

// openWith opens and builds an index that embeds with e, and waits for its vectors.
func openWith(t *testing.T, root, cache string, e Embedding) (*Index, Stats) {
	t.Helper()
	ix := mustOpen(t, Options{Root: root, CacheDir: cache, Config: &Config{Embedding: e}})
	st := mustBuild(t, ix)
	ix.WaitVectors()
	return ix, st
}

func provider(srv *embedtest.Server, model string) Embedding {
	return Embedding{Provider: "openai", URL: srv.BaseURL(), Model: model}
}

func TestProviderVectorsAnswerQueries(t *testing.T) {
	srv := embedtest.NewServer(t, 256, synonyms)
	root, cache := t.TempDir(), t.TempDir()
	writeFiles(t, root, withGizmo())
	t.Setenv("CTXMAP_TEST_EMBEDDING_KEY", "sk-test-key")
	e := provider(srv, "bag")
	e.APIKeyEnv = "CTXMAP_TEST_EMBEDDING_KEY"
	ix, _ := openWith(t, root, cache, e)
	if got := ix.VectorStatus(); got != "openai/bag/256" {
		t.Errorf("VectorStatus = %q, want openai/bag/256", got)
	}
	chunks := ix.Snapshot().Stats().Chunks
	if n := ix.vectors.Loaded().Count(); n != chunks {
		t.Errorf("%d vectors for %d chunks", n, chunks)
	}
	reqs := srv.Requests()
	if srv.Texts("bag") != chunks+1 {
		t.Errorf("%d texts embedded for %d chunks and the probe", srv.Texts("bag"), chunks)
	}
	for _, r := range reqs {
		if r.Authorization != "Bearer sk-test-key" {
			t.Fatalf("Authorization %q, want the key from $CTXMAP_TEST_EMBEDDING_KEY", r.Authorization)
		}
		for _, in := range r.Input {
			if len(in) > 2048 {
				t.Fatalf("a text of %d bytes was sent; chunks are capped", len(in))
			}
		}
	}
	if len(reqs) >= chunks {
		t.Errorf("%d requests for %d chunks: not batched", len(reqs), chunks)
	}

	// the signal itself: the fused ranking, which a lone embedding match leads
	res, err := ask(context.Background(), ix, Request{Text: "the flibbertigibbet", Ranker: RankerFusion})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) == 0 || res.Files[0].Path != "gizmo/spin.go" || !strings.Contains(strings.Join(res.Files[0].Why, " "), "embedding #1") {
		t.Fatalf("top file %+v, want gizmo/spin.go by its embedding", res.Files)
	}
	if q := srv.Requests()[len(srv.Requests())-1]; !slices.Equal(q.Input, []string{"the flibbertigibbet"}) {
		t.Errorf("the query was embedded as %q", q.Input)
	}
	res, err = ask(context.Background(), ix, Request{Text: "the flibbertigibbet", Without: []string{"vectors"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if f.Path == "gizmo/spin.go" {
			t.Fatalf("without vectors gizmo/spin.go was found by %v: the test shows nothing", f.Why)
		}
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	// the vectors are kept under the provider's model and dimension, not under GloVe's
	vdir := filepath.Join(cache, "vectors")
	pe, err := embed.NewOpenAI(context.Background(), embed.OpenAIConfig{URL: srv.BaseURL(), Model: "bag", Dimensions: 256})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e    embed.Embedder
		want int
	}{{pe, chunks}, {embed.Default(), 0}} {
		s, err := vector.Open(vdir, tc.e)
		if err != nil {
			t.Fatal(err)
		}
		if s.Count() != tc.want {
			t.Errorf("store opened for %s holds %d vectors, want %d", tc.e.ID(), s.Count(), tc.want)
		}
		// not closed: closing would rewrite the store for this model
	}
}

func TestSwitchingModelReEmbeds(t *testing.T) {
	srv := embedtest.NewServer(t, 64, nil)
	root, cache := t.TempDir(), t.TempDir()
	writeFiles(t, root, sample)
	var chunks int
	for _, step := range []struct {
		name     string
		e        Embedding
		status   string
		embedded int // texts sent, besides the probe
	}{
		{"model a", provider(srv, "a"), "openai/a/64", -1},
		{"model b", provider(srv, "b"), "openai/b/64", -1},
		{"model b again", provider(srv, "b"), "openai/b/64", 0},
		{"model b at 32 dimensions", Embedding{Provider: "openai", URL: srv.BaseURL(), Model: "b", Dimensions: 32}, "openai/b/32", -1},
		{"glove", Embedding{}, embed.Default().ID(), 0},
		{"model b at 32 dimensions after glove", Embedding{Provider: "openai", URL: srv.BaseURL(), Model: "b", Dimensions: 32}, "openai/b/32", -1},
	} {
		before := len(srv.Requests())
		ix, _ := openWith(t, root, cache, step.e)
		chunks = ix.Snapshot().Stats().Chunks
		if got := ix.VectorStatus(); got != step.status {
			t.Errorf("%s: VectorStatus = %q, want %q", step.name, got, step.status)
		}
		if n := ix.vectors.Loaded().Count(); n != chunks {
			t.Errorf("%s: %d vectors for %d chunks", step.name, n, chunks)
		}
		var texts int
		for _, r := range srv.Requests()[before:] {
			if r.Input[0] != "probe" {
				texts += len(r.Input)
			}
		}
		want := step.embedded
		if want < 0 {
			want = chunks
		}
		if texts != want {
			t.Errorf("%s: %d chunks embedded, want %d", step.name, texts, want)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestProviderDownAtOpen(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL + "/v1"
	down.Close()
	root := t.TempDir()
	writeFiles(t, root, sample)
	for _, tc := range []struct {
		name string
		e    Embedding
		want []string
	}{
		{"server down", Embedding{Provider: "openai", URL: url, Model: "nomic-embed-text"},
			[]string{url + "/embeddings", "connection refused", "check that the server at " + url + ` runs and serves the model "nomic-embed-text"`}},
		{"key not set", Embedding{Provider: "openai", URL: url, Model: "m", APIKeyEnv: "CTXMAP_TEST_UNSET_KEY"},
			[]string{"embedding.apiKeyEnv names CTXMAP_TEST_UNSET_KEY, which is not set"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix, st := openWith(t, root, t.TempDir(), tc.e)
			defer ix.Close()
			status := ix.VectorStatus()
			if !strings.HasPrefix(status, "off: ") || st.Vectors != status {
				t.Errorf("VectorStatus = %q, stats say %q; want off", status, st.Vectors)
			}
			warnings := strings.Join(st.Warnings, "\n")
			for _, w := range append(tc.want, "vectors off: ") {
				if !strings.Contains(warnings, w) {
					t.Errorf("warnings %q lack %q", warnings, w)
				}
			}
			for _, w := range tc.want {
				if !strings.Contains(status, w) {
					t.Errorf("VectorStatus %q lacks %q", status, w)
				}
			}
			res, err := ask(context.Background(), ix, Request{Text: "Cannot search for words longer than 15 characters in rule descriptions"})
			if err != nil || len(res.Files) == 0 || res.Files[0].Path != "rule/index.go" {
				t.Fatalf("query without vectors: %v, %v", res, err)
			}
		})
	}
}

func TestProviderFailingAtQueryTime(t *testing.T) {
	srv := embedtest.NewServer(t, 64, nil)
	root := t.TempDir()
	writeFiles(t, root, sample)
	ix, _ := openWith(t, root, t.TempDir(), provider(srv, "m"))
	defer ix.Close()
	query := func() {
		t.Helper()
		res, err := ask(context.Background(), ix, Request{Text: "Cannot search for words longer than 15 characters in rule descriptions"})
		if err != nil || len(res.Files) == 0 || res.Files[0].Path != "rule/index.go" {
			t.Fatalf("query: %v, %v", res.Files, err)
		}
	}
	query()
	if got := ix.VectorStatus(); got != "openai/m/64" {
		t.Fatalf("VectorStatus = %q", got)
	}

	srv.Fail(http.StatusUnauthorized, `{"error":"invalid key"}`)
	query()
	query()
	if got := ix.VectorStatus(); !strings.Contains(got, "embedding fails") || !strings.Contains(got, "401 Unauthorized") {
		t.Errorf("VectorStatus = %q, want the failure", got)
	}
	if w := ix.Warnings(); len(w) != 1 || !strings.Contains(w[0], "invalid key") {
		t.Errorf("warnings %q, want one for the failures in a row", w)
	}

	srv.Fail(0, "")
	query()
	if got := ix.VectorStatus(); got != "openai/m/64" {
		t.Errorf("VectorStatus = %q after the provider came back", got)
	}
	srv.Close()
	query()
	if got := ix.VectorStatus(); !strings.Contains(got, "refused") {
		t.Errorf("VectorStatus = %q with the provider gone", got)
	}
}

func TestVectorsLostToAFailureAreMadeAtTheNextStart(t *testing.T) {
	srv := embedtest.NewServer(t, 64, nil)
	root, cache := t.TempDir(), t.TempDir()
	writeFiles(t, root, sample)
	ix, _ := openWith(t, root, cache, provider(srv, "m"))
	srv.Fail(http.StatusBadRequest, `{"error":"input too long"}`)
	writeFiles(t, root, map[string]string{"rule/rule.go": sample["rule/rule.go"] + "\n// NewRules makes many rules.\nfunc NewRules() []Rule { return nil }\n"})
	if err := ix.Update(context.Background(), []string{"rule/rule.go"}); err != nil {
		t.Fatal(err)
	}
	ix.WaitVectors()
	chunks := ix.Snapshot().Stats().Chunks
	if got := ix.VectorStatus(); !strings.Contains(got, "embedding fails") || !strings.Contains(got, "input too long") {
		t.Errorf("VectorStatus = %q, want the failure", got)
	}
	if w := strings.Join(ix.Warnings(), "\n"); !strings.Contains(w, "400 Bad Request") {
		t.Errorf("warnings %q lack the failure", w)
	}
	if n := ix.vectors.Loaded().Count(); n >= chunks {
		t.Fatalf("%d vectors for %d chunks after a failed embedding", n, chunks)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	srv.Fail(0, "")
	before := srv.Texts("m")
	ix, _ = openWith(t, root, cache, provider(srv, "m"))
	defer ix.Close()
	if n := ix.vectors.Loaded().Count(); n != chunks {
		t.Errorf("next start: %d vectors for %d chunks", n, chunks)
	}
	// only the file whose vectors were lost is embedded again, after the probe
	if got, want := srv.Texts("m")-before, 1+len(ix.Snapshot().Record("rule/rule.go").Chunks); got != want {
		t.Errorf("next start embedded %d texts, want %d (the probe and rule/rule.go's chunks)", got, want)
	}
}

// Dimensions from outside are bounded: a configured count above the limit is refused when the index
// opens, naming the key; an endpoint answering more turns the vectors off with one warning, and the
// index builds and answers.
func TestTooManyDimensions(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, sample)
	srv := embedtest.NewServer(t, 300_000, nil)
	_, err := Open(context.Background(), Options{Root: root, CacheDir: t.TempDir(),
		Config: &Config{Embedding: Embedding{Provider: "openai", URL: srv.BaseURL(), Model: "m", Dimensions: 300_000}}})
	if err == nil || !strings.Contains(err.Error(), "embedding.dimensions 300000") {
		t.Errorf("configured: %v, want the key refused", err)
	}
	done := make(chan Stats, 1)
	var ix *Index
	go func() {
		var st Stats
		ix, st = openWith(t, root, t.TempDir(), Embedding{Provider: "openai", URL: srv.BaseURL(), Model: "m"})
		done <- st
	}()
	var st Stats
	select {
	case st = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("no index after 30 s")
	}
	defer ix.Close()
	if status := ix.VectorStatus(); !strings.HasPrefix(status, "off: ") || !strings.Contains(status, "dimensions") {
		t.Errorf("VectorStatus = %q, want off for its dimensions", status)
	}
	if n := len(st.Warnings) + len(ix.Warnings()); n > 3 {
		t.Errorf("%d warnings: %q", n, st.Warnings[:min(len(st.Warnings), 5)])
	}
	if res, err := ask(context.Background(), ix, Request{Text: "rule descriptions"}); err != nil || len(res.Files) == 0 {
		t.Errorf("no answer without vectors: %v", err)
	}
}
