package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// OpenAIConfig names an OpenAI-compatible embeddings endpoint (OpenAI, Ollama's /v1, LM Studio,
// llama.cpp's server, vLLM) and what to ask it.
type OpenAIConfig struct {
	URL        string // base URL; requests go to URL/embeddings
	Model      string
	APIKey     string // sent as a bearer token when set
	Dimensions int    // asked of the model when set; otherwise learnt from one request
}

// OpenAI embeds texts by POSTing them to {URL}/embeddings.
type OpenAI struct {
	cfg      OpenAIConfig
	endpoint string
	dim      int
	client   *http.Client
	// retryWait is the wait before the first retry of a busy or failing server, doubled each time.
	retryWait time.Duration
}

const (
	// requestTimeout bounds one request: a local server loading a large model takes a while.
	requestTimeout = 60 * time.Second
	// probeTimeout bounds the request that learns the dimension, made while the index opens.
	probeTimeout = 15 * time.Second
	attempts     = 4
	// maxRetryAfter is the longest Retry-After waited for; a server asking for more gets an error.
	maxRetryAfter = 10 * time.Second
	maxAnswer     = 256 << 20
	// MaxDimensions bounds a vector's components, configured or answered: models in use have up to
	// a few thousand.
	MaxDimensions = 1 << 16
	// errorSnippet is how much of a failed answer's body an error quotes.
	errorSnippet = 200
)

// NewOpenAI returns an embedder for the endpoint. Without Dimensions it embeds one word to learn the
// model's dimension, so that a server that is down, a wrong model or a refused key shows here.
func NewOpenAI(ctx context.Context, cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.URL == "" || cfg.Model == "" {
		return nil, errors.New("openai embedder: a URL and a model are required")
	}
	if cfg.Dimensions < 0 || cfg.Dimensions > MaxDimensions {
		return nil, fmt.Errorf("openai embedder: dimensions %d is not between 1 and %d", cfg.Dimensions, MaxDimensions)
	}
	o := &OpenAI{cfg: cfg, endpoint: strings.TrimRight(cfg.URL, "/") + "/embeddings", dim: cfg.Dimensions,
		client: &http.Client{}, retryWait: 500 * time.Millisecond}
	if o.dim == 0 {
		ctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		vs, err := o.EmbedBatch(ctx, []string{"probe"})
		if err != nil {
			return nil, err
		}
		o.dim = len(vs[0])
	}
	return o, nil
}

// ID carries the model and the dimension, not the key or the URL: what makes vectors differ.
func (o *OpenAI) ID() string { return fmt.Sprintf("openai/%s/%d", o.cfg.Model, o.dim) }

// Dim is the number of components the model returns.
func (o *OpenAI) Dim() int { return o.dim }

// Embed asks the endpoint for one text's vector.
func (o *OpenAI) Embed(ctx context.Context, text string) ([]float32, error) {
	vs, err := o.EmbedBatch(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

type embeddingsRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embeddingsAnswer struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// statusError is an answer outside 2xx.
type statusError struct {
	endpoint   string
	status     string
	code       int
	body       string
	retryAfter time.Duration // -1: no Retry-After
}

func (e *statusError) Error() string {
	return fmt.Sprintf("POST %s: %s: %s", e.endpoint, e.status, e.body)
}

// retryable: the server is busy or failing, not refusing this request.
func (e *statusError) retryable() bool {
	return e.code == http.StatusTooManyRequests || e.code >= 500
}

// EmbedBatch embeds texts in one request, retrying a busy or failing server a few times.
func (o *OpenAI) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(embeddingsRequest{Model: o.cfg.Model, Input: texts, Dimensions: o.cfg.Dimensions})
	if err != nil {
		return nil, fmt.Errorf("embeddings request: %w", err)
	}
	for attempt := 1; ; attempt++ {
		vs, err := o.post(ctx, body, len(texts))
		var se *statusError
		if err == nil || !errors.As(err, &se) || !se.retryable() || attempt == attempts {
			return vs, err
		}
		wait := o.retryWait << (attempt - 1)
		if se.retryAfter > maxRetryAfter {
			return nil, fmt.Errorf("%w (the server asks to wait %v)", err, se.retryAfter)
		} else if se.retryAfter >= 0 {
			wait = se.retryAfter
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (gave up waiting to retry: %v)", err, ctx.Err())
		}
	}
}

// post sends one request and checks the answer: one vector per text, each of the model's dimension,
// scaled to unit length.
func (o *OpenAI) post(ctx context.Context, body []byte, n int) ([][]float32, error) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("POST %s: no answer in %v", o.endpoint, requestTimeout)
		}
		return nil, err // *url.Error names the method and the URL
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("POST %s: reading the answer: %w", o.endpoint, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &statusError{endpoint: o.endpoint, status: resp.Status, code: resp.StatusCode,
			body: snippet(data), retryAfter: retryAfter(resp.Header.Get("Retry-After"))}
	}
	if len(data) > maxAnswer {
		return nil, fmt.Errorf("POST %s: the answer is over %d MiB", o.endpoint, maxAnswer>>20)
	}
	var ans embeddingsAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("POST %s: malformed answer (%v): %s", o.endpoint, err, snippet(data))
	}
	if len(ans.Data) != n {
		return nil, fmt.Errorf("POST %s: %d embeddings for %d texts: %s", o.endpoint, len(ans.Data), n, snippet(data))
	}
	vs := make([][]float32, n)
	for _, d := range ans.Data {
		if d.Index < 0 || d.Index >= n || vs[d.Index] != nil {
			return nil, fmt.Errorf("POST %s: embedding index %d out of range or repeated", o.endpoint, d.Index)
		}
		want := o.dim
		if want == 0 { // the probe: every vector as long as the first
			want = len(ans.Data[0].Embedding)
		}
		if len(d.Embedding) > MaxDimensions {
			return nil, fmt.Errorf("POST %s: model %s returned %d dimensions, more than the %d ctxmap keeps", o.endpoint, o.cfg.Model, len(d.Embedding), MaxDimensions)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("POST %s: model %s returned an empty embedding", o.endpoint, o.cfg.Model)
		}
		if len(d.Embedding) != want {
			return nil, fmt.Errorf("POST %s: model %s returned %d dimensions, want %d", o.endpoint, o.cfg.Model, len(d.Embedding), want)
		}
		if err := normalize(d.Embedding); err != nil {
			return nil, fmt.Errorf("POST %s: model %s: %v", o.endpoint, o.cfg.Model, err)
		}
		vs[d.Index] = d.Embedding
	}
	return vs, nil
}

// snippet is the start of a body on one line, for an error message.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b[:min(len(b), errorSnippet)]), "")), " ")
	if len(b) > errorSnippet {
		s += "..."
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}

// retryAfter reads a Retry-After header, in seconds or as a date; -1 when absent or unreadable.
func retryAfter(h string) time.Duration {
	if h == "" {
		return -1
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Until(t), 0)
	}
	return -1
}
