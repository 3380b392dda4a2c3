package pack

import (
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

func tokenizer(t testing.TB, name string) *Tokenizer {
	t.Helper()
	tok, err := NewTokenizer(name)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// whole counts text in one call to the encoder: the reference the chunked, cached Count must equal.
func whole(tok *Tokenizer, text string) int {
	return len(tok.enc.EncodeOrdinary(text))
}

// Known values published with the reference tokenizer (OpenAI's tiktoken).
func TestTokenizerKnownCounts(t *testing.T) {
	cases := []struct {
		text          string
		o200k, cl100k int
	}{
		{"hello world", 2, 2},
		{"tiktoken is great!", 6, 6},
		{"antidisestablishmentarianism", 6, 6},
		{"2 + 2 = 4", 7, 7},
		{"お誕生日おめでとう", 8, 9},
		{"", 0, 0},
	}
	o, cl := tokenizer(t, "o200k_base"), tokenizer(t, "cl100k_base")
	for _, c := range cases {
		if got := o.Count(c.text); got != c.o200k {
			t.Errorf("o200k_base Count(%q) = %d, want %d", c.text, got, c.o200k)
		}
		if got := cl.Count(c.text); got != c.cl100k {
			t.Errorf("cl100k_base Count(%q) = %d, want %d", c.text, got, c.cl100k)
		}
	}
	// The token ids themselves, to be sure the right vocabulary is loaded.
	if got := o.enc.EncodeOrdinary("hello world"); len(got) != 2 || got[0] != 24912 || got[1] != 2375 {
		t.Errorf("o200k_base ids of hello world = %v, want [24912 2375]", got)
	}
	if got := cl.enc.EncodeOrdinary("hello world"); len(got) != 2 || got[0] != 15339 || got[1] != 1917 {
		t.Errorf("cl100k_base ids of hello world = %v, want [15339 1917]", got)
	}
}

func TestNewTokenizer(t *testing.T) {
	def := tokenizer(t, "")
	if def.Name() != "o200k_base" {
		t.Errorf("default tokenizer is %q, want o200k_base", def.Name())
	}
	if again := tokenizer(t, "o200k_base"); again != def {
		t.Error("the encoding was built twice: NewTokenizer must share one per encoding")
	}
	if cl := tokenizer(t, "cl100k_base"); cl.Name() != "cl100k_base" || cl == def {
		t.Errorf("cl100k_base gave %q", cl.Name())
	}
	for _, bad := range []string{"gpt2", "O200K_BASE", "p50k_base"} {
		if _, err := NewTokenizer(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("NewTokenizer(%q) error = %v, want one naming it", bad, err)
		}
	}
	var zero *Tokenizer
	if zero.Count("four") != 4 || (&Tokenizer{}).Count("four") != 4 {
		t.Error("an unmade tokenizer must count bytes (never fewer than tokens), not panic")
	}
}

// Count cuts text at line boundaries and caches the pieces; the sum must be the whole's count
// exactly, on real source and on text built to stress the boundaries.
func TestCountEqualsWholeEncoding(t *testing.T) {
	var texts []string
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".xml")) {
			if b, err := os.ReadFile(path); err == nil && len(b) < 200<<10 {
				texts = append(texts, string(b))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 5 {
		t.Fatalf("found only %d source files under %s", len(texts), root)
	}
	// Boundary stress: lines that start with indentation, slashes, blank runs, CRLF, non-ASCII space.
	alphabet := []string{"\n", "\n", " ", "\t", "/", "//", "a", "Z", "1", "`", "'s", "é", "\r\n", "\u00a0", "#", "}",
		"<", "_", "\v", "日本", "\u2028", " \n", "\n\n", "ab'LL", "   ", "123456", "\u0301", "*/"}
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for j := 0; j < 1+r.IntN(40); j++ {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, c := range genCandidates(3, 200) {
		texts = append(texts, c.Full, c.Compact+"\n"+c.Full)
	}
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		tok := tokenizer(t, name)
		bad := 0
		for _, text := range texts {
			want := whole(tok, text)
			if least := minTokens(text, len(text)); least > want {
				t.Errorf("%s: minTokens = %d, more than the %d tokens of %q", name, least, want, clipForLog(text))
			}
			if got := tok.Count(text); got != want {
				bad++
				if bad <= 5 {
					t.Errorf("%s: Count = %d, whole encoding = %d for %q", name, got, want, clipForLog(text))
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d texts counted differently", name, bad, len(texts))
		}
	}
}

func clipForLog(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func TestCountConcurrent(t *testing.T) {
	tok := tokenizer(t, "cl100k_base")
	cands := genCandidates(11, 60)
	want := make([]int, len(cands))
	for i, c := range cands {
		want[i] = whole(tok, c.Full)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(cands))
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, c := range cands {
				if got := tok.Count(c.Full); got != want[i] {
					errs <- c.Symbol
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("concurrent Count of %s differs", s)
	}
}

func TestClip(t *testing.T) {
	tok := tokenizer(t, "")
	long := strings.Repeat("お誕生日おめでとう and a long tail ", 20)
	for _, max := range []int{1, 2, 5, 17, 40} {
		got := tok.clip(long, max)
		if n := tok.Count(got); n > max {
			t.Errorf("clip to %d gave %d tokens: %q", max, n, got)
		}
		if !strings.HasSuffix(got, "…") && got != "" {
			t.Errorf("clip to %d lost its marker: %q", max, got)
		}
		if !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
			t.Errorf("clip to %d is not a prefix: %q", max, got)
		}
	}
	if got := tok.clip("short", 10); got != "short" {
		t.Errorf("clip changed text that fits: %q", got)
	}
}

func TestCountCacheBounded(t *testing.T) {
	c := newCountCache(1000)
	for i := 0; i < 500; i++ {
		c.put(strings.Repeat("x", 10)+string(rune('a'+i%26))+strings.Repeat("y", i%7), i)
	}
	if c.size > 1000 {
		t.Errorf("cache holds %d bytes, limit 1000", c.size)
	}
	c.put("kept", 3)
	if n, ok := c.get("kept"); !ok || n != 3 {
		t.Errorf("get(kept) = %d, %v", n, ok)
	}
	c.put(strings.Repeat("z", maxCachedPiece+1), 1)
	if _, ok := c.get(strings.Repeat("z", maxCachedPiece+1)); ok {
		t.Error("a piece over the size limit was cached")
	}
}

// TestEmbeddedRanksAsTheLibrarysLoader compares the rank files as read here and by the library's own
// offline loader: every token with its rank.
func TestEmbeddedRanksAsTheLibrarysLoader(t *testing.T) {
	for _, file := range []string{"o200k_base.tiktoken", "cl100k_base.tiktoken"} {
		got, err := embeddedRanks{}.LoadTiktokenBpe("https://example.com/" + file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < 100000 || !maps.Equal(got, want) {
			t.Errorf("%s: %d ranks, the library's loader %d, equal %v", file, len(got), len(want), maps.Equal(got, want))
		}
	}
	if _, err := (embeddedRanks{}).LoadTiktokenBpe("missing.tiktoken"); err == nil {
		t.Error("a missing rank file loaded")
	}
}

func BenchmarkLoadRanks(b *testing.B) {
	b.Run("embeddedRanks", func(b *testing.B) {
		for b.Loop() {
			embeddedRanks{}.LoadTiktokenBpe("o200k_base.tiktoken")
		}
	})
	b.Run("offline loader", func(b *testing.B) {
		for b.Loop() {
			tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken")
		}
	})
}

// The hand-written pieces equal the library's regular expression on random text of every class its
// patterns name: letters of each case (ǅ titlecase, ʰ modifier, 中 other), marks, numbers of each
// kind, contractions in any case, whitespace of several kinds, punctuation, line breaks and slashes.
func TestPieceCounterEqualsLibrary(t *testing.T) {
	alphabet := []string{"a", "Z", "ǅ", "ʰ", "中", "\u0301", "\u093f", "٣", "Ⅻ", "½", "7", "'", "'s", "'S", "'t", "'re", "'VE",
		"'m", "'ll", "'Ll", "'d", "'x", "ſ", "K", " ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u2028", "\u3000", "/", "//",
		".", "!", "_", "-", "😀", "€", "ß", "İ", "Ω", "ω", "é", "e\u0301", "{", "}", "\v", "\f", "\u0085"}
	r := rand.New(rand.NewPCG(11, 3))
	var texts []string
	for i := 0; i < 6000; i++ {
		var b strings.Builder
		for j := 0; j < 1+r.IntN(24); j++ {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		tok := tokenizer(t, name)
		if tok.pieces == nil {
			t.Fatalf("%s: no piece counter: the ranks were not shared", name)
		}
		bad := 0
		for _, text := range texts {
			if got, want := tok.pieces.count(text), whole(tok, text); got != want {
				if bad++; bad <= 5 {
					t.Errorf("%s: %d tokens, the library %d, for %q", name, got, want, text)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d texts counted differently", name, bad, len(texts))
		}
		if got := tok.pieces.count("a\xffb"); got != -1 {
			t.Errorf("%s: invalid UTF-8 counted (%d), not left to the library", name, got)
		}
	}
}

func BenchmarkCountFresh(b *testing.B) {
	src, err := os.ReadFile("assemble.go")
	if err != nil {
		b.Fatal(err)
	}
	tok := tokenizer(b, "")
	b.Run("pieces", func(b *testing.B) {
		for b.Loop() {
			tok.pieces.count(string(src))
		}
	})
	b.Run("library", func(b *testing.B) {
		for b.Loop() {
			whole(tok, string(src))
		}
	})
}
