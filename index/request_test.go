package index

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// A request's text is refused when empty or binary, and cut to MaxText at a character's boundary.
func TestRequestText(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"empty", " \n\t", "the text is empty"},
		{"NUL bytes", "cart\x00\x00", "holds NUL bytes"},
		{"mostly not UTF-8", "\xff\xfe\xfd\xfc ab", "are not UTF-8"},
		{"some latin-1 in prose", "the caf\xe9 menu fails to load", ""},
		{"text", "checkout fails when the cart is empty 😀", ""},
	} {
		_, err := Request{Text: c.text}.Normalize(Config{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalid)):
			t.Errorf("%s: %v, want an invalid request saying %q", c.name, err, c.want)
		}
	}
	long := strings.Repeat("é", MaxText) // two bytes each: the limit falls inside one
	r, err := Request{Text: long}.Normalize(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Request().Text; len(got) > MaxText || len(got) < MaxText-utf8.UTFMax || !utf8.ValidString(got) {
		t.Errorf("a text of %d bytes cut to %d bytes (valid UTF-8: %v), want at most %d, whole characters", len(long), len(got), utf8.ValidString(got), MaxText)
	}
}
