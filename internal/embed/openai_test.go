package embed

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/embed/embedtest"
)

func newOpenAI(t *testing.T, cfg OpenAIConfig) *OpenAI {
	t.Helper()
	o, err := NewOpenAI(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOpenAIRequestAndAnswer(t *testing.T) {
	srv := embedtest.NewServer(t, 16, nil)
	o := newOpenAI(t, OpenAIConfig{URL: srv.BaseURL() + "/", Model: "test-embed", APIKey: "sk-test", Dimensions: 12})
	if len(srv.Requests()) != 0 {
		t.Fatal("with dimensions set, opening sent a request")
	}
	if o.Dim() != 12 || o.ID() != "openai/test-embed/12" {
		t.Errorf("Dim %d, ID %q; want 12, openai/test-embed/12", o.Dim(), o.ID())
	}
	texts := []string{"remove file", "login password", "resize image", "remove file"}
	vs, err := o.EmbedBatch(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests for one batch", len(reqs))
	}
	r := reqs[0]
	if r.Model != "test-embed" || strings.Join(r.Input, "|") != strings.Join(texts, "|") || r.Dimensions == nil || *r.Dimensions != 12 {
		t.Errorf("request %+v", r)
	}
	if r.Authorization != "Bearer sk-test" {
		t.Errorf("Authorization %q, want the bearer key", r.Authorization)
	}
	// the answer came in reverse order: each vector must be its own text's
	for i, v := range vs {
		want := embedtest.Vector(texts[i], 12, nil)
		if err := normalize(want); err != nil {
			t.Fatal(err)
		}
		if len(v) != 12 || cosine(v, want) < 0.9999 {
			t.Errorf("vector %d is not the embedding of %q", i, texts[i])
		}
		if n := cosine(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has squared length %v, want 1", i, n)
		}
	}
	if cosine(vs[0], vs[3]) < 0.9999 || cosine(vs[0], vs[1]) > 0.9 {
		t.Error("equal texts differ or different texts agree")
	}
	v, err := o.Embed(context.Background(), "remove file")
	if err != nil || cosine(v, vs[0]) < 0.9999 {
		t.Errorf("Embed = %v, %v; want the batch's vector", v, err)
	}
}

func TestOpenAIProbesTheDimension(t *testing.T) {
	srv := embedtest.NewServer(t, 24, nil)
	o := newOpenAI(t, OpenAIConfig{URL: srv.BaseURL(), Model: "local-model"})
	reqs := srv.Requests()
	if len(reqs) != 1 || len(reqs[0].Input) != 1 {
		t.Fatalf("opening sent %d requests, want one probe", len(reqs))
	}
	if reqs[0].Dimensions != nil {
		t.Error(`"dimensions" sent without being configured`)
	}
	if reqs[0].Authorization != "" {
		t.Errorf("Authorization %q sent without a key", reqs[0].Authorization)
	}
	if o.Dim() != 24 || o.ID() != "openai/local-model/24" {
		t.Errorf("Dim %d, ID %q; want 24 learnt from the probe", o.Dim(), o.ID())
	}
	if _, err := o.Embed(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	// the model changed under the same name: vectors of another size are refused
	srv.SetDim(32)
	if _, err := o.Embed(context.Background(), "hello"); err == nil || !strings.Contains(err.Error(), "returned 32 dimensions, want 24") {
		t.Errorf("a vector of the wrong size: %v", err)
	}
}

// fixedAnswers serves the given status and bodies in turn, the last one from then on.
func fixedAnswers(t *testing.T, answers ...func(w http.ResponseWriter)) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		answers[min(i, len(answers)-1)](w)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func answer(status int, header, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if k, v, ok := strings.Cut(header, ": "); ok {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}
}

const twoDims = `{"data":[{"index":0,"embedding":[3,4]}]}`

func TestOpenAIErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   func(w http.ResponseWriter)
		want     []string
		requests int32
	}{
		{"bad key", answer(401, "", `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`),
			[]string{"401 Unauthorized", "Incorrect API key provided"}, 1},
		{"unknown model", answer(404, "", `{"error":"model \"nomic\" not found, try pulling it first"}`),
			[]string{"404 Not Found", "try pulling it first"}, 1},
		{"server error", answer(500, "", "<html>\n  <body>upstream crashed</body>\n</html>"),
			[]string{"500 Internal Server Error", "<html> <body>upstream crashed</body> </html>"}, attempts},
		{"long wait asked", answer(429, "Retry-After: 3600", `{"error":"rate limited"}`),
			[]string{"429 Too Many Requests", "rate limited", "asks to wait 1h0m0s"}, 1},
		{"malformed JSON", answer(200, "", `{"data":[{"index":0,"embedding":[0.1,`), []string{"malformed answer", `{"data":[{"index":0`}, 1},
		{"no data", answer(200, "", `{"error":"overloaded"}`), []string{"0 embeddings for 1 texts", "overloaded"}, 1},
		{"zero vector", answer(200, "", `{"data":[{"index":0,"embedding":[0,0]}]}`), []string{"squared length 0"}, 1},
		{"empty vector", answer(200, "", `{"data":[{"index":0,"embedding":[]}]}`), []string{"empty embedding"}, 1},
		{"index out of range", answer(200, "", `{"data":[{"index":1,"embedding":[1,0]}]}`), []string{"index 1 out of range"}, 1},
		{"wrong dimension", answer(200, "", `{"data":[{"index":0,"embedding":[1,2,3]}]}`), []string{"returned 3 dimensions, want 2"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := fixedAnswers(t, tc.answer)
			o := &OpenAI{cfg: OpenAIConfig{Model: "m"}, endpoint: srv.URL + "/embeddings", dim: 2, client: srv.Client(), retryWait: time.Millisecond}
			_, err := o.Embed(context.Background(), "some text")
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range append(tc.want, srv.URL+"/embeddings") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if got := n.Load(); got != tc.requests {
				t.Errorf("%d requests, want %d (retry only a busy or failing server)", got, tc.requests)
			}
		})
	}
}

func TestOpenAIRetriesABusyServer(t *testing.T) {
	srv, n := fixedAnswers(t,
		answer(429, "Retry-After: 0", `{"error":"rate limited"}`),
		answer(503, "", "loading model"),
		answer(200, "", twoDims))
	o := &OpenAI{cfg: OpenAIConfig{Model: "m"}, endpoint: srv.URL + "/embeddings", dim: 2, client: srv.Client(), retryWait: time.Millisecond}
	v, err := o.Embed(context.Background(), "text")
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 || math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Errorf("after %d requests: %v, want [0.6 0.8] on the third", n.Load(), v)
	}
	// a cancelled caller stops the waiting
	slow, _ := fixedAnswers(t, answer(503, "Retry-After: 5", "busy"))
	o.endpoint = slow.URL + "/embeddings"
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := o.Embed(ctx, "text"); err == nil || time.Since(start) > 2*time.Second {
		t.Errorf("a cancelled wait: %v after %v", err, time.Since(start))
	}
}

func TestOpenAIDownAtOpen(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := NewOpenAI(context.Background(), OpenAIConfig{URL: url, Model: "m"})
	if err == nil || !strings.Contains(err.Error(), url+"/embeddings") || !strings.Contains(err.Error(), "refused") {
		t.Errorf("NewOpenAI on a closed port: %v, want the URL and connection refused", err)
	}
}

func TestRetryAfter(t *testing.T) {
	for h, want := range map[string]time.Duration{"": -1, "2": 2 * time.Second, "0": 0, "soon": -1, "-3": -1,
		time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat): 0} {
		if got := retryAfter(h); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", h, got, want)
		}
	}
}
