package query

import (
	"reflect"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"python exception with quoted key", "Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n    d['foo']\nKeyError: 'foo'\n",
			[]string{"foo"}},
		{"qualified exception", "```\nrequests.exceptions.ProxyError: Max retries exceeded with url: /\n```",
			[]string{"Max retries exceeded with url: /"}},
		{"go panic", "panic: runtime error: invalid memory address or nil pointer dereference [recovered]\n",
			[]string{"invalid memory address or nil pointer dereference"}},
		{"java with caused by", "Exception in thread \"main\" java.lang.IllegalStateException: Queue full\n\tat a.B.c(B.java:1)\nCaused by: java.io.IOException: Broken pipe\n",
			[]string{"Queue full", "Broken pipe"}},
		{"javascript uncaught", "Uncaught TypeError: Cannot read properties of undefined (reading 'id')\n",
			[]string{"Cannot read properties of undefined (reading 'id')"}},
		{"rust new panic format", "thread 'main' panicked at src/main.rs:4:5:\nattempt to subtract with overflow\nnote: run with `RUST_BACKTRACE=1`\n",
			[]string{"attempt to subtract with overflow"}},
		{"rust old panic format", "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: Io', src/main.rs:9:37\n",
			[]string{"called `Result::unwrap()` on an `Err` value: Io"}},
		{"compiler error", "```\nsrc/conv.cpp:12:5: error: no matching function for call to 'from_json'\n```\n",
			[]string{"no matching function for call to 'from_json'"}},
		{"quoted prose", "I get \"permission denied while opening socket\" and then 'connection reset by peer'.",
			[]string{"permission denied while opening socket", "connection reset by peer"}},
		{"backticked exception", "The build fails with `IndexError: pop from empty list` on empty tuples",
			[]string{"pop from empty list"}},
		{"backticked message", "It prints `weekdays is not a function` in the console",
			[]string{"weekdays is not a function"}},
		{"not messages", "Run `pytest --fixtures` or `pip list`; it doesn't matter what 'foo' is, the user's \"x\" neither.",
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := analyze(c.text, nil).Errors; !reflect.DeepEqual(got, c.want) {
				t.Errorf("errors of %q:\n got %q\nwant %q", c.text, got, c.want)
			}
		})
	}
}

func TestErrorsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("RuntimeError: " + strings.Repeat("long message ", 60) + "\n")
	for i := 0; i < 50; i++ {
		b.WriteString("ValueError: failure number " + strings.Repeat("x", i) + "\n")
	}
	got := analyze(b.String(), nil).Errors
	if len(got) != maxErrors {
		t.Errorf("%d errors, want the cap %d", len(got), maxErrors)
	}
	for _, e := range got {
		if len(e) > maxErrorBytes {
			t.Errorf("error of %d bytes", len(e))
		}
	}
}
