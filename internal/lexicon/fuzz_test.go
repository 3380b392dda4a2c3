package lexicon

import "testing"

// A project lexicon is user input: any bytes give a lexicon or an error naming the file, never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte("synonyms:\n  rule: {strong: [policy], moderate: [check]}\n"))
	f.Add([]byte("rule: [policy, 3, {a: b}]\n"))
	f.Add([]byte("&a [*a, *a]\n"))
	f.Add([]byte("\xff\xfe: ~\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lex, err := Parse(".ctxmap/lexicon.yaml", data)
		if err == nil && lex == nil {
			t.Fatal("no lexicon and no error")
		}
	})
}
