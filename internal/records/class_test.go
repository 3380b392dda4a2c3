package records

import "testing"

func TestIsTest(t *testing.T) {
	for p, want := range map[string]bool{
		"tests/test_basic.py":                          true,
		"src/_pytest/python.py":                        false,
		"pkg/api/client_test.go":                       true,
		"src/main/java/com/x/Parser.java":              false,
		"src/test/java/com/x/ParserTest.java":          true,
		"packages/runtime-core/__tests__/hmr.spec.ts":  true,
		"src/utils.test.js":                            true,
		"packages/dts-test/ref.test-d.ts":              true,
		"test-dts/reactivityMacros.test-d.ts":          true,
		"src/types/index.test-d.ts":                    true,
		"src/expect.spec-d.ts":                         true,
		"packages/reactivity/src/ref.ts":               false,
		"packages/runtime-core/src/helpers/testing.ts": false,
		"crates/printer/src/json.rs":                   false,
		"spec/models/user_spec.rb":                     true,
		"rule/index_test.go":                           true,
		"web/__tests__/rule.js":                        true,
		"src/main/java/Contest.java":                   false,
		"latest/rule.py":                               false,
		"LICENSE-MIT":                                  false,
		"sphinx/locale/it/LC_MESSAGES/sphinx.po":       false,
	} {
		if got := IsTest(p); got != want {
			t.Errorf("IsTest(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestIsExample(t *testing.T) {
	for p, want := range map[string]bool{
		"examples/basic/main.go": true, "docs/Demo/app.js": true, "src/sample.py": false, "example.go": false,
	} {
		if got := IsExample(p); got != want {
			t.Errorf("IsExample(%q) = %v, want %v", p, got, want)
		}
	}
}
