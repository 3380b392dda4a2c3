package parse

import "testing"

// What ranking and packing ask of a language comes from its row: a language read with a grammar has a
// line comment, prose has none.
func TestCommentPrefixFromTheRow(t *testing.T) {
	for _, l := range table {
		if got := CommentPrefix(l.name); got != l.comment || l.grammar != nil && got == "" {
			t.Errorf("%s: comment %q", l.name, got)
		}
	}
	for lang, want := range map[string]string{"python": "# ", "go": "// ", "markdown": "", "": "", "cobol": "// "} {
		if got := CommentPrefix(lang); got != want {
			t.Errorf("CommentPrefix(%q) = %q, want %q", lang, got, want)
		}
	}
}
