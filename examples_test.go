package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/cli"
	"github.com/ctxmap/ctxmap/index"
)

// packShape is the kinds of line of a Markdown pack in the order they first come, each with what in it
// the build decides and the code does not (the header's keys, the budget, the form of a heading): the
// structure a pack for the same request keeps while the code it shows changes.
func packShape(pack string) []string {
	var (
		heading = regexp.MustCompile(`^### [^ :]+:\d+(-\d+)?( · \S| \([a-z, ]+\)$)`)
		outline = regexp.MustCompile(`^### \S+ \(outline(, p=\d\.\d\d)?\)$`)
		footer  = regexp.MustCompile(`^_\d+ more candidates? did not fit the budget\._$`)
		entity  = regexp.MustCompile(`^  - [A-Z0-9_]+ \(\d\.\d\d\): `)
		budget  = regexp.MustCompile(`^- pack: \d+ of (\d+ tokens \(\w+\))`)
	)
	var kinds []string
	add := func(k string) {
		if !slices.Contains(kinds, k) { // in the order they first come: how many items is the ranking's
			kinds = append(kinds, k)
		}
	}
	inCode := false
	for _, line := range strings.Split(pack, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
			add("fence")
		case inCode:
			add("code")
		case strings.HasPrefix(line, "# Context: "):
			add(line)
		case budget.MatchString(line):
			add("- pack: of " + budget.FindStringSubmatch(line)[1])
		case strings.HasPrefix(line, "- ") && strings.Contains(line, ":"):
			key, _, _ := strings.Cut(line, ":")
			add(key)
		case entity.MatchString(line):
			add("entity")
		case heading.MatchString(line):
			add("heading")
		case outline.MatchString(line):
			add("outline")
		case strings.HasPrefix(line, "why: "):
			add("why")
		case footer.MatchString(line):
			add("footer")
		case strings.TrimSpace(line) == "":
		default:
			add("other: " + line)
		}
	}
	return kinds
}

// The pack docs/example-pack.md shows and the entities README.md names are what the current build
// makes of this repository (scripts/examples writes them again): the pack has the shape of a pack made
// now for its command (title, header, headings, reasons, code, footer), every place it names exists, and
// the entities are among the repository's first.
func TestExamplesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes this repository")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	doc, err := os.ReadFile("docs/example-pack.md")
	if err != nil {
		t.Fatal(err)
	}
	command := regexp.MustCompile("(?m)^```sh\n(ctxmap context [^\n]*)\n```").FindSubmatch(doc)
	_, shown, found := bytes.Cut(doc, []byte("\n---\n"))
	if command == nil || !found {
		t.Fatalf("docs/example-pack.md: no ctxmap context command in a sh block, or no --- before the pack")
	}
	args := regexp.MustCompile(`"[^"]*"|\S+`).FindAllString(string(command[1]), -1)[1:]
	for i, a := range args {
		args[i] = strings.Trim(a, `"`)
	}
	var made, said bytes.Buffer
	if code := cli.Run(append(args, "--no-daemon", "--quiet"), nil, &made, &said); code != 0 {
		t.Fatalf("ctxmap %s: exit %d: %s", strings.Join(args, " "), code, said.String())
	}
	if want, got := packShape(made.String()), packShape(string(shown)); !slices.Equal(want, got) {
		t.Errorf("docs/example-pack.md is not the shape of the pack its command makes now: run scripts/examples\nnow:  %q\ndoc:  %q", want, got)
	}
	for _, m := range regexp.MustCompile(`(?m)^### ([^ :]+):(\d+)-`).FindAllStringSubmatch(string(shown), -1) {
		if _, err := os.Stat(filepath.FromSlash(m[1])); err != nil {
			t.Errorf("docs/example-pack.md shows %s, which is gone: run scripts/examples", m[1])
		}
	}

	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile(`<!-- entities -->(.*)<!-- /entities -->`).FindSubmatch(readme)
	if listed == nil {
		t.Fatal("README.md: no <!-- entities --> list")
	}
	var top []index.EntitySummary
	made.Reset()
	if code := cli.Run([]string{"entities", "--top", "40", "--format", "json", "--no-daemon", "--quiet"}, nil, &made, &said); code != 0 {
		t.Fatalf("ctxmap entities: exit %d: %s", code, said.String())
	}
	if err := json.Unmarshal(made.Bytes(), &top); err != nil {
		t.Fatal(err)
	}
	names := strings.Split(string(listed[1]), ", ")
	for _, name := range names {
		if !slices.ContainsFunc(top, func(e index.EntitySummary) bool { return e.Name == name }) {
			t.Errorf("README.md names the entity %s, not among the repository's first 40 now: run scripts/examples", name)
		}
	}
	if len(names) < 5 {
		t.Errorf("README.md names %d entities: %q", len(names), listed[1])
	}
}
