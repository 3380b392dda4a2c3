package words

import (
	"reflect"
	"testing"
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
