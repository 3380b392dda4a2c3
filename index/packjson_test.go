package index

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/pack"
)

// A JSON pack carries its code once: no rendered text, the query's first line, the entities and
// probabilities as short as the header says them.
func TestPackJSON(t *testing.T) {
	p := &Pack{Query: "checkout fails\n\nwhen the cart is empty, with this trace: ...", Text: "# Context: checkout fails\n...",
		Items: []Item{{Kind: "file", Path: "shop/cart.py", Probability: 0.123456789, Code: "class Cart: pass"}}}
	for range 12 {
		p.Entities = append(p.Entities, pack.Entity{Name: "CART", Files: []string{"a", "b", "c", "d"}, Related: []string{"1", "2", "3", "4", "5", "6"}})
	}
	b, err := PackJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	ents := got["entities"].([]any)
	first := ents[0].(map[string]any)
	item := got["items"].([]any)[0].(map[string]any)
	if got["text"] != nil || got["query"] != "checkout fails" || len(ents) != jsonEntities ||
		len(first["files"].([]any)) != jsonFiles || len(first["related"].([]any)) != jsonRelated ||
		item["probability"] != 0.1235 || item["score"] != nil || strings.Count(string(b), "class Cart") != 1 {
		t.Errorf("the JSON pack: %s", b)
	}
	if p.Text == "" || len(p.Entities) != 12 || p.Items[0].Probability != 0.123456789 {
		t.Error("PackJSON changed the pack it was given")
	}
}
