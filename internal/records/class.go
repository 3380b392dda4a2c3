package records

import (
	"path"
	"strings"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// The classes of a file, by its path alone: one check each, for every package that asks. (Generated
// files are told by their content too, so walk.Classify keeps that check.)

// IsTest tells test files by the conventions of the common languages, type tests of TypeScript included.
func IsTest(p string) bool {
	lp := strings.ToLower(p)
	for _, seg := range strings.Split(path.Dir(lp), "/") {
		switch seg {
		case "test", "tests", "testing", "spec", "specs", "__tests__", "testdata", "fixtures", "test-dts", "dts-test", "test-d":
			return true
		}
	}
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	ls := strings.ToLower(stem)
	return strings.HasPrefix(ls, "test_") || strings.HasSuffix(ls, "_test") || strings.HasSuffix(ls, "_tests") ||
		strings.HasSuffix(ls, ".test") || strings.HasSuffix(ls, ".spec") || strings.HasSuffix(ls, "_spec") ||
		strings.HasSuffix(ls, ".test-d") || strings.HasSuffix(ls, ".spec-d") || // type tests (tsd, vitest)
		strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests")
}

// IsExample tells the files of example, sample and demo folders: code that shows the product, not it.
func IsExample(p string) bool {
	for _, seg := range strings.Split(path.Dir(strings.ToLower(p)), "/") {
		switch seg {
		case "example", "examples", "sample", "samples", "demo", "demos":
			return true
		}
	}
	return false
}

// IsVendored tells code copied in from other projects, by the folder names that say so.
func IsVendored(p string) bool {
	for _, seg := range strings.Split(path.Dir(strings.ToLower(p)), "/") {
		switch seg {
		case "vendor", "vendors", "vendored", "third_party", "thirdparty", "third-party", "3rdparty", "3rd_party", "3rd-party":
			return true
		}
	}
	return false
}

// IsDeclaration tells type declaration files (TypeScript's .d.ts, Python's .pyi): they state an API
// whose behaviour lives in another file.
func IsDeclaration(p string) bool {
	for _, ext := range []string{".d.ts", ".d.mts", ".d.cts", ".pyi"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// IsCode tells the files a fix's code lives in from tests, prose, configuration, data, lock files and
// type declarations: what "the code a fix touches" means in mined labels and in the benchmark's code gold.
func IsCode(p string) bool {
	switch {
	case parse.LanguageOf(p) == "" || parse.Document(p) || parse.ProseOrData(p) || IsTest(p) || IsVendored(p) || IsDeclaration(p):
		return false
	case strings.HasSuffix(p, ".lock") || strings.HasSuffix(p, "-lock.json") || strings.HasSuffix(p, ".sum"):
		return false
	}
	return true
}
