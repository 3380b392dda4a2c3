package embed

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/ctxmap/ctxmap/internal/embed/internal/glovetable"
)

func embedOne(t testing.TB, text string) []float32 {
	t.Helper()
	v, err := Default().Embed(context.Background(), text)
	if err != nil {
		t.Fatalf("Embed(%q): %v", text, err)
	}
	return v
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestPackedTable(t *testing.T) {
	table, err := glove.load()
	if err != nil {
		t.Fatal(err)
	}
	if table.Len() != 100000 || table.Dim() != 100 {
		t.Fatalf("table has %d words x %d dimensions, want 100000 x 100", table.Len(), table.Dim())
	}
	// About 11 MB: 100 int8 components and a 4-byte scale per word, plus the word list.
	if n := len(gloveData); n < 10_500_000 || n > 11_500_000 {
		t.Errorf("glove.bin is %d bytes", n)
	}
	if r, ok := table.Rank("the"); !ok || r != 0 {
		t.Errorf(`rank of "the" = %d, %v; want 0 (frequency order)`, r, ok)
	}
	rCommon, _ := table.Rank("government")
	rRare, ok := table.Rank("banana")
	if !ok || rCommon >= rRare {
		t.Errorf("rank(government) = %d, rank(banana) = %d, %v: want the common word first", rCommon, rRare, ok)
	}
	for _, w := range []string{",", "A", "1999", "x"} {
		if _, ok := table.Rank(w); ok {
			t.Errorf("%q is in the table; only lower-case words of two letters or more are kept", w)
		}
	}
	if got := Default().ID(); got != "glove-6b-100d-int8/v1" {
		t.Errorf("ID = %q", got)
	}
}

func TestSimilarities(t *testing.T) {
	closer := func(query, near, far string) {
		t.Helper()
		q := embedOne(t, query)
		cn, cf := cosine(q, embedOne(t, near)), cosine(q, embedOne(t, far))
		if cn <= cf {
			t.Errorf("cos(%q, %q) = %.3f, not above cos(%q, %q) = %.3f", query, near, cn, query, far, cf)
		}
	}
	closer("error", "exception", "banana")
	closer("delete a file", "removeFile", "parseJSON")
	closer("user cannot log in with the right password", "func authenticateUser(name, password string) error",
		"func resizeImage(img Image, width int) Image")
	closer("the server times out on slow requests", "httpServer.readTimeout", "colorPalette.darken")
	closer("database", "src/storage/sql_connection.go", "src/ui/music_player.go")
}

func TestUnitLength(t *testing.T) {
	texts := []string{
		"error",
		"func (s *RuleIndex) Lookup(key string) (*Rule, error) { return s.rules[key], nil }",
		"The quick brown fox jumps over the lazy dog. " + strings.Repeat("again and again ", 500),
		"src/rule/RuleIndex.java",
		"",                  // nothing
		"the and of if",     // stopwords only
		"zzqxv qqwrt 12345", // no known word
		"日本語のテキスト",          // letters the table does not hold
		"\xff\xfe invalid utf-8 café",
	}
	for _, text := range texts {
		v := embedOne(t, text)
		if len(v) != Default().Dim() {
			t.Fatalf("Embed(%.20q): %d components, want %d", text, len(v), Default().Dim())
		}
		var sum float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("Embed(%.20q) holds %v", text, x)
			}
			sum += float64(x) * float64(x)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("Embed(%.20q): squared length %v, want 1", text, sum)
		}
	}
}

func TestNoKnownWordGivesFixedVector(t *testing.T) {
	empty := embedOne(t, "")
	for _, text := range []string{"zzqxv qqwrt", "the and of", "42"} {
		if got := embedOne(t, text); cosine(empty, got) < 1-1e-6 {
			t.Errorf("Embed(%q) differs from Embed(\"\"): cos %.4f", text, cosine(empty, got))
		}
	}
	if cosine(empty, embedOne(t, "error")) > 0.99 {
		t.Error("a known word embeds like an empty text")
	}
}

func TestDeterministic(t *testing.T) {
	text := "func removeFile(path string) error { return os.Remove(path) }"
	want := embedOne(t, text)
	var wg sync.WaitGroup
	got := make([][]float32, 8)
	for i := range got {
		wg.Go(func() {
			v, err := Default().Embed(context.Background(), text)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	for i, v := range got {
		for j := range v {
			if v[j] != want[j] {
				t.Fatalf("run %d, component %d: %v, want %v", i, j, v[j], want[j])
			}
		}
	}
}

func TestIdentifiersSplit(t *testing.T) {
	// An identifier embeds as the words it is made of.
	pairs := [][2]string{{"RuleIndex", "rule index"}, {"remove_file", "remove file"}, {"http/Server.go", "http server"}}
	for _, p := range pairs {
		if c := cosine(embedOne(t, p[0]), embedOne(t, p[1])); c < 1-1e-5 {
			t.Errorf("cos(%q, %q) = %.5f, want 1", p[0], p[1], c)
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Default().Embed(ctx, "error"); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestCorruptTableIsAnError(t *testing.T) {
	g := &gloveEmbedder{data: gloveData[:len(gloveData)-1]}
	if _, err := g.Embed(context.Background(), "error"); err == nil {
		t.Fatal("a truncated table embedded without error")
	}
}

// Parsing the compiled-in table: the cost of the first Embed.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := glovetable.Parse(gloveData); err != nil {
			b.Fatal(err)
		}
	}
}

// A 60-word chunk of code and comment.
func BenchmarkEmbed(b *testing.B) {
	chunk := `// removeStaleEntries deletes cache entries older than the configured maximum age and
// reports how many were dropped, so the caller can log the cleanup.
func (c *Cache) removeStaleEntries(now time.Time) (int, error) {
	dropped := 0
	for key, entry := range c.entries {
		if now.Sub(entry.storedAt) > c.maxAge {
			delete(c.entries, key)
			dropped++
		}
	}
	return dropped, nil
}`
	if n := len(strings.Fields(chunk)); n < 55 || n > 65 {
		b.Fatalf("chunk has %d words", n)
	}
	e := Default()
	ctx := context.Background()
	if _, err := e.Embed(ctx, chunk); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(ctx, chunk); err != nil {
			b.Fatal(err)
		}
	}
}
