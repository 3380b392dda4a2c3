package index

import (
	"encoding/gob"
	"errors"
	"os"
	"strings"
	"testing"
)

// A state file of a version before the sections is rebuilt as one of another version, not as a
// damaged one.
func TestOlderStateIsAnotherVersion(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(statePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	old := struct {
		Magic   string
		Version int
		Records map[string]*Record
	}{cacheMagic, 10, map[string]*Record{"a.go": {Path: "a.go"}}}
	if err := gob.NewEncoder(f).Encode(old); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = loadState(dir, dir)
	if err == nil || errors.As(err, new(damagedState)) || !strings.Contains(err.Error(), "version 10") {
		t.Errorf("loadState of a version 10 file = %v, want an error of another version", err)
	}
}
