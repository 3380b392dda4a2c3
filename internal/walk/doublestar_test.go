package walk

import (
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/filetest"
)

// tryEverySplit is the matcher as it was: every split of the path tried for each "**", exponential in
// their number; the reference for small inputs.
func tryEverySplit(glob, parts []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			if len(glob) == 1 {
				return len(parts) > 0
			}
			for i := 0; i <= len(parts); i++ {
				if tryEverySplit(glob[1:], parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, err := path.Match(glob[0], parts[0]); err != nil || !ok {
			return false
		}
		glob, parts = glob[1:], parts[1:]
	}
	return len(parts) == 0
}

// The table gives what trying every split gave, on random globs and paths.
func TestDoubleStarMatchesAsEverySplit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	elements := []string{"a", "b", "*", "a*", "**", "**", "[ab]"}
	names := []string{"a", "b", "ab", "ba"}
	for range 20000 {
		glob := make([]string, 1+r.IntN(6))
		for i := range glob {
			glob[i] = elements[r.IntN(len(elements))]
		}
		parts := make([]string, r.IntN(8))
		for i := range parts {
			parts[i] = names[r.IntN(len(names))]
		}
		if got, want := matchElements(glob, parts), tryEverySplit(glob, parts); got != want {
			t.Fatalf("%q against %q: %v, want %v", strings.Join(glob, "/"), strings.Join(parts, "/"), got, want)
		}
	}
	if p := newPattern(strings.Repeat("**/", 16)+"x", nil); !slices.Equal(p.glob, []string{"**", "x"}) {
		t.Errorf("sixteen **/ parse as %q, want one", p.glob)
	}
}

// chain is a folder chain n deep under root, with one file at its end.
func chain(n int) string {
	return strings.Repeat("a/", n) + "main.go"
}

// Sixteen "**/" in a .gitignore line, and "**" between names that cannot be folded together, over a
// chain of folders 24 deep: the walk takes what it took without them (before: past 60 s).
func TestManyDoubleStarsOverADeepChain(t *testing.T) {
	root := t.TempDir()
	ignore := strings.Repeat("**/", 16) + "x\n" + strings.Repeat("**/a", 16) + "/**/x\n" + strings.Repeat("a*/**/", 16) + "y\n"
	filetest.Write(t, root, map[string]string{".gitignore": ignore, chain(24): "package a\n", strings.Repeat("a/", 24) + "x": "x\n"})
	paths, _ := walkPaths(t, root, Options{})
	if !slices.Contains(paths, chain(24)) || slices.Contains(paths, strings.Repeat("a/", 24)+"x") {
		t.Errorf("walked %q", paths)
	}
}

func BenchmarkManyDoubleStars(b *testing.B) {
	p := newPattern(strings.Repeat("**/a", 16)+"/**/x", nil)
	parts := strings.Split(chain(24), "/")
	for b.Loop() {
		p.match(parts, false)
	}
}
