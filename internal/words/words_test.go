package words

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestSplit(t *testing.T) {
	cases := map[string][]string{
		"RuleIndex":                     {"rule", "index"},
		"quality_profile":               {"quality", "profile"},
		"HTTPServer2":                   {"http", "server", "2"},
		"src/rule/RuleIndex.java":       {"src", "rule", "rule", "index", "java"},
		"getHTTPResponseCode":           {"get", "http", "response", "code"},
		"parse-config.v2":               {"parse", "config", "v", "2"},
		"Ünïcode_façade":                {"ünïcode", "façade"},
		"":                              nil,
		"__init__":                      {"init"},
		"XMLHttpRequest":                {"xml", "http", "request"},
		"listPRsForRepo":                {"list", "pr", "for", "repo"},
		"URLs":                          {"url"},
		"already lower case words here": {"already", "lower", "case", "words", "here"},
	}
	for in, want := range cases {
		if got := Split(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStem(t *testing.T) {
	cases := map[string]string{
		"profiles": "profile", "indexes": "index", "parsing": "parse", "running": "run", "queries": "query",
		"classes": "class", "status": "status", "releases": "release", "created": "create", "gists": "gist",
		"workflows": "workflow", "repos": "repo", "printing": "print", "matches": "match", "box": "box",
		"opened": "open", "checked": "check", "stopped": "stop", "analysis": "analysis",
		"adding": "add", "undefined": "undefine", "defined": "define", "involved": "involve", "scheduling": "schedule",
		"resolved": "resolve", "combined": "combine", "getting": "get", "putting": "put", "filtering": "filter",
		"shared": "share", "stored": "store", "serialization": "serialize", "serializer": "serialize",
		"serializes": "serialize", "serialized": "serialize", "serializing": "serialize", "organisation": "organise",
		"basis": "basis", "tennis": "tennis", "size": "size", "sizes": "size", "normalizes": "normalize",
		"naming": "name", "named": "name", "timing": "time", "assuming": "assume", "programming": "program",
		"streaming": "stream", "claimed": "claim", "formed": "form",
	}
	for in, want := range cases {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := Terms("Cannot search for words longer than 15 characters in rule descriptions")
	want := []string{"cannot", "search", "word", "longer", "character", "rule", "description"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

// splitByRunes is Split as first written, with a rune slice per word: Split must cut every string as
// it does.
func splitByRunes(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		switch {
		case unicode.IsLetter(r):
			if len(cur) > 0 {
				prev := cur[len(cur)-1]
				switch {
				case unicode.IsDigit(prev):
					flush()
				case unicode.IsUpper(r) && unicode.IsLower(prev):
					flush() // ruleIndex
				case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) &&
					!pluralAcronym(runes, i+1):
					flush() // HTTPServer: the S starts a new word
				}
				if r == 's' && pluralAcronym(runes, i) {
					continue // PRs, URLs: the plural of the acronym is the acronym
				}
			}
			cur = append(cur, r)
		case unicode.IsDigit(r):
			if len(cur) > 0 && !unicode.IsDigit(cur[len(cur)-1]) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

func FuzzSplitAsByRunes(f *testing.F) {
	for _, s := range []string{"RuleIndex", "quality_profile", "HTTPServer2", "src/rule/RuleIndex.java", "PRs", "URLsHTTP",
		"IDsServer", "parseURLs2x", "ÉtéÀPlage", "naïveCafé", "bad\xffbyte", "ǅungla", "x1y2Z3", "ABCs", "GetIDsFor",
		"\u212Aelvin", "\u0130stanbul", strings.Repeat("LongIdentifierName", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Split(s), splitByRunes(s); !slices.Equal(got, want) {
			t.Fatalf("Split(%q) = %q, want %q", s, got, want)
		}
	})
}

// go test -run '^$' -bench Split -benchmem ./internal/words/: Split against the version it replaced,
// on a line and on a definition's whole text, as the index splits both.
func BenchmarkSplit(b *testing.B) {
	line := "func (s *Server) handleRequest(ctx context.Context, req *HTTPRequest) error { return parseURLs(req.Body, s.maxIDs) }"
	body := strings.Repeat(line+"\n\t// handleRequest parses the request's URLs and IDs\n", 40)
	for _, text := range []struct{ name, s string }{{"line", line}, {"body", body}} {
		b.Run(text.name+"/now", func(b *testing.B) {
			for b.Loop() {
				Split(text.s)
			}
		})
		b.Run(text.name+"/before", func(b *testing.B) {
			for b.Loop() {
				splitByRunes(text.s)
			}
		})
	}
}
