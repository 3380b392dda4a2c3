package parse

import (
	"context"
	"strings"
	"testing"
)

// Deeply nested code (generated, or hostile) parses without exhausting a stack, or fails with an error.
func TestDeeplyNested(t *testing.T) {
	const depth = 100000
	sources := map[string]string{
		"deep.go":   "package p\n\nfunc F() int {\n\treturn " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n}\n\nfunc After() {}\n",
		"deep.js":   "function f() { return " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + " }\nfunction after() {}\n",
		"deep.py":   "def f():\n    return " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n\ndef after():\n    pass\n",
		"deep.c":    "int f(void) { " + strings.Repeat("{", depth) + strings.Repeat("}", depth) + " return 0; }\nint after(void) { return 1; }\n",
		"deep.rs":   "fn f() -> i32 { " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + " }\nfn after() {}\n",
		"deep.java": "class A { int f() { return " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "; } void after() {} }\n",
	}
	p := NewParser()
	defer p.Close()
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			f, err := p.Parse(context.Background(), name, []byte(src))
			if err != nil {
				t.Logf("error (accepted): %v", err)
				return
			}
			assertSane(t, f, []byte(src))
			found := false
			for _, d := range f.Definitions {
				found = found || strings.EqualFold(d.Name, "after")
			}
			if !found {
				t.Errorf("the definition after the nesting is lost: %d definitions", len(f.Definitions))
			}
		})
	}
}
