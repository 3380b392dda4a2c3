package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/vector"
)

// VerifyState reads the whole state file of the cache folder dir, every section against its checksum,
// the records' included (a load reads those only when asked for), and the file an import left beside
// it; it changes nothing. It returns the state's generation, and a DamagedError naming the file at
// fault. No state file is (0, nil).
func VerifyState(dir string) (generation uint64, err error) {
	f, err := os.Open(StatePath(dir))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	corrupt := func(what any) error {
		return DamagedError{fmt.Errorf("cache %s is corrupt: %v", StatePath(dir), what)}
	}
	sections, err := stateTable(f)
	if err != nil {
		return 0, corrupt(err)
	}
	for i, s := range sections {
		sum := crc32.New(crcTable)
		if _, err := io.Copy(sum, bufio.NewReaderSize(s.r, 1<<16)); err != nil {
			return 0, corrupt(err)
		}
		if sum.Sum32() != s.crc {
			return 0, corrupt(fmt.Sprintf("section %d of %d: checksum mismatch", i+1, len(sections)))
		}
		s.r.Seek(0, io.SeekStart)
	}
	var h stateHeader
	if err := readSection(sections[0], func(dec *gob.Decoder) error { return dec.Decode(&h) }); err != nil {
		return 0, corrupt(err)
	}
	if h.Magic != magic {
		return 0, DamagedError{fmt.Errorf("cache %s is not a ctxmap cache", StatePath(dir))}
	}
	if h.Version != version {
		return 0, fmt.Errorf("cache %s has version %d, this build reads %d", StatePath(dir), h.Version, version)
	}
	if b, err := os.ReadFile(filepath.Join(dir, freshName)); err == nil {
		n := len(b) - 4
		var fr freshStat
		if n < 0 || crc32.Checksum(b[:n], crcTable) != binary.BigEndian.Uint32(b[n:]) || gob.NewDecoder(bytes.NewReader(b[:n])).Decode(&fr) != nil {
			return h.Generation, DamagedError{fmt.Errorf("cache %s is corrupt", filepath.Join(dir, freshName))}
		}
	}
	return h.Generation, nil
}

// FreshPath is the file an import leaves beside the state (see freshName).
func FreshPath(dir string) string { return filepath.Join(dir, freshName) }

// VerifyCache reads every file of the cache folder whole and checks it (the state file's every
// section, the lexical index, the vector file, the vectors' and an import's markers); each damaged one
// is moved to damaged/ (a marker removed) and said, one sentence each. The caller holds the cache's lock.
func VerifyCache(ctx context.Context, cache string) ([]string, error) {
	var said []string
	damaged := func(what string, err error, path string) {
		said = append(said, fmt.Sprintf("cache file %s is damaged: %v; %s, rebuilt at the next start", what, err, MoveAside(cache, path)))
	}
	gen, err := VerifyState(cache)
	var bad DamagedError
	if errors.As(err, &bad) {
		path := StatePath(cache)
		if strings.Contains(err.Error(), FreshPath(cache)) {
			path = FreshPath(cache)
		}
		said = append(said, fmt.Sprintf("%v; %s, rebuilt at the next start", err, MoveAside(cache, path)))
	} else if err != nil {
		// another version's state is not damage: the next start rebuilds it, and the markers that name
		// its generation say nothing
		said = append(said, fmt.Sprintf("%v; rebuilt at the next start", err))
	}
	stateRead := err == nil
	if err := ctx.Err(); err != nil {
		return said, err
	}
	lexDir := filepath.Join(cache, "lexical.bleve")
	if err := bm25.Verify(lexDir); err != nil {
		var d *bm25.DamagedError
		if !errors.As(err, &d) {
			return said, fmt.Errorf("verify: %w", err)
		}
		damaged(d.File, d.Err, lexDir)
	}
	if err := ctx.Err(); err != nil {
		return said, err
	}
	vecDir := filepath.Join(cache, "vectors")
	genFile := filepath.Join(cache, "vectors.gen")
	model, err := vector.Verify(vecDir)
	if errors.Is(err, vector.ErrCorrupt) {
		damaged(filepath.Join(vecDir, "vectors.bin"), err, vecDir)
		os.Remove(genFile) // the vectors are no longer complete
	} else if err != nil {
		return said, fmt.Errorf("verify: %w", err)
	}
	// the marker is "generation model/dimensions", written once the vectors of that generation, of the
	// model the vector file names, are all in
	want := fmt.Sprintf("%d %s", gen, model)
	if b, err := os.ReadFile(genFile); err == nil && stateRead && (model != "" && string(b) != want || !strings.HasPrefix(string(b), want)) {
		os.Remove(genFile)
		said = append(said, fmt.Sprintf("cache file %s is damaged: %q, where the state and the vectors say %q; removed, the vectors are checked at the next start",
			genFile, b, want))
	}
	return said, nil
}
