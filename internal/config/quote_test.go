package config

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	if got := Quote("Rule\n"); got != `"Rule\n"` {
		t.Errorf("Quote = %s", got)
	}
	long := strings.Repeat("é", 1<<19) // a megabyte, a character cut at the limit
	got := Quote(long)
	if len(got) > 2*maxQuoted || !strings.HasSuffix(got, "... (1048576 bytes)") || !utf8.ValidString(got) {
		t.Errorf("Quote of a megabyte = %s", got)
	}
}
