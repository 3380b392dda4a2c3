package index

import (
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/pack"
)

// jsonHeader is how much of the query and the entities a JSON pack repeats: the query's first line
// cut to query bytes, entities entities with files files and related related entities each.
type jsonHeader struct{ query, entities, files, related int }

// jsonHeaders go from the most a JSON pack's header says to the least, as the text's header does: a
// JSON pack takes the first whose query and entities are at most a tenth of its bytes.
var jsonHeaders = []jsonHeader{{200, 8, 3, 5}, {100, 3, 2, 3}, {50, 1, 1, 0}, {0, 0, 0, 0}}

// packJSON is a pack as PackJSON writes it: the fields it leaves out when empty shadow the pack's.
type packJSON struct {
	Query string `json:"query,omitempty"`
	*Pack
	Entities []pack.Entity  `json:"entities,omitempty"`
	Sections map[string]int `json:"sections,omitempty"` // never set: the items' tokens say it
}

// PackJSON is a pack as the command line and the MCP server give it as JSON, held to its budget as
// the text is: each item's code once (not the rendered text again), probabilities to four places, no
// spend per section (the items' tokens add up to it), and the query and the entities only as much as
// a tenth of the JSON allows (the asker has the query; explore lists an entity whole). Its bytes are
// about 1.1 to 1.35 times four per token.
func PackJSON(p *Pack) ([]byte, error) {
	q := *p
	q.Text = ""
	q.Items = make([]Item, len(p.Items))
	for i, it := range p.Items {
		it.Probability = math.Round(it.Probability*1e4) / 1e4
		q.Items[i] = it
	}
	var out []byte
	for _, h := range jsonHeaders {
		j := packJSON{Query: firstLine(p.Query, h.query), Pack: &q, Entities: headerEntities(p.Entities, h)}
		b, err := json.Marshal(&j)
		if err != nil {
			return nil, err
		}
		out = b
		head, _ := json.Marshal(struct {
			Q string
			E []pack.Entity
		}{j.Query, j.Entities})
		if 10*len(head) <= len(b) {
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
func headerEntities(entities []pack.Entity, h jsonHeader) []pack.Entity {
	out := make([]pack.Entity, 0, min(len(entities), h.entities))
	for _, e := range entities[:min(len(entities), h.entities)] {
		e.Files, e.Related = e.Files[:min(len(e.Files), h.files)], e.Related[:min(len(e.Related), h.related)]
		out = append(out, e)
	}
	return out
}
