// Package embedtest runs an OpenAI-compatible embeddings server for tests. Its embedding is a
// deterministic bag of words: each word of a text (after an optional synonym table) adds to the
// component its hash picks. Answers list the vectors in reverse order, each with its index, and
// unnormalised, as real servers may.
package embedtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// Server answers POST /v1/embeddings.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	dim      int
	synonyms map[string]string
	status   int
	body     string
	delay    func(texts int) time.Duration
	requests []Request
}

// Request is what a client sent.
type Request struct {
	Authorization string
	Model         string
	Input         []string
	Dimensions    *int // nil when not sent
}

// NewServer starts a server whose vectors have dim components (unless a request asks for others);
// synonyms map a word to the word it embeds as. It stops with the test.
func NewServer(t testing.TB, dim int, synonyms map[string]string) *Server {
	s := &Server{dim: dim, synonyms: synonyms}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the URL a client is configured with; requests go to BaseURL/embeddings.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// WriteConfig writes root's .ctxmap.yaml: an embedding endpoint at this server, its model named model
// with dim dimensions.
func (s *Server) WriteConfig(t testing.TB, root, model string, dim int) {
	t.Helper()
	config := fmt.Sprintf("embedding:\n  provider: openai\n  url: %s\n  model: %s\n  dimensions: %d\n", s.BaseURL(), model, dim)
	filetest.Write(t, root, map[string]string{".ctxmap.yaml": config})
}

// SetDim changes the model's dimension, as another model behind the same name would.
func (s *Server) SetDim(dim int) {
	s.mu.Lock()
	s.dim = dim
	s.mu.Unlock()
}

// SetDelay makes every later answer wait delay(the number of texts asked for) before it is sent, as
// a slow endpoint does; nil answers at once.
func (s *Server) SetDelay(delay func(texts int) time.Duration) {
	s.mu.Lock()
	s.delay = delay
	s.mu.Unlock()
}

// Fail makes every later answer the given status and body; status 0 serves embeddings again.
func (s *Server) Fail(status int, body string) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

// Requests returns the requests answered with embeddings or a failure, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Texts counts the texts embedded for model.
func (s *Server) Texts(model string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Model == model {
			n += len(r.Input)
		}
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":"no such endpoint"}`, http.StatusNotFound)
		return
	}
	var body struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions *int     `json:"dimensions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, `{"error":"the body must be JSON"}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Authorization: r.Header.Get("Authorization"), Model: body.Model, Input: body.Input, Dimensions: body.Dimensions})
	dim, status, failure, delay := s.dim, s.status, s.body, s.delay
	s.mu.Unlock()
	if delay != nil {
		time.Sleep(delay(len(body.Input)))
	}
	if status != 0 {
		http.Error(w, failure, status)
		return
	}
	if body.Dimensions != nil {
		dim = *body.Dimensions
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, 0, len(body.Input))
	for i := len(body.Input) - 1; i >= 0; i-- {
		data = append(data, item{"embedding", i, Vector(body.Input[i], dim, s.synonyms)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": body.Model, "data": data})
}

// Vector is the server's embedding of text, not normalised. A text without words has the first
// component set, so that no vector is zero.
func Vector(text string, dim int, synonyms map[string]string) []float32 {
	v := make([]float32, dim)
	v[0] = 0.01
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if s, ok := synonyms[w]; ok {
			w = s
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dim)] += 3
	}
	return v
}
