package bm25

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// bleve checks little of what it reads: a segment (zap) carries a CRC-32 of itself that nothing
// compares, and the bolt file none. So the store checks its files itself, on open:
//
//   - every segment against its own CRC, unless the manifest says it was checked as it is now (same
//     size and time): segments never change once written, so a start reads only new ones;
//   - the bolt file's pages walked, and its size against the pages its header counts;
//   - root.bolt and index_meta.json against the CRC-32C the manifest keeps of them.
//
// The manifest (manifestName) is written by Close, after bleve's, and removed on open: a process that
// dies leaves none, and the next open checks every segment and the bolt file's structure only.
// Verify checks everything, whatever the manifest says.

const manifestName = "ctxmap.sum"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fileSum is what the manifest keeps of one file: its size, time, and the CRC-32C of root.bolt and
// index_meta.json (segments carry their own).
type fileSum struct {
	size, mtime int64
	crc         uint32
}

// manifest maps a file's path, relative to the index folder, to what it was at the last Close.
type manifest map[string]fileSum

// readManifest reads the manifest of dir; ok is false when there is none or it fails its checksum.
func readManifest(dir string) (m manifest, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	body, sum, found := bytes.Cut(b, []byte("crc "))
	if !found || strings.TrimSpace(string(sum)) != strconv.FormatUint(uint64(crc32.Checksum(body, castagnoli)), 10) {
		return nil, false, errors.New("the manifest fails its checksum")
	}
	m = manifest{}
	for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			return nil, false, fmt.Errorf("bad manifest line %q", line)
		}
		size, e1 := strconv.ParseInt(f[1], 10, 64)
		mtime, e2 := strconv.ParseInt(f[2], 10, 64)
		crc, e3 := strconv.ParseUint(f[3], 10, 32)
		if err := errors.Join(e1, e2, e3); err != nil {
			return nil, false, fmt.Errorf("bad manifest line %q", line)
		}
		m[f[0]] = fileSum{size, mtime, uint32(crc)}
	}
	return m, true, nil
}

// writeManifest records the index under dir as it is after Close; prev is what open checked, whose
// segments need no second reading when they are unchanged. A segment that fails its CRC is left out,
// to be checked again at the next open.
func writeManifest(dir string, prev manifest) error {
	files, err := indexFiles(dir)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, rel := range files {
		p := filepath.Join(dir, rel)
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		s := fileSum{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		if isSegment(rel) {
			if old, ok := prev[rel]; !ok || old != s {
				if checkSegment(p) != nil {
					continue
				}
			}
		} else if s.crc, err = crcFile(p); err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d %d\n", rel, s.size, s.mtime, s.crc)
	}
	fmt.Fprintf(&b, "crc %d\n", crc32.Checksum(b.Bytes(), castagnoli))
	tmp := filepath.Join(dir, manifestName+".tmp")
	if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, manifestName))
}

// indexFiles are the files of the index under dir, relative to it, sorted: its metadata, the bolt
// file and the segments.
func indexFiles(dir string) ([]string, error) {
	segs, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil {
		return nil, err
	}
	files := []string{"index_meta.json", filepath.Join("store", "root.bolt")}
	for _, s := range segs {
		files = append(files, filepath.Join("store", filepath.Base(s)))
	}
	slices.Sort(files)
	return files, nil
}

func isSegment(rel string) bool { return strings.HasSuffix(rel, ".zap") }

func crcFile(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	_, err = io.Copy(h, bufio.NewReaderSize(f, 1<<16))
	return h.Sum32(), err
}

// checkSegment compares a segment with the CRC-32 (IEEE) its last 4 bytes hold of everything before.
func checkSegment(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < 4 {
		return errors.New("cut short")
	}
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size()-4)); err != nil {
		return err
	}
	var tail [4]byte
	if _, err := f.ReadAt(tail[:], fi.Size()-4); err != nil {
		return err
	}
	if binary.BigEndian.Uint32(tail[:]) != h.Sum32() {
		return errors.New("checksum mismatch")
	}
	return nil
}

// checkFiles checks the index under dir as open does (see above) and returns the manifest it checked
// against, or a *DamagedError naming the first file at fault. With full, every file is read, as
// Verify does.
func checkFiles(dir string, full bool) (manifest, error) {
	m, ok, merr := readManifest(dir)
	root := filepath.Join(dir, "store", "root.bolt")
	if err := checkBolt(root); err != nil && !errors.Is(err, os.ErrNotExist) {
		if IsBusy(err) {
			return nil, fmt.Errorf("open lexical index %s: %w", dir, err)
		}
		return nil, &DamagedError{File: root, Err: err}
	}
	files, err := indexFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, rel := range files {
		p := filepath.Join(dir, rel)
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && !ok {
			continue // bleve says whether it needs it
		}
		if err != nil {
			return nil, &DamagedError{File: p, Err: err}
		}
		now := fileSum{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		was, listed := m[rel]
		switch {
		case isSegment(rel):
			if full || !listed || was != now {
				if err := checkSegment(p); err != nil {
					return nil, &DamagedError{File: p, Err: err}
				}
			}
		case listed:
			if now.size != was.size {
				return nil, &DamagedError{File: p, Err: fmt.Errorf("%d bytes, %d when it was last closed", now.size, was.size)}
			}
			if crc, err := crcFile(p); err != nil || crc != was.crc {
				return nil, &DamagedError{File: p, Err: errors.Join(err, errors.New("it differs from what was written when it was last closed"))}
			}
		}
	}
	for rel := range m {
		if _, err := os.Stat(filepath.Join(dir, rel)); errors.Is(err, os.ErrNotExist) {
			return nil, &DamagedError{File: filepath.Join(dir, rel), Err: errors.New("missing")}
		}
	}
	if full && merr != nil {
		return nil, &DamagedError{File: filepath.Join(dir, manifestName), Err: merr}
	}
	return m, nil
}

// Verify reads every file of the index under dir and checks it: each segment against its CRC, the bolt
// file's pages and size, and the files the manifest keeps a sum of against it. It returns nil, or a
// *DamagedError naming the first file at fault. The index must not be open.
func Verify(dir string) error {
	_, err := checkFiles(dir, true)
	return err
}
