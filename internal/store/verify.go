package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
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
