package bm25

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	zap "github.com/blevesearch/zapx/v16"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DamagedError is an index on disk that cannot be read back: File is the file found at fault (the
// index folder when none could be singled out).
type DamagedError struct {
	File string
	Err  error
}

// Error names the damaged file and what is wrong with it.
func (e *DamagedError) Error() string { return fmt.Sprintf("%s is damaged: %v", e.File, e.Err) }

// Unwrap gives the reading error.
func (e *DamagedError) Unwrap() error { return e.Err }

// IsBusy reports an index that another process holds open (bleve's lock timed out).
func IsBusy(err error) bool {
	// bleve does not always wrap bolt's error
	return errors.Is(err, bolterrors.ErrTimeout) || err != nil && strings.Contains(err.Error(), "timeout")
}

// guarded runs f with panics, and faults on memory-mapped files, turned into errors: a damaged
// segment makes the segment library index out of range or read past the end of a mapping.
func guarded(f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// openExisting opens the index at dir, and reads what every later use needs (the document count, the
// generation), so that a damaged index fails here, where it can be rebuilt, and not in a query.
func openExisting(dir string) (*Store, error) {
	// bleve reads only the pages of its bolt file it needs at first, and never a segment's checksum:
	// damage would show later, in a query or a write, unless the files are checked now (see check.go)
	checked, err := checkFiles(dir, false)
	if err != nil {
		return nil, err
	}
	// rewritten by Close: a process that dies leaves none, and the next open checks everything
	if err := os.Remove(filepath.Join(dir, manifestName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("open lexical index %s: %w", dir, err)
	}
	var idx bleve.Index
	err = guarded(func() error {
		var err error
		if idx, err = bleve.OpenUsing(dir, map[string]interface{}{"bolt_timeout": "1s"}); err != nil {
			return err
		}
		if _, err = idx.DocCount(); err != nil {
			return err
		}
		_, err = idx.GetInternal([]byte("generation"))
		return err
	})
	if err == nil {
		return &Store{idx: idx, dir: dir, checked: checked}, nil
	}
	if idx != nil {
		guarded(idx.Close)
	}
	if IsBusy(err) {
		return nil, fmt.Errorf("open lexical index %s: %w", dir, err)
	}
	return nil, &DamagedError{File: damagedFile(dir), Err: err}
}

// damagedFile singles out the file of an index that failed to open: the metadata or a segment that
// does not load on its own.
func damagedFile(dir string) string {
	meta := filepath.Join(dir, "index_meta.json")
	if b, err := os.ReadFile(meta); err != nil || !json.Valid(b) {
		return meta
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	sort.Strings(segs)
	for _, seg := range segs {
		if err := guarded(func() error {
			s, err := (&zap.ZapPlugin{}).Open(seg)
			if err != nil {
				if strings.Contains(err.Error(), "unsupported version") {
					return nil // another format: not for this check to judge
				}
				return err
			}
			return s.Close()
		}); err != nil {
			return seg
		}
	}
	// the metadata reads and every segment opens on its own: bleve failed on the bolt file that lists
	// them (on what a read-only check does not read, such as its free list)
	return filepath.Join(dir, "store", "root.bolt")
}

// checkBolt opens a bolt file read-only and reads every bucket, key and value in it, on this goroutine
// (bolt's own Check panics on a goroutine of its own, where no recover reaches).
func checkBolt(path string) error {
	return guarded(func() error {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
		if err != nil {
			return err
		}
		defer db.Close()
		return db.View(func(tx *bolt.Tx) error {
			// a file cut short loses pages bolt may hand out later, even when no page in use is gone
			if fi.Size() < tx.Size() {
				return fmt.Errorf("cut short: %d bytes, its pages reach %d", fi.Size(), tx.Size())
			}
			return tx.ForEach(func(_ []byte, b *bolt.Bucket) error { return walkBucket(b) })
		})
	})
}

func walkBucket(b *bolt.Bucket) error {
	return b.ForEach(func(k, v []byte) error {
		if v == nil { // a nested bucket
			if nb := b.Bucket(k); nb != nil {
				return walkBucket(nb)
			}
		}
		return nil
	})
}
