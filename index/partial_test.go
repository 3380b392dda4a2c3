package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/shoptest"
)

// A partial pack is made by the same route as the full index's, from the files the query matches: it
// says it is partial, holds only files it read, and leads with the full index's first file.
func TestPartialContext(t *testing.T) {
	root := shoptest.Write(t, shoptest.Files(t))
	ctx := context.Background()
	full, err := Open(ctx, Options{Root: root, InMemory: true, Config: &Config{}})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if _, err := full.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	full.WaitVectors()
	for _, text := range []string{
		"checkout fails when the cart is empty",
		"the refund of a parcel paid by card shows a wrong tax on the receipt",
		"`reserve_stock` raises \"not enough stock\" for a warehouse that has it",
	} {
		req, err := Request{Text: text, Budget: 2000}.Resolve(Config{})
		if err != nil {
			t.Fatal(err)
		}
		res, got, err := partialContext(ctx, NewPartial(Options{Root: root, Config: &Config{}}), req, 0.35)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		read := got.Parsed
		p := res.Pack
		if p.Partial == nil || p.Partial.Files != len(read) || p.Partial.Total < len(read) || p.Partial.Built != 0.35 {
			t.Errorf("%s: partial %+v, %d files read", text, p.Partial, len(read))
		}
		if !strings.Contains(p.Text, "- partial: from ") || !strings.Contains(p.Text, "; the index is 35% built") {
			t.Errorf("%s: the header does not say the pack is partial:\n%s", text, p.Text)
		}
		if len(p.Items) == 0 {
			t.Fatalf("%s: an empty partial pack", text)
		}
		for _, it := range p.Items {
			if !slices.Contains(read, it.Path) {
				t.Errorf("%s: %s is in the pack but was not read", text, it.Path)
			}
		}
		want, err := full.Context(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if want.Pack.Partial != nil {
			t.Errorf("%s: the full index's pack says it is partial", text)
		}
		// the scan reads the full index's first file; a name the text quotes leads both packs
		first := want.Pack.Items[0].Path
		if !slices.Contains(read, first) {
			t.Errorf("%s: the full index's first file %s was not read: %v", text, first, read)
		}
		if strings.Contains(text, "`") && p.Items[0].Path != first {
			t.Errorf("%s: the partial pack leads with %s, the full index's with %s", text, p.Items[0].Path, first)
		}
	}
}

// A text no file matches gets no partial pack: the full index is waited for instead.
func TestPartialContextWithNothingToMatch(t *testing.T) {
	root := shoptest.Write(t, shoptest.Files(t))
	req, err := Request{Text: "zyxwvut qqqqq"}.Resolve(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if res, _, err := partialContext(context.Background(), NewPartial(Options{Root: root, Config: &Config{}}), req, 0); !errors.Is(err, ErrNothingMatches) {
		t.Errorf("a text nothing matches: %v, %+v", err, res)
	}
}

// A question after the first looks its words up in what the first scan learned, reads for its
// message only the files that hold the message's words, and adds to the partial index only the best
// files it lacks, at most partialMore of them.
func TestPartialFollowUp(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"mail/bounce.go": "package mail\n\n// Bounce handles a bounced mail.\nfunc Bounce() {}\n"}
	copies(files, 30, "ledger/entry%02d.go", "package ledger\n\n// Entry%02[1]d posts a ledger entry.\nfunc Entry%02[1]d() {}\n")
	copies(files, 30, "mail/send%02d.go", "package mail\n\n// Send%02[1]d delivers a mail.\nfunc Send%02[1]d() error { return errors.New(\"mailbox is full\") }\n")
	filetest.Write(t, root, files)
	ctx := context.Background()
	q := NewPartial(Options{Root: root, Config: &Config{}})
	defer q.Close()
	ask := func(text string) (*Result, PartialRead) {
		t.Helper()
		req, err := Request{Text: text, Budget: 2000}.Resolve(Config{})
		if err != nil {
			t.Fatal(err)
		}
		res, read, err := partialContext(ctx, q, req, 0.1)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if p := res.Pack.Partial; p == nil || p.Files != q.Files() || p.Total != len(files) {
			t.Errorf("%s: partial %+v, the partial index holds %d files", text, p, q.Files())
		}
		return res, read
	}
	if _, read := ask("a ledger entry is posted twice"); read.Scanned != len(files) || len(read.Parsed) != 30 || q.Files() != 30 {
		t.Fatalf("the first question: %d files scanned, %d parsed, %d in the partial index", read.Scanned, len(read.Parsed), q.Files())
	}
	res, read := ask("`Send07` fails.\n\nError: mailbox is full\n")
	if read.Scanned != 30 || len(read.Parsed) != partialMore || q.Files() != 30+partialMore {
		t.Errorf("the next question: %d files scanned (30 hold the message's words), %d parsed, %d in the partial index",
			read.Scanned, len(read.Parsed), q.Files())
	}
	for _, p := range read.Parsed {
		if !strings.HasPrefix(p, "mail/") {
			t.Errorf("the next question read %s again", p)
		}
	}
	if first := res.Pack.Items[0].Path; first != "mail/send07.go" {
		t.Errorf("the next question's pack leads with %s: %v", first, read.Parsed)
	}
}

// partialThenBuild makes a partial pack of root for text, then lets change alter the tree and the index
// (the files are as the partial pack saw them, the index opened on disk and handed the partial packs'
// work), and builds. It returns the partial pack's files, the build's stats and the index.
func partialThenBuild(t *testing.T, root, text string, change func(ix *Index, parsed []string)) ([]string, Stats, *Index) {
	t.Helper()
	ctx := context.Background()
	q := NewPartial(Options{Root: root, Config: &Config{}})
	defer q.Close()
	req, err := Request{Text: text}.Resolve(Config{})
	if err != nil {
		t.Fatal(err)
	}
	_, read, err := q.Prepare(ctx, req, 0)
	if err != nil {
		t.Fatal(err)
	}
	ix := mustOpen(t, Options{Root: root, CacheDir: t.TempDir()}) // on disk: an in-memory index has no vectors
	t.Cleanup(func() { ix.Close() })
	change(ix, read.Parsed)
	ix.UsePartial(q)
	return read.Parsed, mustBuild(t, ix), ix
}

// coldBuild is a build of root from nothing, on disk, with the editor's buffers given.
func coldBuild(t *testing.T, root string, buffers map[string]string) (Stats, *Index) {
	t.Helper()
	ix := mustOpen(t, Options{Root: root, CacheDir: t.TempDir()})
	t.Cleanup(func() { ix.Close() })
	for p, text := range buffers {
		ix.SetOverlay(p, []byte(text))
	}
	return mustBuild(t, ix), ix
}

// The first build after a partial pack takes the files the partial pack parsed as it parsed them and
// parses only the others, and holds what a build from nothing holds: the same records, chunks,
// entities, search hits and pack.
func TestBuildTakesWhatThePartialPackParsed(t *testing.T) {
	root := sampleRepo(t)
	parsed, st, ix := partialThenBuild(t, root, "`QualityProfile` cannot activate a rule", func(*Index, []string) {})
	cold, want := coldBuild(t, root, nil)
	if len(parsed) == 0 || len(parsed) >= cold.Parsed {
		t.Fatalf("the partial pack parsed %v of %d files: the test needs some files it did not parse", parsed, cold.Parsed)
	}
	if st.Parsed != cold.Parsed-len(parsed) || ix.lastTaken != len(parsed) {
		t.Errorf("the build after the partial pack parsed %d files and took %d; want %d and %d (the partial pack parsed %v)",
			st.Parsed, ix.lastTaken, cold.Parsed-len(parsed), len(parsed), parsed)
	}
	if got, want := snapshotState(t, ix), snapshotState(t, want); got != want {
		t.Errorf("the build after the partial pack differs from a build from nothing:\n%s", firstDiff(got, want))
	}
}

// A file the partial pack parsed that changed since (its time, its size) or is open in an editor is
// read again by the build, which holds its new content, as a build from nothing does.
func TestBuildReadsAgainWhatChangedAfterThePartialPack(t *testing.T) {
	const text = "`QualityProfile` cannot activate a rule"
	// the partial pack's first file names QualityProfile: renamed, as long as before or longer
	rename := func(t *testing.T, body, to string) string {
		if !strings.Contains(body, "QualityProfile") {
			t.Fatalf("the partial pack's first file does not name QualityProfile:\n%s", body)
		}
		return strings.Replace(body, "QualityProfile", to, 1)
	}
	for _, change := range []string{"time", "size", "buffer"} {
		t.Run(change, func(t *testing.T) {
			root := sampleRepo(t)
			var changed string
			var buffers map[string]string
			parsed, st, ix := partialThenBuild(t, root, text, func(ix *Index, parsed []string) {
				changed = parsed[0]
				abs := filepath.Join(root, filepath.FromSlash(changed))
				fi, err := os.Stat(abs)
				if err != nil {
					t.Fatal(err)
				}
				body := sample[changed]
				switch change {
				case "time": // as long as before, written a minute later
					body = rename(t, body, "QualityRuleset")
					if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Chtimes(abs, fi.ModTime(), fi.ModTime().Add(time.Minute)); err != nil {
						t.Fatal(err)
					}
				case "size": // longer, its time as before
					body = rename(t, body, "QualityRulebook")
					if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Chtimes(abs, fi.ModTime(), fi.ModTime()); err != nil {
						t.Fatal(err)
					}
				case "buffer":
					buffers = map[string]string{changed: rename(t, body, "QualityRulebook")}
					ix.SetOverlay(changed, []byte(buffers[changed]))
				}
			})
			cold, want := coldBuild(t, root, buffers)
			if st.Parsed != cold.Parsed-len(parsed)+1 {
				t.Errorf("the build parsed %d files; want %d, the files the partial pack did not parse (%v) and %s", st.Parsed, cold.Parsed-len(parsed)+1, parsed, changed)
			}
			if got, want := ix.Snapshot().Record(changed).Hash, want.Snapshot().Record(changed).Hash; got != want {
				t.Errorf("%s: the index holds the content of hash %s, want %s", changed, got, want)
			}
			if got, want := snapshotState(t, ix), snapshotState(t, want); got != want {
				t.Errorf("the build differs from a build from nothing:\n%s", firstDiff(got, want))
			}
		})
	}
}

// partialContext is the pack of q for req, and what q read for it.
func partialContext(ctx context.Context, q *Partial, req Resolved, share float64) (*Result, PartialRead, error) {
	ix, read, err := q.Prepare(ctx, req, share)
	if err != nil {
		return nil, read, err
	}
	res, err := ix.Context(ctx, req)
	return res, read, err
}
