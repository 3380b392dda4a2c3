package index

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/pack"
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
		_, err := Request{Text: c.text}.Resolve(Config{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalid)):
			t.Errorf("%s: %v, want an invalid request saying %q", c.name, err, c.want)
		}
	}
	long := strings.Repeat("é", MaxText) // two bytes each: the limit falls inside one
	r, err := Request{Text: long}.Resolve(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.text; len(got) > MaxText || len(got) < MaxText-utf8.UTFMax || !utf8.ValidString(got) {
		t.Errorf("a text of %d bytes cut to %d bytes (valid UTF-8: %v), want at most %d, whole characters", len(long), len(got), utf8.ValidString(got), MaxText)
	}
}

// A request is settled once: what it leaves unset comes from the configuration, then the defaults;
// the intent is named as the query knows it and the signals switched off are a set.
func TestRequestResolve(t *testing.T) {
	cfg := Config{Budget: 1200, Tokenizer: "cl100k_base", Format: "xml", Ranker: RankerFusion, Fill: true}
	for _, c := range []struct {
		name string
		req  Request
		cfg  Config
		want pack.Request
	}{
		{"the defaults", Request{}, Config{},
			pack.Request{Budget: DefaultBudget, Format: "markdown", Tokenizer: "o200k_base", Ranker: RankerLearned}},
		{"the configuration's", Request{}, cfg,
			pack.Request{Budget: 1200, Format: "xml", Tokenizer: "cl100k_base", Ranker: RankerFusion, Fill: true}},
		{"the request's over the configuration's",
			Request{Budget: 900, Format: "json", Tokenizer: "o200k_base", Ranker: RankerLearned, Intent: "Bug-Fix",
				Without: []string{"vectors", "history", "vectors"}},
			cfg,
			pack.Request{Budget: 900, Format: "json", Tokenizer: "o200k_base", Ranker: RankerLearned, Fill: true,
				Intent: "bug_fix", Without: []string{"history", "vectors"}}},
	} {
		c.req.Text = "checkout fails when the cart is empty"
		r, err := c.req.Resolve(c.cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := r.stated(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: resolved to %+v, want %+v", c.name, got, c.want)
		}
		if len(r.without) != len(c.want.Without) {
			t.Errorf("%s: signals off %v, want %v", c.name, r.without, c.want.Without)
		}
	}
	for _, bad := range []Request{{Budget: 50}, {Format: "html"}, {Tokenizer: "gpt2"}, {Ranker: "random"},
		{Intent: "dance"}, {Without: []string{"telepathy"}}} {
		bad.Text = "checkout fails"
		if _, err := bad.Resolve(Config{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", bad, err)
		}
	}
}

// The blank lines and spaces around a text say nothing: a text piped with its newline, or a selection
// with the blank lines around it, gets the pack of the same words given as arguments. The first line
// keeps its indent, as a pasted code block's would.
func TestTheBlanksAroundATextChangeNothing(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"checkout fails\n", "checkout fails"},
		{"\n\n  \ncheckout fails \r\n\n", "checkout fails"},
		{"\n    total := sum(cart)\n    return total\n", "    total := sum(cart)\n    return total"},
	} {
		r, err := Request{Text: c.text}.Resolve(Config{})
		if err != nil {
			t.Fatal(err)
		}
		if r.text != c.want {
			t.Errorf("%q resolved to %q, want %q", c.text, r.text, c.want)
		}
	}
	ix := built(t, sample)
	text := "Cannot search for words longer than 15 characters in rule descriptions"
	want, err := ask(context.Background(), ix, Request{Text: text, Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ask(context.Background(), ix, Request{Text: "\n" + text + "\n\n", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if got.Pack.Text != want.Pack.Text {
		t.Errorf("the pack of the text with blank lines around it differs:\n%s\n---\n%s", got.Pack.Text, want.Pack.Text)
	}
}
