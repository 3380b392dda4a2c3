package cli

import (
	"errors"
	"strings"
	"testing"
)

// A panic while one command answers (a bug met on one repository) is that command's error, saying
// what and where, and no stack trace.
func TestPanicIsTheCommandsError(t *testing.T) {
	var rec map[string]int
	err := safely(func() error {
		rec["file"]++ // a nil map: the kind of bug a missing record was
		return nil
	})
	if err == nil {
		t.Fatal("a panic gave no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "internal error: assignment to entry in nil map") || !strings.Contains(msg, "cli/panic_test.go:") || strings.Contains(msg, "goroutine") {
		t.Errorf("error = %q", msg)
	}
	want := errors.New("refused")
	if err := safely(func() error { return want }); !errors.Is(err, want) {
		t.Errorf("an error passes through as %v", err)
	}
}
