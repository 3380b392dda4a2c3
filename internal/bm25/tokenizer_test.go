package bm25

import (
	"reflect"
	"testing"
)

// TestSpacesCutsAsWhitespace compares the fields' tokenizer with bleve's whitespace tokenizer, term by
// term with offsets and positions: an index made with either answers alike.
func TestSpacesCutsAsWhitespace(t *testing.T) {
	for _, in := range []string{
		"", " ", "a", "parse config file", "  lead and  trail  ", "tab\tnew\nline\rcr\vvt\fff",
		Normalize("func (s *Server) handleRequest(ctx context.Context) error { return nil }"),
		"caf\u00e9 na\u00efve", "nbsp\u00a0split", "bad \xff utf8 after", "x\u0085y",
	} {
		got, want := spaces{}.Tokenize([]byte(in)), whitespace.Tokenize([]byte(in))
		if len(got) != len(want) {
			t.Errorf("%q: %d tokens, want %d", in, len(got), len(want))
			continue
		}
		for i := range got {
			if !reflect.DeepEqual(*got[i], *want[i]) {
				t.Errorf("%q token %d: %+v, want %+v", in, i, *got[i], *want[i])
			}
		}
	}
}

func FuzzSpaces(f *testing.F) {
	f.Add([]byte("a b  c"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, want := spaces{}.Tokenize(in), whitespace.Tokenize(in)
		if len(got) != len(want) {
			t.Fatalf("%q: %d tokens, want %d", in, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(*got[i], *want[i]) {
				t.Fatalf("%q token %d: %+v, want %+v", in, i, *got[i], *want[i])
			}
		}
	})
}
