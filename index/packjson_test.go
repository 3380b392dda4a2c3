package index

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/pack"
)

// A JSON pack carries its code once: no rendered text, no spend per section, probabilities to four
// places, no lines shown that are the item's whole range, and as much of the query's first line and
// the entities as keeps all but the items within a tenth of its bytes.
func TestPackJSON(t *testing.T) {
	p := &Pack{Query: "checkout fails\n\nwhen the cart is empty, with this trace: ...", Text: "# Context: checkout fails\n...",
		Sections: map[string]int{"snippets": 10},
		Items: []Item{{Kind: "file", Path: "shop/cart.py", Probability: 0.123456789, Code: strings.Repeat("class Cart: pass\n", 1000),
			StartLine: 1, EndLine: 1000, Shown: []pack.Lines{{1, 1000}}}}}
	for range 12 {
		p.Entities = append(p.Entities, pack.Entity{Name: "CART", Files: []string{"a", "b", "c", "d"}, Related: []string{"1", "2", "3", "4", "5", "6"}})
	}
	got := packJSONFields(t, p)
	ents := got["entities"].([]any)
	first := ents[0].(map[string]any)
	item := got["items"].([]any)[0].(map[string]any)
	if got["text"] != nil || got["sections"] != nil || got["query"] != "checkout fails" || len(ents) != 8 ||
		len(first["files"].([]any)) != 3 || len(first["related"].([]any)) != 5 ||
		item["probability"] != 0.1235 || item["score"] != nil || item["shown"] != nil {
		t.Errorf("the JSON pack: %v", got)
	}
	if p.Text == "" || len(p.Entities) != 12 || p.Items[0].Probability != 0.123456789 {
		t.Error("PackJSON changed the pack it was given")
	}
	// a small pack: the header gives way to the code, as the text's does
	p.Items[0].Code = "class Cart: pass"
	if got := packJSONFields(t, p); got["entities"] != nil || got["query"] != nil {
		t.Errorf("a small JSON pack repeats the header: %v", got)
	}
}

func packJSONFields(t *testing.T, p *Pack) map[string]any {
	t.Helper()
	b, err := PackJSON(p)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "class Cart: pass"); n != strings.Count(p.Items[0].Code, "class Cart: pass") {
		t.Errorf("the code %d times in %s", n, b)
	}
	return got
}
