package store

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/history"
)

// An export is a tar file: exportHeader as its first entry (naming every file that follows with its
// size), exportSums (the SHA-256 of the header and of every file), then the cache's files. The sums and
// sizes come first so that an import checks what it is asked to write before writing it, and stops at
// the first file that does not match. The export's ID is the SHA-256 of exportSums: the same index of
// the same commit has the same ID.
const (
	exportHeader = "ctxmap.json"
	exportSums   = "SHA256SUMS"
	exportFormat = "ctxmap-index"
)

// exportMeta says what an export holds: an index of which commit, by which version of the state.
type exportMeta struct {
	Format  string           `json:"format"`
	Version int              `json:"version"`
	Commit  string           `json:"commit"`
	Sizes   map[string]int64 `json:"sizes"` // every file that follows the sums, by name
}

// maxSmallEntry bounds the header and the sums, which are read into memory.
const maxSmallEntry = 1 << 20

// diskMargin is left free on the cache's disk by an import.
const diskMargin = 64 << 20

// shared are the cache's files that make an index: the state, the lexical index and the vectors.
// The owner lock and anything moved aside stay behind.
var shared = []string{stateName, "lexical.bleve", "vectors", "vectors.gen"}

// ErrExport marks an export that cannot be imported: another commit, another version, damaged.
var ErrExport = errors.New("cannot import")

// WriteExport writes the index in the cache folder to dst, as the index of commit, and returns the
// export's ID. The caller has closed the stores, so that their files are complete, and holds the lock.
func WriteExport(ctx context.Context, cache, dst, commit string) (id string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	tw := tar.NewWriter(w)
	var sums bytes.Buffer
	add := func(name string, size int64, r io.Reader) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		h := sha256.New()
		if _, err := io.Copy(tw, io.TeeReader(r, h)); err != nil {
			return err
		}
		fmt.Fprintf(&sums, "%x  %s\n", h.Sum(nil), name)
		return nil
	}
	var names []string
	for _, top := range shared {
		filepath.WalkDir(filepath.Join(cache, top), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".tmp") {
				rel, _ := filepath.Rel(cache, p)
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	slices.Sort(names)
	if !slices.Contains(names, stateName) {
		return "", errors.New("export: the cache holds no index")
	}
	// the files are hashed before they are written, and again as they are: the caller holds the lock,
	// so they do not change in between, and if they did the export would say so
	meta := exportMeta{Format: exportFormat, Version: version, Commit: commit, Sizes: map[string]int64{}}
	fileSums := map[string]string{}
	for _, name := range names {
		size, sum, err := hashFile(ctx, filepath.Join(cache, filepath.FromSlash(name)))
		if err != nil {
			return "", fmt.Errorf("export %s: %w", name, err)
		}
		meta.Sizes[name], fileSums[name] = size, sum
	}
	metaJSON, _ := json.Marshal(meta)
	if err := add(exportHeader, int64(len(metaJSON)), bytes.NewReader(metaJSON)); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	for _, name := range names {
		fmt.Fprintf(&sums, "%s  %s\n", fileSums[name], name)
	}
	id = fmt.Sprintf("%x", sha256.Sum256(sums.Bytes()))
	sumText := sums.Bytes()
	if err := tw.WriteHeader(&tar.Header{Name: exportSums, Mode: 0o600, Size: int64(len(sumText)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if _, err := tw.Write(sumText); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	for _, name := range names {
		f, err := os.Open(filepath.Join(cache, filepath.FromSlash(name)))
		if err != nil {
			return "", fmt.Errorf("export: %w", err)
		}
		h := sha256.New()
		err = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: meta.Sizes[name], Typeflag: tar.TypeReg, Format: tar.FormatPAX})
		if err == nil {
			_, err = io.Copy(tw, io.TeeReader(ctxReader{ctx, f}, h))
		}
		f.Close()
		if err == nil && hex.EncodeToString(h.Sum(nil)) != fileSums[name] {
			err = errors.New("changed while it was exported")
		}
		if err != nil {
			return "", fmt.Errorf("export %s: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if err := w.Flush(); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("export: %w", err)
	}
	return id, nil
}

// hashFile is a file's size and SHA-256.
func hashFile(ctx context.Context, path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, ctxReader{ctx, f})
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// ctxReader reads r until ctx ends: a copy of a large cache stops at Ctrl-C.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Import replaces the index in the cache folder of the workspace root, at commit, by the export in
// src, once every entry of it is checked; the next build brings it up to date: files that differ from
// the exported ones are parsed again, those git finds unchanged are not even read, the others only
// read. An export of another commit, of another version or a damaged one is refused with an error
// wrapping ErrExport, and the index there before is left as it was. It returns the export's ID.
func Import(ctx context.Context, cache, root, src, commit string, logf func(string, ...any)) (string, error) {
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return "", fmt.Errorf("create cache folder: %w", err)
	}
	lock, err := TakeLock(cache)
	if errors.Is(err, ErrBusy) {
		return "", fmt.Errorf("import: the cache %s is in use by another ctxmap process (an editor?); close it and import again", cache)
	} else if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	defer lock.Release()
	RemoveLeftovers(cache, logf)
	tmp, err := os.MkdirTemp(cache, importPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	defer os.RemoveAll(tmp)
	id, err := readExport(ctx, src, tmp, commit)
	if err != nil {
		return "", err
	}
	fresh, err := freshFiles(ctx, root, commit)
	if err != nil {
		logf("import: every file is read again: %v", err)
	}
	os.Remove(filepath.Join(cache, freshName)) // a previous import's
	os.Remove(filepath.Join(cache, oldStateName))
	for _, top := range shared {
		if err := os.RemoveAll(filepath.Join(cache, top)); err != nil {
			return "", fmt.Errorf("import: %w", err)
		}
		// a half-replaced cache is caught at the next open: the state and the lexical index carry the
		// same generation, the vectors theirs
		if err := os.Rename(filepath.Join(tmp, top), filepath.Join(cache, top)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("import: %w", err)
		}
	}
	if fresh != nil {
		if err := writeFresh(cache, fresh); err != nil {
			logf("import: every file is read again: %v", err)
		}
	}
	return id, nil
}

// freshName is where Import leaves the size and time of the files git finds as they are in the
// export's commit. A fresh clone's files all have new times: without them the first build would read
// every file again only to find it unchanged. They are kept beside the state rather than written into
// it, which would cost about what reading the files does, and hold for the state file Import put in
// place only: the next save replaces that file, and its records then carry the times themselves.
const freshName = "fresh.stat"

// freshStat is what freshName holds, followed by its CRC-32C.
type freshStat struct {
	State [2]int64            // the state file's size and modification time (unix ns)
	Files map[string][2]int64 // the same of each file, by path
}

// freshFiles is the size and time of every file under root, relative to it, that git tracks and finds as
// it is in commit. Files git does not look at (assume-unchanged, skip-worktree) are left out.
func freshFiles(ctx context.Context, root, commit string) (map[string][2]int64, error) {
	gitOut := func(args ...string) ([]string, error) {
		// no fsmonitor (git looks at every file itself), no optional locks (the user's git commands go
		// on), nothing the checkout names started
		out, err := history.Output(ctx, root, args...)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && out[len(out)-1] != 0 {
			return nil, fmt.Errorf("git %s: output cut short", args[0])
		}
		return strings.Split(out, "\x00"), nil
	}
	// "H path": tracked and checked in the work tree; other tags are files git does not check, or
	// conflicts
	tracked, err := gitOut("ls-files", "-z", "-v")
	if err != nil {
		return nil, err
	}
	// the files are looked at before git compares them: one changed after git looked at it has another
	// time than the one kept here, and is read again
	files := map[string][2]int64{}
	for _, e := range tracked {
		if p, ok := strings.CutPrefix(e, "H "); ok {
			if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() {
				files[p] = [2]int64{fi.Size(), fi.ModTime().UnixNano()}
			}
		}
	}
	// the work tree against the commit itself, not HEAD, which may move meanwhile: staged and unstaged
	// changes, deletions; paths relative to root like ls-files' and the records'
	changed, err := gitOut("diff", "--name-only", "-z", "--no-renames", "--no-color", "--no-ext-diff", "--relative", commit, "--")
	if err != nil {
		return nil, err
	}
	for _, p := range changed {
		delete(files, p)
	}
	return files, nil
}

// writeFresh leaves files in the cache for the state file there.
func writeFresh(cache string, files map[string][2]int64) error {
	fi, err := os.Stat(StatePath(cache))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(freshStat{State: [2]int64{fi.Size(), fi.ModTime().UnixNano()}, Files: files}); err != nil {
		return err
	}
	sum := binary.BigEndian.AppendUint32(nil, crc32.Checksum(b.Bytes(), crcTable))
	// a write cut short fails its checksum
	return os.WriteFile(filepath.Join(cache, freshName), append(b.Bytes(), sum...), 0o600)
}

// applyFresh gives the records of st, read from the state file f, the size and time Import found their
// files with, when git found them as they are in the export's commit and they have the size the
// record has.
func applyFresh(dir string, f *os.File, st *State) {
	b, err := os.ReadFile(filepath.Join(dir, freshName))
	if err != nil {
		return
	}
	var fr freshStat
	fi, err := f.Stat()
	n := len(b) - 4
	if err != nil || n < 0 || crc32.Checksum(b[:n], crcTable) != binary.BigEndian.Uint32(b[n:]) ||
		gob.NewDecoder(bytes.NewReader(b[:n])).Decode(&fr) != nil || fr.State != [2]int64{fi.Size(), fi.ModTime().UnixNano()} {
		os.Remove(filepath.Join(dir, freshName)) // damaged, or for a state file since replaced
		return
	}
	for p, sm := range fr.Files {
		if e := st.Records.m[p]; e != nil && e.head.Size == sm[0] {
			e.head.ModTime = sm[1]
		}
	}
}

// readExport unpacks src into dir, checking its header against commit, every size it declares against
// what the archive holds and the disk has free before anything is written, and every file against its
// sum as it is written: it stops at the first that does not match, and when ctx ends.
func readExport(ctx context.Context, src, dir, commit string) (string, error) {
	f, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %s: %s", ErrExport, src, fmt.Sprintf(format, args...))
	}
	tr := tar.NewReader(bufio.NewReaderSize(f, 1<<20))
	// the header and the sums, read whole
	small := func(want string) ([]byte, error) {
		h, err := tr.Next()
		switch {
		case err == io.EOF:
			return nil, bad("damaged: it ends before its %s", want)
		case err != nil:
			return nil, bad("damaged: %v", err)
		case h.Name != want:
			if want == exportHeader {
				return nil, bad("not a ctxmap index export")
			}
			return nil, bad("made by an older ctxmap, whose checksums come last: export it again")
		case h.Typeflag != tar.TypeReg || h.Size < 0 || h.Size > maxSmallEntry:
			return nil, bad("damaged: %s is not a file of at most %d bytes", want, maxSmallEntry)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, bad("damaged: %v", err)
		}
		return b, nil
	}
	header, err := small(exportHeader)
	if err != nil {
		return "", err
	}
	var m exportMeta
	if err := json.Unmarshal(header, &m); err != nil || m.Format != exportFormat {
		return "", bad("not a ctxmap index export")
	}
	if m.Version != version {
		return "", bad("made by a ctxmap whose index has version %d, this one reads %d", m.Version, version)
	}
	if m.Commit != commit {
		return "", bad("it is the index of commit %s, the work tree is at %s", m.Commit, commit)
	}
	sums, err := small(exportSums)
	if err != nil {
		return "", err
	}
	want := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		hash, name, ok := strings.Cut(line, "  ")
		if _, dup := want[name]; !ok || dup {
			return "", bad("damaged: bad checksum line %q", line)
		}
		want[name] = hash
	}
	if h := sha256.Sum256(header); want[exportHeader] != hex.EncodeToString(h[:]) {
		return "", bad("damaged: %s does not match its checksum", exportHeader)
	}
	if len(want) != len(m.Sizes)+1 {
		return "", bad("damaged: the checksums list %d files, the header %d", len(want)-1, len(m.Sizes))
	}
	if _, ok := m.Sizes[stateName]; !ok {
		return "", bad("damaged: it holds no index state")
	}
	// what it declares, against what the archive holds (a tar stores files as they are: a sparse or
	// lying entry declares more) and the disk has free, before a byte is written
	var total int64
	for name, size := range m.Sizes {
		if _, ok := want[name]; !ok || !sharedName(name) {
			return "", bad("damaged: unexpected entry %s", name)
		}
		if size < 0 || size > math.MaxInt64-total {
			return "", bad("damaged: %s declares %d bytes", name, size)
		}
		total += size
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && total > fi.Size() {
		return "", bad("damaged: its files declare %d bytes, more than the %d it holds", total, fi.Size())
	}
	if free, err := freeSpace(dir); err == nil && total > free-diskMargin {
		return "", fmt.Errorf("import: the index takes %s and %s is free on the cache's disk (%s kept free): free some space and import again",
			mib(total), mib(free), mib(diskMargin))
	}
	seen := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", bad("damaged: %v", err)
		}
		name := h.Name
		size, listed := m.Sizes[name]
		switch {
		case !listed || seen[name] || h.Typeflag != tar.TypeReg:
			return "", bad("damaged: unexpected entry %s", name)
		case h.Size != size:
			return "", bad("damaged: %s holds %d bytes, the header says %d", name, h.Size, size)
		case sparse(h):
			return "", bad("damaged: %s is a sparse entry", name)
		}
		seen[name] = true
		if err := unpack(ctx, tr, filepath.Join(dir, filepath.FromSlash(name)), size, want[name]); err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("import: %w", ctx.Err())
			}
			var damaged damagedEntry
			if errors.As(err, &damaged) {
				return "", bad("damaged: %s %v", name, err)
			}
			return "", fmt.Errorf("import %s: %w", name, err)
		}
	}
	if len(seen) != len(m.Sizes) {
		return "", bad("damaged: %d of its %d files are missing (cut short?)", len(m.Sizes)-len(seen), len(m.Sizes))
	}
	return fmt.Sprintf("%x", sha256.Sum256(sums)), nil
}

// damagedEntry is an entry whose content is not what its header and checksum say.
type damagedEntry struct{ error }

// unpack writes size bytes of r to a new file dst through their SHA-256, checking ctx between
// buffers, and compares the sum with want once they are written.
func unpack(ctx context.Context, r io.Reader, dst string, size int64, want string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	sum := sha256.New()
	buf := make([]byte, 1<<20)
	var n int64
	for n < size {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, err := io.ReadFull(r, buf[:min(int64(len(buf)), size-n)])
		sum.Write(buf[:k])
		if _, werr := out.Write(buf[:k]); werr != nil {
			return werr
		}
		n += int64(k)
		if err != nil {
			return damagedEntry{fmt.Errorf("is cut short: %v", err)}
		}
	}
	if hex.EncodeToString(sum.Sum(nil)) != want {
		return damagedEntry{errors.New("does not match its checksum")}
	}
	return out.Close()
}

// sparse tells whether a tar entry is stored sparse: its holes would be written out as zeros.
func sparse(h *tar.Header) bool {
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

func mib(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// importPrefix starts the name of the folder an import unpacks into, inside the cache folder.
const importPrefix = "import-"

// RemoveLeftovers removes what a process killed while it wrote left in the cache folder: an import's
// folder, a state, vector or manifest file never renamed into place. The caller holds the cache's
// lock, so no live process is writing them.
func RemoveLeftovers(cache string, logf func(string, ...any)) {
	var left []string
	for _, pattern := range []string{importPrefix + "*", "state-*.tmp", "vectors/*.tmp", "lexical.bleve/*.tmp"} {
		m, _ := filepath.Glob(filepath.Join(cache, pattern))
		left = append(left, m...)
	}
	for _, p := range left {
		if err := os.RemoveAll(p); err != nil {
			logf("remove %s, left by a process that was stopped: %v", p, err)
		} else {
			logf("removed %s, left by a process that was stopped", p)
		}
	}
}

// sharedName tells whether an entry's name is one of the cache files an export carries, and safe to
// unpack: relative, without "..".
func sharedName(name string) bool {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || strings.HasPrefix(name, "../") || name == ".." {
		return false
	}
	top, _, _ := strings.Cut(name, "/")
	return slices.Contains(shared, top)
}
