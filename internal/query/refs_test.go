package query

import (
	"slices"
	"testing"
)

// The issues the prose names are kept; a code block's and a native trace's numbers are not.
func TestRefsAreTheIssuesTheProseNames(t *testing.T) {
	text := "unused-import false positive for a module used in a type comment\n\n" +
		"```c\n#include <stdio.h>\nint x = 1; // see #77\n```\n\n" +
		"AddressSanitizer:DEADLYSIGNAL\n    #0 0x5613e8af05b8 in decUnitCompare src/decNumber/decNumber.c:6257\n" +
		"    #1 0x5613e8af1585 in decCompare src/decNumber/decNumber.c:6209\n\n" +
		"This is a follow up to #3112, and https://github.com/org/project/pull/3120 did not fix it.\n"
	a := Analyze(text, nil)
	if want := []int{3112, 3120}; !slices.Equal(a.Refs, want) {
		t.Errorf("refs %v, want %v", a.Refs, want)
	}
	if a := Analyze("a changelog: #11 #12 #13 #14 #15 #16 #17", nil); len(a.Refs) != maxRefs {
		t.Errorf("refs %v, want the first %d", a.Refs, maxRefs)
	}
}
