package history

import (
	"slices"
	"testing"
)

func TestIssueRefs(t *testing.T) {
	for _, c := range []struct {
		text string
		want []int
	}{
		{"This is a follow up to #3112.", []int{3112}},
		{"Fix #7428: py domain: a reference to class None (#7432)", []int{7428, 7432}},
		{"Introduced with https://github.com/kennethreitz/requests/issues/2844", []int{2844}},
		{"see https://gitlab.com/group/proj/-/merge_requests/17 and #17", []int{17}},
		{"as rust-lang/rust#12345 says; issue#5; &#123; and ##9", nil},
		{"    #3 0x5613e8af05b8 in decCompare src/decNumber/decNumber.c:6209", nil},
		{"#0, step #2 and #12345678 are not issues", nil},
		{"the colour #ff00aa and step #2a", nil},
		{"gh-104482: fix the parser (GH-104490)", []int{104482, 104490}},
		{"see numpy/numpy#123 and high-12 and ugh-12", nil},
	} {
		if got := IssueRefs(c.text); !slices.Equal(got, c.want) {
			t.Errorf("IssueRefs(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// The commits that name an issue, in their subject or their body, newest first.
func TestNamingFindsTheCommitsOfAnIssue(t *testing.T) {
	r := newRepo(t)
	r.commit("Support typing comments. Close #3112", map[string]string{"checkers/variables.py": "x = 1\n"})
	r.commit("Exempt names in type annotations\n\nA follow-up of #3112, which missed them.", map[string]string{"checkers/variables.py": "x = 2\n", "ChangeLog": "2\n"})
	r.commit("Bump the version to 3.1120 (#31120)", map[string]string{"setup.py": "v = 1\n"})
	l := read(t, r.dir, 0)
	var subjects []string
	var files []string
	for _, c := range l.Naming(3112) {
		subjects = append(subjects, c.Subject)
		files = append(files, c.Files...)
	}
	if want := []string{"Exempt names in type annotations", "Support typing comments. Close #3112"}; !slices.Equal(subjects, want) {
		t.Errorf("Naming(3112) = %q, want %q", subjects, want)
	}
	if !slices.Contains(files, "checkers/variables.py") || slices.Contains(files, "setup.py") {
		t.Errorf("files of the commits naming #3112: %v", files)
	}
	if got := l.Naming(999); len(got) != 0 {
		t.Errorf("Naming(999) = %v", got)
	}
	var nilLog *Log
	if nilLog.Naming(3112) != nil {
		t.Error("a nil log names commits")
	}
}
