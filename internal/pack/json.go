package pack

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// jsonHeader is how much of the query and the entities a JSON pack repeats: the query's first line
// cut to query bytes, entities entities with files files and related related entities each.
type jsonHeader struct{ query, entities, files, related int }

// jsonHeaders go from the most a JSON pack's header says to the least, as the text's header does: a
// JSON pack takes the first that keeps everything but its items within a tenth of its bytes.
var jsonHeaders = []jsonHeader{{200, 8, 3, 5}, {100, 3, 2, 3}, {50, 1, 1, 0}, {0, 0, 0, 0}}

// packJSON is a pack as JSON writes it: the fields it leaves out when empty shadow the pack's.
type packJSON struct {
	Query    string       `json:"query,omitempty"`
	Entities []jsonEntity `json:"entities,omitempty"`
	*Pack
	Sections map[string]int `json:"sections,omitempty"` // never set: the items' tokens say it
}

// jsonEntity is an entity as a JSON pack's header gives it, without empty lists.
type jsonEntity struct {
	Name       string   `json:"name"`
	Importance float64  `json:"importance"`
	Files      []string `json:"files,omitempty"`
	Related    []string `json:"related,omitempty"`
}

// JSON is a pack as the command line and the MCP server give it as JSON, held to its budget as
// the text is: each item's code once (not the rendered text again), probabilities to four places,
// the lines shown only when they are not the item's whole range (a full body shows all its lines),
// no spend per section (the items' tokens add up to it), and the query and the entities only as much
// as keeps all but the items within a tenth of the JSON (the asker has the query; explore lists an
// entity whole). Its bytes are about 0.9 to 1.4 times four per token.
func JSON(p *Pack) ([]byte, error) {
	q := *p
	q.Text = ""
	q.Items = make([]Item, len(p.Items))
	for i, it := range p.Items {
		it.Probability = math.Round(it.Probability*1e4) / 1e4
		if slices.Equal(it.Shown, []Lines{{it.StartLine, it.EndLine}}) {
			it.Shown = nil
		}
		q.Items[i] = it
	}
	items, err := json.Marshal(q.Items)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, h := range jsonHeaders {
		if out, err = json.Marshal(&packJSON{Query: firstLine(p.Query, h.query), Entities: headerEntities(p.Entities, h), Pack: &q}); err != nil {
			return nil, err
		}
		if 10*(len(out)-len(items)) <= len(out) {
			break
		}
	}
	return out, nil
}

// firstLine is the query's first line, cut to at most n bytes at a character's start.
func firstLine(query string, n int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(query), "\n")
	if line = strings.TrimSpace(line); len(line) > n {
		end := n
		for end > 0 && !utf8.RuneStart(line[end]) {
			end--
		}
		if line = line[:end]; end > 0 {
			line += "…"
		}
	}
	return line
}

// headerEntities are the first of entities, each with its first files and related entities, as h says.
func headerEntities(entities []Entity, h jsonHeader) []jsonEntity {
	var out []jsonEntity
	for _, e := range entities[:min(len(entities), h.entities)] {
		out = append(out, jsonEntity{e.Name, e.Importance, e.Files[:min(len(e.Files), h.files)], e.Related[:min(len(e.Related), h.related)]})
	}
	return out
}
