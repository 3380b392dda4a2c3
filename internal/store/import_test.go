package store

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const testCommit = "0123456789abcdef0123456789abcdef01234567"

// entry is one file of a crafted export: what its tar header says and what it holds.
type entry struct {
	name string
	data []byte
	size int64             // the tar header's size; 0: len(data)
	pax  map[string]string // extra PAX records
}

// craft writes an export whose header declares sizes (nil: each entry's length) and whose sums are
// those of sums (nil: each entry's data), the entries in order. Records named "XXX.sparse.*" become
// GNU sparse records, which Go's writer would drop.
func craft(t testing.TB, entries []entry, sizes map[string]int64, sums map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if sizes == nil {
		sizes = map[string]int64{}
		for _, e := range entries {
			sizes[e.name] = int64(len(e.data))
		}
	}
	meta, _ := json.Marshal(exportMeta{Format: exportFormat, Version: version, Commit: testCommit, Sizes: sizes})
	var sumText strings.Builder
	h := sha256.Sum256(meta)
	fmt.Fprintf(&sumText, "%x  %s\n", h, exportHeader)
	for _, e := range entries {
		data := e.data
		if s, ok := sums[e.name]; ok {
			data = s
		}
		h := sha256.Sum256(data)
		fmt.Fprintf(&sumText, "%x  %s\n", h, e.name)
	}
	write := func(e entry) {
		size := e.size
		if size == 0 {
			size = int64(len(e.data))
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Mode: 0o600, Size: size, Typeflag: tar.TypeReg, Format: tar.FormatPAX, PAXRecords: e.pax}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil && !errors.Is(err, tar.ErrWriteTooLong) {
			t.Fatal(err)
		}
	}
	write(entry{name: exportHeader, data: meta})
	write(entry{name: exportSums, data: []byte(sumText.String())})
	for _, e := range entries {
		write(e)
	}
	tw.Flush() // an entry written short is left short: Close would refuse
	return bytes.ReplaceAll(b.Bytes(), []byte("XXX.sparse."), []byte("GNU.sparse."))
}

// sparseEntry is a GNU sparse (PAX 1.0) entry that stores 512 bytes and declares real bytes.
func sparseEntry(name string, real int64) entry {
	m := make([]byte, 512)
	copy(m, "1\n0\n512\n") // one fragment: 512 bytes at offset 0
	return entry{name: name, data: append(m, bytes.Repeat([]byte{'x'}, 512)...), pax: map[string]string{
		"XXX.sparse.major": "1", "XXX.sparse.minor": "0", "XXX.sparse.realsize": fmt.Sprint(real)}}
}

// listing is every file under dir with its size and SHA-256.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "owner.lock" {
			return nil // made by the first process to take the lock
		}
		if d.IsDir() {
			out = append(out, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		out = append(out, fmt.Sprintf("%s %d %x", rel, len(b), h[:6]))
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// newCache is a cache folder holding a state file and a lexical index: what Import must leave alone.
func newCache(t *testing.T) string {
	t.Helper()
	cache := t.TempDir()
	for name, data := range map[string]string{stateName: "the index there before", "lexical.bleve/index_meta.json": `{"storage":"scorch"}`} {
		p := filepath.Join(cache, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cache
}

func importFile(t *testing.T, cache string, archive []byte) error {
	t.Helper()
	src := filepath.Join(t.TempDir(), "index.tar")
	if err := os.WriteFile(src, archive, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Import(context.Background(), cache, t.TempDir(), src, testCommit, t.Logf)
	return err
}

// An export is refused before anything is written when what it declares cannot be: more bytes than it
// holds (a sparse entry, a lying header), a sparse entry, more than the disk has free; a file that does
// not match its sum stops the import there. Each time the cache is as it was and no import folder is
// left.
func TestImportRefusesWhatItCannotHold(t *testing.T) {
	state := []byte("a state file")
	lex := bytes.Repeat([]byte("segment "), 1000)
	good := []entry{{name: stateName, data: state}, {name: "lexical.bleve/store/000000000001.zap", data: lex}}
	cache := newCache(t)
	before := listing(t, cache)
	if err := importFile(t, newCache(t), craft(t, good, nil, nil)); err != nil {
		t.Fatalf("a sound export: %v", err)
	}
	for _, c := range []struct {
		what    string
		archive []byte
		want    string
	}{
		{"a sparse entry declaring 2 GiB", craft(t, []entry{sparseEntry(stateName, 2<<30)}, map[string]int64{stateName: 2 << 30}, nil),
			"declare 2147483648 bytes, more than the"},
		{"a header smaller than the sparse entry", craft(t, []entry{sparseEntry(stateName, 2<<30)}, map[string]int64{stateName: 1024}, nil),
			"holds 2147483648 bytes, the header says 1024"},
		{"a small sparse entry", craft(t, []entry{sparseEntry(stateName, 600)}, map[string]int64{stateName: 600}, nil),
			"is a sparse entry"},
		{"an entry longer than declared", craft(t, []entry{{name: stateName, data: state, size: 1 << 30}}, map[string]int64{stateName: int64(len(state))}, nil),
			"the header says"},
		{"a file that does not match its sum, then a large one", craft(t, append([]entry{{name: "lexical.bleve/index_meta.json", data: []byte("{}")}}, good...),
			nil, map[string][]byte{"lexical.bleve/index_meta.json": []byte("other")}),
			"lexical.bleve/index_meta.json does not match its checksum"},
		{"a file the header does not name", craft(t, append(good, entry{name: "vectors/extra", data: []byte("x")}), map[string]int64{stateName: int64(len(state)), "lexical.bleve/store/000000000001.zap": int64(len(lex))}, nil),
			"the checksums list 3 files, the header 2"},
		{"a path out of the cache", craft(t, []entry{{name: stateName, data: state}, {name: "../evil", data: state}}, nil, nil),
			"unexpected entry ../evil"},
		{"no state", craft(t, good[1:], nil, nil), "holds no index state"},
	} {
		err := importFile(t, cache, c.archive)
		if !errors.Is(err, ErrExport) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.what, err, c.want)
		} else {
			t.Logf("%s (%d bytes): %v", c.what, len(c.archive), err)
		}
		if after := listing(t, cache); after != before {
			t.Errorf("%s: the cache changed:\n%s\n---\n%s", c.what, after, before)
		}
	}
	// an export made before the sums came first
	var old bytes.Buffer
	tw := tar.NewWriter(&old)
	meta, _ := json.Marshal(exportMeta{Format: exportFormat, Version: version, Commit: testCommit})
	tw.WriteHeader(&tar.Header{Name: exportHeader, Size: int64(len(meta)), Typeflag: tar.TypeReg, Mode: 0o600})
	tw.Write(meta)
	tw.WriteHeader(&tar.Header{Name: stateName, Size: int64(len(state)), Typeflag: tar.TypeReg, Mode: 0o600})
	tw.Write(state)
	tw.Close()
	if err := importFile(t, cache, old.Bytes()); err == nil || !strings.Contains(err.Error(), "export it again") {
		t.Errorf("an export with its sums last: %v", err)
	}
	if after := listing(t, cache); after != before {
		t.Errorf("the cache changed:\n%s\n---\n%s", after, before)
	}
}

// feed makes a named pipe and writes archive to it, then, with endless, bytes without end until the
// reader goes away; it returns the pipe and the count of bytes the reader took.
func feed(t *testing.T, archive []byte, endless bool) (string, *atomic.Int64) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "index.tar")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	var taken atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		n, err := f.Write(archive)
		taken.Add(int64(n))
		chunk := make([]byte, 64<<10)
		for err == nil && endless {
			n, err = f.Write(chunk)
			taken.Add(int64(n))
		}
	}()
	t.Cleanup(func() {
		// a reader that never came: open the pipe to let the writer go
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
	})
	return fifo, &taken
}

// Read from a pipe, whose size is unknown, an export is still bounded by the disk's free space; a file
// that does not match its sum ends the import there, without reading on; and cancelling ends it in the
// middle of a file.
func TestImportFromAPipe(t *testing.T) {
	cache := newCache(t)
	before := listing(t, cache)
	ctx := context.Background()

	huge := craft(t, []entry{{name: stateName, data: nil, size: 1 << 50}}, map[string]int64{stateName: 1 << 50}, map[string][]byte{stateName: nil})
	src, _ := feed(t, huge, true)
	_, err := Import(ctx, cache, t.TempDir(), src, testCommit, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "free on the cache's disk") {
		t.Errorf("1 PiB declared: %v, want a refusal naming the free space", err)
	} else {
		t.Logf("1 PiB declared: %v", err)
	}

	// the first file does not match; the second, 64 MiB, is never read
	big := make([]byte, 64<<20)
	bad := craft(t, []entry{{name: stateName, data: []byte("damaged")}, {name: "vectors/vectors.bin", data: big}},
		nil, map[string][]byte{stateName: []byte("what was exported")})
	src, taken := feed(t, bad, false)
	_, err = Import(ctx, cache, t.TempDir(), src, testCommit, t.Logf)
	if !errors.Is(err, ErrExport) || !strings.Contains(err.Error(), stateName+" does not match its checksum") {
		t.Errorf("a damaged first file: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := taken.Load(); n > 8<<20 {
		t.Errorf("the import read %d MiB of the archive after its first file failed its sum", n>>20)
	} else {
		t.Logf("%v; %d KiB of the %d MiB archive read", err, n>>10, len(bad)>>20)
	}

	// cancelled in the middle of a 1 GiB file fed without end
	endless := craft(t, []entry{{name: stateName, size: 1 << 30}}, map[string]int64{stateName: 1 << 30}, map[string][]byte{stateName: nil})
	src, taken = feed(t, endless, true)
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := Import(cctx, cache, t.TempDir(), src, testCommit, t.Logf)
		errc <- err
	}()
	for taken.Load() < 16<<20 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled import: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled import still runs after 10 s")
	}
	if n := taken.Load(); n > 512<<20 {
		t.Errorf("%d MiB read before the cancellation was honoured", n>>20)
	} else {
		t.Logf("cancelled after 16 MiB: %d MiB read in all", n>>20)
	}
	if after := listing(t, cache); after != before {
		t.Errorf("the cache changed:\n%s\n---\n%s", after, before)
	}
}

// What a killed import left, and a state file never renamed into place, are removed by the next
// process that takes the cache's lock.
func TestLeftoversRemoved(t *testing.T) {
	cache := newCache(t)
	os.Mkdir(filepath.Join(cache, "vectors"), 0o700)
	before := listing(t, cache)
	for _, p := range []string{"import-123/index.state", "import-456/lexical.bleve/store/root.bolt", "state-789.tmp", "vectors/vectors.bin.123.tmp", "lexical.bleve/ctxmap.sum.tmp"} {
		abs := filepath.Join(cache, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o700)
		if err := os.WriteFile(abs, []byte("left by a killed process"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	RemoveLeftovers(cache, t.Logf)
	if after := listing(t, cache); after != before {
		t.Errorf("after RemoveLeftovers:\n%s\n---\n%s", after, before)
	}
}

// An export cancelled leaves nothing behind it: no file, no temporary one.
func TestExportCancelled(t *testing.T) {
	cache := newCache(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WriteExport(ctx, cache, filepath.Join(out, "index.tar"), testCommit); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled export: %v", err)
	}
	if left, _ := os.ReadDir(out); len(left) > 0 {
		t.Errorf("a cancelled export left %v", left)
	}
	if _, err := WriteExport(context.Background(), cache, filepath.Join(out, "index.tar"), testCommit); err != nil {
		t.Errorf("the export: %v", err)
	}
}

// Any bytes as an export: Import never panics, writes nothing outside its own folder, and leaves the
// cache as it was unless it imports. go test -run '^$' -fuzz FuzzImport ./internal/store/
func FuzzImport(f *testing.F) {
	state := []byte("a state file")
	good := []entry{{name: stateName, data: state}, {name: "lexical.bleve/store/000000000001.zap", data: []byte("segment")}}
	f.Add(craft(f, good, nil, nil))
	f.Add(craft(f, []entry{sparseEntry(stateName, 600)}, map[string]int64{stateName: 600}, nil))
	f.Add(craft(f, append(good, entry{name: "../evil", data: state}), nil, nil))
	f.Fuzz(func(t *testing.T, archive []byte) {
		cache := newCache(t)
		before := listing(t, cache)
		outside := t.TempDir()
		src := filepath.Join(outside, "index.tar")
		if err := os.WriteFile(src, archive, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Import(context.Background(), cache, t.TempDir(), src, testCommit, func(string, ...any) {})
		if err != nil && listing(t, cache) != before {
			t.Errorf("a refused import (%v) changed the cache", err)
		}
		if left, _ := os.ReadDir(outside); len(left) != 1 {
			t.Errorf("the import wrote beside its archive: %v", left)
		}
		if left, _ := filepath.Glob(filepath.Join(cache, importPrefix+"*")); len(left) > 0 {
			t.Errorf("the import left %v", left)
		}
	})
}
