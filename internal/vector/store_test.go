package vector

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	chromem "github.com/philippgille/chromem-go"

	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/embed/embedtest"
)

var sample = []Doc{
	{ID: "fs/remove.go#1", Path: "fs/remove.go", Text: "func removeFile(path string) error { return os.Remove(path) }"},
	{ID: "fs/remove.go#2", Path: "fs/remove.go", Text: "// deleteDirectory erases a folder and everything under it\nfunc deleteDirectory(dir string) error"},
	{ID: "auth/login.go#1", Path: "auth/login.go", Text: "func authenticateUser(name, password string) (*Session, error) { check the password hash }"},
	{ID: "img/resize.go#1", Path: "img/resize.go", Text: "func resizeImage(img Image, width, height int) Image // scale a picture down"},
	{ID: "net/server.go#1", Path: "net/server.go", Text: "type Server struct { readTimeout time.Duration } // slow http requests are cut off"},
}

func open(t testing.TB, dir string, e embed.Embedder) *Store {
	t.Helper()
	s, err := Open(dir, e)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// put puts docs into s; the test fails if it cannot.
func put(t testing.TB, s *Store, docs []Doc) {
	t.Helper()
	if err := s.Put(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
}

// mustClose closes s; the test fails if it cannot.
func mustClose(t testing.TB, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// saved leaves under dir a store of docs, embedded by e.
func saved(t testing.TB, dir string, e embed.Embedder, docs []Doc) {
	t.Helper()
	s := open(t, dir, e)
	put(t, s, docs)
	mustClose(t, s)
}

func search(t *testing.T, s *Store, text string, k int) []Hit {
	t.Helper()
	hits, err := s.Search(context.Background(), text, k)
	if err != nil {
		t.Fatalf("Search(%q, %d): %v", text, k, err)
	}
	return hits
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func TestPutSearchDeletePath(t *testing.T) {
	ctx := context.Background()
	s := open(t, "", embed.Default())
	defer s.Close()
	put(t, s, sample)
	if s.Count() != len(sample) {
		t.Fatalf("Count = %d, want %d", s.Count(), len(sample))
	}
	for query, want := range map[string]string{
		"delete a file":                    "fs/remove.go",
		"login fails with a good password": "auth/login.go",
		"make the photo smaller":           "img/resize.go",
	} {
		hits := search(t, s, query, 2)
		if len(hits) != 2 || hits[0].Path != want {
			t.Errorf("Search(%q) = %v, want %s first", query, paths(hits), want)
		}
		if hits[0].Score < hits[1].Score {
			t.Errorf("Search(%q): scores not in decreasing order: %v", query, hits)
		}
	}

	if err := s.DeletePath(ctx, "fs/remove.go"); err != nil {
		t.Fatal(err)
	}
	if s.Count() != len(sample)-2 {
		t.Fatalf("after DeletePath: Count = %d, want %d", s.Count(), len(sample)-2)
	}
	for _, h := range search(t, s, "delete a file", 10) {
		if h.Path == "fs/remove.go" {
			t.Errorf("deleted chunk %s still found", h.ID)
		}
	}
	if err := s.DeletePath(ctx, "no/such/file.go"); err != nil {
		t.Errorf("DeletePath of an unknown file: %v", err)
	}
}

func TestPutReplacesByID(t *testing.T) {
	ctx := context.Background()
	s := open(t, "", embed.Default())
	defer s.Close()
	put(t, s, sample)
	// The chunk changes text and moves to another file: one document, found by its new meaning and path.
	moved := Doc{ID: "img/resize.go#1", Path: "mail/send.go", Text: "func sendEmail(to, subject, body string) error"}
	put(t, s, []Doc{moved})
	if s.Count() != len(sample) {
		t.Errorf("Count = %d after replacing, want %d", s.Count(), len(sample))
	}
	hits := search(t, s, "send a mail message", 1)
	if len(hits) != 1 || hits[0].ID != moved.ID || hits[0].Path != moved.Path {
		t.Errorf("Search after replace = %+v, want %s in %s", hits, moved.ID, moved.Path)
	}
	if err := s.DeletePath(ctx, "img/resize.go"); err != nil || s.Count() != len(sample) {
		t.Errorf("DeletePath of the old file: %v, Count %d; the moved chunk must stay", err, s.Count())
	}
}

func TestEmptyStoreAndLargeK(t *testing.T) {
	ctx := context.Background()
	s := open(t, "", embed.Default())
	defer s.Close()
	if hits := search(t, s, "anything", 10); len(hits) != 0 {
		t.Errorf("empty store: %v", hits)
	}
	put(t, s, sample[:3])
	if hits := search(t, s, "delete a file", 100); len(hits) != 3 {
		t.Errorf("k = 100 over 3 documents: %d hits, want 3", len(hits))
	}
	if hits := search(t, s, "delete a file", 0); len(hits) != 0 {
		t.Errorf("k = 0: %v", hits)
	}
	if err := s.Put(ctx, nil); err != nil || s.Count() != 3 {
		t.Errorf("Put(nil): %v, Count %d", err, s.Count())
	}
	for _, d := range sample[:3] {
		if err := s.DeletePath(ctx, d.Path); err != nil {
			t.Fatal(err)
		}
	}
	if hits := search(t, s, "delete a file", 5); s.Count() != 0 || len(hits) != 0 {
		t.Errorf("emptied store: Count %d, hits %v", s.Count(), hits)
	}
}

func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "cache", "vectors")
	s := open(t, dir, embed.Default())
	put(t, s, sample)
	before := search(t, s, "delete a file", 3)
	mustClose(t, s)
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Search(ctx, "delete a file", 3); err == nil {
		t.Error("Search after Close: no error")
	}

	s = open(t, dir, embed.Default())
	if s.Count() != len(sample) {
		t.Fatalf("reopened: Count = %d, want %d", s.Count(), len(sample))
	}
	after := search(t, s, "delete a file", 3)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("reopened search = %v, want %v", after, before)
	}
	if err := s.DeletePath(ctx, "auth/login.go"); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left after Save: %v", tmp)
	}
	mustClose(t, s)

	s = open(t, dir, embed.Default())
	defer s.Close()
	if s.Count() != len(sample)-1 {
		t.Errorf("after DeletePath and reopen: Count = %d, want %d", s.Count(), len(sample)-1)
	}
	for _, h := range search(t, s, "password", 10) {
		if h.Path == "auth/login.go" {
			t.Errorf("deleted %s came back after reopening", h.ID)
		}
	}
}

// otherModel is the default embedder under another name, as a new model or table version would be.
type otherModel struct{ embed.Embedder }

func (otherModel) ID() string { return "glove-6b-100d-int8/v2" }

func TestModelChangeRebuilds(t *testing.T) {
	dir := t.TempDir()
	saved(t, dir, embed.Default(), sample)
	s := open(t, dir, otherModel{embed.Default()})
	if s.Count() != 0 {
		t.Fatalf("opened with another model: Count = %d, want 0 (rebuild)", s.Count())
	}
	put(t, s, sample[:2])
	mustClose(t, s)
	s = open(t, dir, otherModel{embed.Default()})
	if s.Count() != 2 {
		t.Errorf("reopened with the new model: Count = %d, want 2", s.Count())
	}
	s.Close()
	// Only the current model's vectors are kept on disk.
	s = open(t, dir, embed.Default())
	defer s.Close()
	if s.Count() != 0 {
		t.Errorf("back to the first model: Count = %d, want 0", s.Count())
	}
}

func TestCorruptStore(t *testing.T) {
	dir := t.TempDir()
	saved(t, dir, embed.Default(), sample)
	file := filepath.Join(dir, fileName)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"truncated": data[:len(data)/2],
		"empty":     nil,
		"garbage":   []byte(strings.Repeat("not a vector store ", 100)),
	} {
		if err := os.WriteFile(file, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir, embed.Default())
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s file: Open = %v, want ErrCorrupt", name, err)
		}
	}
	// A readable file, under the model's name, whose vectors have another dimension than the model's.
	var buf bytes.Buffer
	doc := chromem.Result{ID: "a#1", Metadata: map[string]string{"path": "a"}, Embedding: []float32{0.6, 0.8}}
	if err := writeFile(&buf, collectionName(embed.Default()), 2, []chromem.Result{doc}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, embed.Default()); !errors.Is(err, ErrCorrupt) {
		t.Errorf("vectors of dimension 2: Open = %v, want ErrCorrupt", err)
	}

	// The answer to a corrupt store: remove the folder and open again.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir, embed.Default())
	defer s.Close()
	if s.Count() != 0 {
		t.Errorf("fresh store after removal: Count = %d", s.Count())
	}
}

// The files of earlier builds, chromem's export and a gob stream, are another format, not damage: they
// are removed and the store opens empty, for the caller to re-embed.
func TestOldFormatIsDropped(t *testing.T) {
	dir := t.TempDir()
	db := chromem.NewDB()
	col, err := db.CreateCollection(collectionName(embed.Default()), nil, func(context.Context, string) ([]float32, error) {
		return nil, errors.New("not used: every document comes with its embedding")
	})
	if err != nil {
		t.Fatal(err)
	}
	vec := make([]float32, embed.Default().Dim())
	vec[0] = 1
	if err := col.AddDocument(context.Background(), chromem.Document{ID: "a#1", Metadata: map[string]string{"path": "a"}, Embedding: vec}); err != nil {
		t.Fatal(err)
	}
	if err := db.ExportToFile(filepath.Join(dir, "vectors.gob"), false, ""); err != nil {
		t.Fatal(err)
	}
	// vectors.rec as the build before this format wrote it: gob messages, then a CRC-32C
	var rec bytes.Buffer
	enc := gob.NewEncoder(&rec)
	type fileHeader struct {
		Name       string
		Dim, Count int
	}
	type fileDoc struct {
		ID, Path, Sum string
		Vec           []float32
	}
	if err := enc.Encode(fileHeader{Name: collectionName(embed.Default()), Dim: len(vec), Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(fileDoc{ID: "a#1", Path: "a", Vec: vec}); err != nil {
		t.Fatal(err)
	}
	rec.Write(binary.BigEndian.AppendUint32(nil, crc32.Checksum(rec.Bytes(), crcTable)))
	if err := os.WriteFile(filepath.Join(dir, "vectors.rec"), rec.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	// a one-shot query finds no store: the old files are of no use to it
	if _, err := SearchFile(context.Background(), dir, embed.Default(), "a", 5); !errors.Is(err, ErrNoStore) {
		t.Errorf("SearchFile beside old files: %v, want ErrNoStore", err)
	}
	s := open(t, dir, embed.Default())
	defer s.Close()
	if s.Count() != 0 {
		t.Errorf("Count = %d after old files", s.Count())
	}
	for _, old := range oldFiles {
		if _, err := os.Stat(filepath.Join(dir, old)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the old file %s is still there: %v", old, err)
		}
	}
}

func TestBadInputLosesNothing(t *testing.T) {
	ctx := context.Background()
	s := open(t, "", embed.Default())
	defer s.Close()
	put(t, s, sample[:2])
	if err := s.Put(ctx, []Doc{sample[2], {Path: "x.go", Text: "no id"}}); err == nil {
		t.Error("Put of a document without ID: no error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Put(cancelled, sample[2:]); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context: %v", err)
	}
	if s.Count() != 2 {
		t.Errorf("failed Puts changed the store: Count = %d, want 2", s.Count())
	}
	if _, err := Open("", nil); err == nil {
		t.Error("Open without an embedder: no error")
	}
	if err := s.Put(ctx, []Doc{{ID: strings.Repeat("x", maxString+1), Path: "x.go", Text: "too long an ID"}}); err == nil {
		t.Error("Put of an ID longer than the store file takes: no error")
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	if _, err := Open(file, embed.Default()); err == nil {
		t.Error("Open on a file: no error")
	}
}

// remote is an embedder that embeds in batches over HTTP, with the test server behind it.
func remote(t *testing.T) (*embedtest.Server, *embed.OpenAI) {
	t.Helper()
	srv := embedtest.NewServer(t, 64, nil)
	e, err := embed.NewOpenAI(context.Background(), embed.OpenAIConfig{URL: srv.BaseURL(), Model: "bag-of-words"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, e
}

func TestBatchEmbedderGetsBatches(t *testing.T) {
	ctx := context.Background()
	srv, e := remote(t)
	dir := t.TempDir()
	s := open(t, dir, e)
	docs := chunks(t, 2*batchSize+10)
	docs = append(docs, sample...)
	put(t, s, docs)
	var sizes []int
	for _, r := range srv.Requests()[1:] { // after the probe
		sizes = append(sizes, len(r.Input))
	}
	if want := []int{batchSize, batchSize, len(docs) - 2*batchSize}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
	if s.Count() != len(docs) {
		t.Errorf("Count = %d, want %d", s.Count(), len(docs))
	}
	// each vector is its own document's: a text finds itself
	for _, d := range sample {
		if hits := search(t, s, d.Text, 1); len(hits) != 1 || hits[0].ID != d.ID {
			t.Errorf("Search(%q) = %v, want %s", d.Text, hits, d.ID)
		}
	}
	mustClose(t, s)
	// another model behind the same name: its vectors are refused and the store keeps what it had
	srv.SetDim(32)
	s = open(t, dir, e)
	defer s.Close()
	if err := s.Put(ctx, []Doc{{ID: "new#1", Path: "new.go", Text: "new text"}}); err == nil || !strings.Contains(err.Error(), "returned 32 dimensions, want 64") {
		t.Errorf("Put with vectors of another size: %v", err)
	}
	if s.Count() != len(docs) {
		t.Errorf("a failed Put changed the store: Count = %d, want %d", s.Count(), len(docs))
	}
}

// nanBatches is an embedder that batches and returns a NaN for one text: the store must refuse it as
// it does for one document at a time.
type nanBatches struct{ embed.Embedder }

func (n nanBatches) EmbedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, err := n.Embed(ctx, t)
		if err != nil {
			return nil, err
		}
		if strings.Contains(t, "password") {
			v[0] = float32(math.NaN())
		}
		out[i] = v
	}
	return out, nil
}

func TestBatchesAreChecked(t *testing.T) {
	s := open(t, "", nanBatches{embed.Default()})
	defer s.Close()
	err := s.Put(context.Background(), sample)
	if err == nil || !strings.Contains(err.Error(), "auth/login.go#1") || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("Put with a NaN vector: %v", err)
	}
	if s.Count() != 0 {
		t.Errorf("Count = %d after a failed Put, want 0", s.Count())
	}
}

func TestSearchDuringPut(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir, embed.Default())
	defer s.Close()
	corpus := chunks(t, 600)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				hits, err := s.Search(ctx, "parse the file and report an error", 5)
				if err != nil || len(hits) > 5 {
					t.Errorf("Search during Put: %d hits, %v", len(hits), err)
					return
				}
				s.Count()
			}
		})
	}
	wg.Go(func() {
		for range 3 {
			if err := s.Save(); err != nil {
				t.Error(err)
			}
		}
	})
	for i := 0; i < len(corpus); i += 100 {
		if err := s.Put(ctx, corpus[i:i+100]); err != nil {
			t.Error(err)
		}
		if err := s.DeletePath(ctx, corpus[i].Path); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
	if s.Count() == 0 || s.Count() > len(corpus) {
		t.Errorf("Count = %d after %d puts", s.Count(), len(corpus))
	}
}

// chunks cuts the Go files of this repository into 60-word documents, repeating them under new IDs
// until there are n.
func chunks(tb testing.TB, n int) []Doc {
	tb.Helper()
	var texts []Doc
	root := filepath.Join("..", "..")
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fields := strings.Fields(string(data))
		for i := 0; i < len(fields); i += 60 {
			texts = append(texts, Doc{Path: rel, Text: strings.Join(fields[i:min(i+60, len(fields))], " ")})
		}
		return nil
	})
	if len(texts) == 0 {
		tb.Fatal("no Go files found")
	}
	docs := make([]Doc, n)
	for i := range docs {
		d := texts[i%len(texts)]
		round := i / len(texts)
		docs[i] = Doc{ID: fmt.Sprintf("%s#%d.%d", d.Path, i%len(texts), round), Path: fmt.Sprintf("%s~%d", d.Path, round), Text: d.Text}
	}
	return docs
}

func BenchmarkPut5000(b *testing.B) {
	docs := chunks(b, 5000)
	ctx := context.Background()
	for b.Loop() {
		s, err := Open("", embed.Default())
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Put(ctx, docs); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func BenchmarkSearch20000(b *testing.B) {
	ctx := context.Background()
	s, err := Open("", embed.Default())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Put(ctx, chunks(b, 20000)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Search(ctx, "the watcher misses files created in a new folder", 50); err != nil {
			b.Fatal(err)
		}
	}
}

// Warm start: opening a saved store of 20,000 chunks.
func BenchmarkOpen20000(b *testing.B) {
	dir := b.TempDir()
	saved(b, dir, embed.Default(), chunks(b, 20000))
	b.ResetTimer()
	for b.Loop() {
		s, err := Open(dir, embed.Default())
		if err != nil {
			b.Fatal(err)
		}
		if s.Count() != 20000 {
			b.Fatalf("Count = %d", s.Count())
		}
		s.Close()
	}
}

// Writing a store of 20,000 chunks to its file.
func BenchmarkSave20000(b *testing.B) {
	ctx := context.Background()
	s, err := Open(b.TempDir(), embed.Default())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	docs := chunks(b, 20000)
	if err := s.Put(ctx, docs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if err := s.Put(ctx, docs[i%len(docs):i%len(docs)+1]); err != nil { // mark the store changed
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.Save(); err != nil {
			b.Fatal(err)
		}
	}
}

// Documents with equal scores at the cut: the same ones, those first by ID, on every search, also
// when more of them tie than the search takes beyond what it was asked for.
func TestTiesAtTheCutAreSettledByID(t *testing.T) {
	s := open(t, "", embed.Default())
	defer s.Close()
	docs := []Doc{{ID: "a/best.go#1", Path: "a/best.go", Text: "parse the invoice total"}}
	for i := range 3*tieMargin + 5 {
		id := fmt.Sprintf("b/twin%02d.go#1", i)
		docs = append(docs, Doc{ID: id, Path: strings.TrimSuffix(id, "#1"), Text: "parse the invoice"})
	}
	put(t, s, docs)
	want := []string{"a/best.go", "b/twin00.go", "b/twin01.go"}
	for range 30 {
		if got := paths(search(t, s, "parse the invoice total", 3)); !slices.Equal(got, want) {
			t.Fatalf("search = %q, want %q", got, want)
		}
	}
}

func TestHoldsWhatWasMadeFromTheSameText(t *testing.T) {
	ctx := context.Background()
	_, e := remote(t)
	dir := filepath.Join(t.TempDir(), "vectors")
	s := open(t, dir, e)
	put(t, s, sample)
	mustClose(t, s)
	s = open(t, dir, e) // the texts' sums are kept with the vectors
	defer s.Close()
	remove := sample[:2]
	if !s.Holds("fs/remove.go", remove) {
		t.Error("Holds: false for the documents just put")
	}
	edited := slices.Clone(remove)
	edited[1].Text += " // and its files"
	if s.Holds("fs/remove.go", edited) {
		t.Error("Holds: true for a document whose text changed")
	}
	if s.Holds("fs/remove.go", remove[:1]) {
		t.Error("Holds: true though the store has a document more for the path")
	}
	if got, want := s.Paths(), []string{"auth/login.go", "fs/remove.go", "img/resize.go", "net/server.go"}; !slices.Equal(got, want) {
		t.Errorf("Paths = %v, want %v", got, want)
	}

	// the offline model keeps no sums: it embeds a workspace again faster than they would load
	g := open(t, "", embed.Default())
	if err := g.Put(ctx, sample); err != nil {
		t.Fatal(err)
	}
	if g.Holds("fs/remove.go", remove) {
		t.Error("Holds: true for a store that keeps no sums")
	}
}
