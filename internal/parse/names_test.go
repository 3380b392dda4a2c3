package parse

import (
	"path/filepath"
	"strings"
	"testing"
)

// Each definition of the shapes under testdata/shapes is found and named as its language writes it:
// not after a macro, a keyword or a parameter. want lists "kind parent.name" (or "kind name");
// never lists names no definition may have.
func TestNamesAsWritten(t *testing.T) {
	cases := []struct {
		file  string
		want  []string
		never []string
	}{
		{
			file: "cpp/macros.h",
			want: []string{
				"namespace detail", "function detail.write_padded", "function detail.write", "function detail.view_of",
				"function check_path", "function report",
				"struct formatter", "method formatter.format", "constructor formatter.formatter", "method formatter.~formatter",
				"field formatter.width",
				"class basic_value", "method basic_value.parse", "constructor basic_value.basic_value",
				"class registry", "method registry.clear", "method registry.size", "method registry.add",
				"method registry.remove", "method registry.operator==", "method registry.~registry",
				"field registry.callback_", "field registry.count_",
				"method pool.queue_size", "function is_exponent", "constructor Rep.Rep",
			},
			never: []string{"static_assert", "typename", "out", "decltype", "w", "LIB_LOCKS_EXCLUDED", "LIB_GUARDED_BY",
				"LIB_API", "LIB_CONSTEXPR", "LIB_INLINE", "LIB_BEGIN_NAMESPACE", "LIB_END_NAMESPACE", "LIB_TPL_DECLARATION"},
		},
		{
			file:  "cpp/tests.cc",
			want:  []string{"method RingTest.PushPop", "method RingFixture.Grows", "class MockRing"},
			never: []string{"TEST", "TEST_F", "MOCK_METHOD", "FRIEND_TEST"},
		},
		{
			file: "c/macros.c",
			want: []string{"function ring_push", "function ring_loop", "function test_ring_divide", "function ring_size",
				"function ring_push", "function ring_pop", "function ring_peek", "enum ring_state", "constant ring_state.RING_EMPTY",
				"function ring_open", "variable ring_count", "function ring_apply"},
			never: []string{"if", "TEST_IMPL", "BENCHMARK_IMPL", "TEST_BEGIN", "TEST_END", "RING_EXTERN", "RING_CALL", "RING_INLINE"},
		},
		{
			file: "rust/blocks.rs",
			want: []string{"struct EnterGuard", "field EnterGuard.depth", "function enter_runtime",
				"method EnterGuard.block_in_place", "method Handle.io", "function disallow_blocking", "method Ring.wrap"},
			never: []string{"cfg_rt", "cfg_io"},
		},
	}
	p := NewParser()
	defer p.Close()
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f, src := parseFixture(t, p, filepath.Join("testdata", "shapes", c.file))
			assertSane(t, f, src)
			got := map[string]bool{}
			var all []string
			for _, d := range f.Definitions {
				s := d.Kind + " " + d.Name
				if d.Parent != "" {
					s = d.Kind + " " + d.Parent + "." + d.Name
				}
				got[s] = true
				all = append(all, s)
				for _, n := range c.never {
					if d.Name == n {
						t.Errorf("a definition is named %q: %s (line %d)", n, d.Signature, d.StartLine)
					}
				}
			}
			for _, w := range c.want {
				if !got[w] {
					t.Errorf("no %q among:\n%s", w, strings.Join(all, "\n"))
				}
			}
		})
	}
}

// A C++ template's definition starts at its template head: the parameters and the enable_if a fix
// changes are part of what a reader must see, and a doc comment above the head is the definition's.
func TestTemplateHeadStartsTheDefinition(t *testing.T) {
	p := NewParser()
	defer p.Close()
	f, src := parseFixture(t, p, filepath.Join("testdata", "shapes", "cpp", "macros.h"))
	assertSane(t, f, src)
	lines := strings.Split(string(src), "\n")
	for _, name := range []string{"write_padded", "write", "formatter", "format"} {
		found := false
		for _, d := range f.Definitions {
			if d.Name != name || d.Kind == "constructor" {
				continue
			}
			found = true
			if head := strings.TrimSpace(lines[d.StartLine-1]); !strings.HasPrefix(head, "template") {
				t.Errorf("%s %s starts at line %d, %q, not at its template head", d.Kind, name, d.StartLine, head)
			}
		}
		if !found {
			t.Errorf("no definition named %s", name)
		}
	}
}
