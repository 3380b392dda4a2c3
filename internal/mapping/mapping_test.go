package mapping

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/parse"
)

const good = `source: src/csv/reader.go::Reader.Read
record_id: csv.reader
source_type: code
mappings:
  - type: question
    text: How do I read a CSV file?
  - type: code_analog
    language: python
    text: |
      import pandas as pd
      df = pd.read_csv("users.csv")
  - type: error
    text: "csv: wrong number of fields"
`

func TestParseGood(t *testing.T) {
	es, ps := Parse("mappings/csv.yaml", []byte(good))
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if len(es) != 3 {
		t.Fatalf("entries = %+v", es)
	}
	e := es[1]
	want := Entry{Source: "src/csv/reader.go::Reader.Read", Path: "src/csv/reader.go", Symbol: "Reader.Read", RecordID: "csv.reader",
		SourceType: "code", Type: "code_analog", Language: "python", Text: "import pandas as pd\ndf = pd.read_csv(\"users.csv\")",
		File: "mappings/csv.yaml", Line: 7}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("entry = %+v\nwant    %+v", e, want)
	}
}

// Every problem has its file:line, and the good mappings of a partly broken file survive.
func TestParseProblems(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		want      string
		entries   int
	}{
		{"not yaml", "source: [a\nmappings: x\n", 1, "not YAML", 0},
		{"no source", "mappings:\n  - type: task\n    text: x\n", 1, "source is missing", 0},
		{"bad type", "source: a.go\nmappings:\n  - type: task\n    text: ok\n  - type: riddle\n    text: x\n", 5, `type "riddle" is not one of`, 1},
		{"analog without language", "source: a.go\nmappings:\n  - type: code_analog\n    text: x = 1\n", 3, "needs its language", 0},
		{"unknown field", "source: a.go\nowner: me\nmappings:\n  - type: task\n    text: x\n", 2, `unknown field "owner"`, 1},
		{"empty text", "source: a.go\nmappings:\n  - type: task\n    text: \"\"\n", 3, "text is missing", 0},
		{"empty list", "source: a.go\nmappings: []\n", 2, "non-empty list", 0},
		{"empty file", "", 1, "empty file", 0},
	} {
		es, ps := Parse("mappings/x.yaml", []byte(tc.src))
		if len(ps) == 0 || ps[0].Line != tc.line || !strings.Contains(ps[0].Message, tc.want) || ps[0].File != "mappings/x.yaml" {
			t.Errorf("%s: problems %v, want line %d %q", tc.name, ps, tc.line, tc.want)
		}
		if len(es) != tc.entries {
			t.Errorf("%s: %d entries, want %d", tc.name, len(es), tc.entries)
		}
	}
}

func TestValidateAndLoad(t *testing.T) {
	root := t.TempDir()
	write := func(p, body string) {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/csv/reader.go", "package csv\n")
	write("mappings/csv.yaml", good)
	write("mappings/sub/broken.yml", "source: gone.go\nmappings:\n  - type: task\n    text: do it\n  - type: nope\n    text: x\n")
	write("mappings/notes.txt", "not a mapping file")
	es, ps := Load(root, nil)
	if len(es) != 4 || len(ps) != 1 {
		t.Fatalf("Load: %d entries, problems %v", len(es), ps)
	}
	got := []string{}
	for _, p := range Validate(root, nil) {
		got = append(got, p.String())
	}
	want := []string{
		"mappings/sub/broken.yml:3: source gone.go does not exist in the workspace",
		`mappings/sub/broken.yml:5: type "nope" is not one of question, task, pseudocode, code_analog, error, keywords, concepts`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Validate =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !IsMappingFile("docs/maps/a.yaml", []string{"docs/maps/"}) || IsMappingFile("mappings.yaml", nil) || IsMappingFile("src/mappings/a.yaml", nil) {
		t.Error("IsMappingFile")
	}
}

// The shipped JSON Schema and the Go checks speak of the same fields and types.
func TestSchemaAgrees(t *testing.T) {
	var s struct {
		Required   []string
		Properties map[string]struct {
			Items struct {
				Required   []string
				Properties map[string]struct {
					Enum []string
				}
			}
		}
	}
	if err := json.Unmarshal(Schema, &s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Required, []string{"source", "mappings"}) {
		t.Errorf("required = %v", s.Required)
	}
	items := s.Properties["mappings"].Items
	if !reflect.DeepEqual(items.Properties["type"].Enum, Types) || !reflect.DeepEqual(items.Required, []string{"type", "text"}) {
		t.Errorf("schema types %v, Go %v", items.Properties["type"].Enum, Types)
	}
	for field := range s.Properties {
		if !strings.Contains("source record_id source_type mappings", field) {
			t.Errorf("schema field %q unknown to Parse", field)
		}
	}
}

// Error mappings come from the messages the code raises or logs, linked to the raising definition.
func TestGenerated(t *testing.T) {
	src := "package rule\n\nfunc Activate(key string) error {\n\tif key == \"\" {\n\t\treturn errors.New(\"cannot activate a rule without a key\")\n\t}\n\tlabel := \"just a label here\"\n\t_ = label\n\treturn nil\n}\n"
	p := parse.NewParser()
	f, err := p.Parse(t.Context(), "rule/activate.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	es := Generated("rule/activate.go", f, []byte(src))
	if len(es) != 1 {
		t.Fatalf("generated = %+v", es)
	}
	e := es[0]
	if e.Type != "error" || e.Text != "cannot activate a rule without a key" || e.Symbol != "Activate" || e.Source != "rule/activate.go::Activate" || e.Line != 5 {
		t.Errorf("entry = %+v", e)
	}
}

// TestRaisingAgreesWithTheExpression checks that the keyword filter in front of raises drops no line
// the expression alone would match.
func TestRaisingAgreesWithTheExpression(t *testing.T) {
	lines := []string{
		`raise ValueError("bad")`, `throw new Error("x")`, `panic("no")`, `errors.New("x")`, `ERRORS.NEW("x")`,
		`fmt.Errorf("x")`, `log.Fatalf("x")`, `error ("x")`, `new Exception ("x")`, `return err ("x")`,
		`bail!("x")`, `anyhow!("x")`, `logging.error("x")`, `logger.warning("x")`, `console.warn("x")`,
		`eprintln!("x")`, `warn!("x")`, `error!("x")`, `LOG.Critical("x")`, `Logger.Exception("x")`,
		`x := "plain"`, `print("hello world")`, `return "terror"`, `s = "throwaway"`, `// warning: x`, ``,
	}
	for _, l := range lines {
		if got, want := raising(l), raises.MatchString(l); got != want {
			t.Errorf("%q: filter says %v, expression %v", l, got, want)
		}
	}
}
