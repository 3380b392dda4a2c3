package store

import (
	"encoding/gob"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/records"
)

// A state file of a version before the sections is rebuilt as one of another version, not as a
// damaged one.
func TestOlderStateIsAnotherVersion(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(StatePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	old := struct {
		Magic   string
		Version int
		Records map[string]*records.Record
	}{magic, 10, map[string]*records.Record{"a.go": {Path: "a.go"}}}
	if err := gob.NewEncoder(f).Encode(old); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Load(dir, dir)
	if err == nil || errors.As(err, new(DamagedError)) || !strings.Contains(err.Error(), "version 10") {
		t.Errorf("Load of a version 10 file = %v, want an error of another version", err)
	}
}

// A cache of a version that kept its state in files.gob is rebuilt, not misread: the old file goes.
func TestOldStateFileIsRemoved(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, oldStateName)
	if err := os.WriteFile(old, []byte("a state of version 13"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := Load(dir, dir)
	if st != nil || err == nil || errors.As(err, new(DamagedError)) {
		t.Errorf("Load beside an old state file = %v, %v; want an error of another version", st, err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old state file is still there: %v", err)
	}
	if st, err := Load(dir, dir); st != nil || err != nil {
		t.Errorf("the next Load = %v, %v; want nothing to load", st, err)
	}
}
