package index

import (
	"encoding/json"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ctxmap/ctxmap/internal/pack"
)

// What a JSON pack repeats of the query and the entities, as much as a pack's header shows at most:
// the query's first line, cut to maxQueryLine bytes; jsonEntities entities, each with jsonFiles files
// and jsonRelated related entities.
const (
	maxQueryLine = 200
	jsonEntities = 8
	jsonFiles    = 3
	jsonRelated  = 5
)

// PackJSON is a pack as the command line and the MCP server give it as JSON, held to its budget as
// the text is: each item's code once (not the rendered text again), the query and the entities as
// much as the header shows at most (the asker has the rest; explore lists an entity whole),
// probabilities to four places. Its bytes are 1.1 to 1.35 times four per token of a pack of 2,000
// tokens or more; a pack of a few hundred has more fields to its code, up to 1.9 times.
func PackJSON(p *Pack) ([]byte, error) {
	q := *p
	q.Text = ""
	line, _, _ := strings.Cut(strings.TrimSpace(q.Query), "\n")
	if line = strings.TrimSpace(line); len(line) > maxQueryLine {
		end := maxQueryLine
		for end > 0 && !utf8.RuneStart(line[end]) {
			end--
		}
		line = line[:end] + "…"
	}
	q.Query = line
	q.Entities = make([]pack.Entity, 0, min(len(p.Entities), jsonEntities))
	for _, e := range p.Entities[:min(len(p.Entities), jsonEntities)] {
		e.Files, e.Related = e.Files[:min(len(e.Files), jsonFiles)], e.Related[:min(len(e.Related), jsonRelated)]
		q.Entities = append(q.Entities, e)
	}
	q.Items = make([]Item, len(p.Items))
	for i, it := range p.Items {
		it.Probability = math.Round(it.Probability*1e4) / 1e4
		q.Items[i] = it
	}
	return json.Marshal(&q)
}
