package index

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The default pack spends its budget on the likeliest code of every likely file; the tight one stops
// with the evidence. Asked on the shop's issues, neither outlines a file likelier than one it shows,
// a bug fix shows a test of the code it shows, and the text gives each file one block.

var recallTexts = []string{
	"Cart.total ignores the discount code: the total of a cart with code SAVE10 is the full price",
	"Stock.Reserve lets the stock go below zero when two orders reserve the last item",
	"the tax rate of a region is wrong for compute_tax in pricing",
	"OrderService.validate accepts an order without a payment",
}

var fileProb = regexp.MustCompile(`^file #\d+, p=(\d\.\d\d)`)

// packProb is the probability a pack states for an item's file (its first reason), and whether it
// states one.
func packProb(why []string) (float64, bool) {
	if len(why) == 0 {
		return 0, false
	}
	m := fileProb.FindStringSubmatch(why[0])
	if m == nil {
		return 0, false
	}
	p, err := strconv.ParseFloat(m[1], 64)
	return p, err == nil
}

func TestNoOutlinedFileIsLikelierThanAShownOne(t *testing.T) {
	ix, _ := shop(t)
	for _, tight := range []bool{false, true} {
		for _, text := range recallTexts {
			res, err := ask(context.Background(), ix, Request{Text: text, Tight: tight})
			if err != nil {
				t.Fatal(err)
			}
			least, most := 2.0, -1.0
			var leastPath, mostPath string
			for _, it := range res.Pack.Items {
				p, ok := packProb(it.Why)
				switch {
				case !ok:
				case it.Kind == "outline" && p > most:
					most, mostPath = p, it.Path
				case it.Kind != "outline" && len(it.Shown) > 0 && p < least:
					least, leastPath = p, it.Path
				}
			}
			if most > least {
				t.Errorf("tight %v, %q: %s outlined at p=%.2f, %s shown at p=%.2f", tight, text, mostPath, most, leastPath, least)
			}
			if least > 1 {
				t.Errorf("tight %v, %q: no file shown with its probability: %v", tight, text, itemNames(res.Pack))
			}
		}
	}
}

func TestABugFixShowsATestOfTheCodeItShows(t *testing.T) {
	ix, _ := shop(t)
	text := "Cart.total is wrong: a cart with two of the same item counts it once"
	res, err := ask(context.Background(), ix, Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if res.Analysis.Intent.Name != "bug_fix" {
		t.Fatalf("intent %s, want bug_fix", res.Analysis.Intent.Name)
	}
	for _, it := range res.Pack.Items {
		if it.Kind == "test" && len(it.Shown) > 0 && strings.HasPrefix(strings.Join(it.Why, ";"), "tests `Cart") {
			return
		}
	}
	t.Errorf("no test of Cart's code in the pack: %v", itemNames(res.Pack))
	// the tight pack keeps to what the fix changes
	res, err = ask(context.Background(), ix, Request{Text: text, Tight: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Pack.Items {
		if it.Kind == "test" {
			t.Errorf("the tight pack shows a test: %+v", it)
		}
	}
}

func TestTheDefaultPackSpendsMoreThanTheTightOne(t *testing.T) {
	ix, _ := shop(t)
	for _, text := range recallTexts {
		def, err := ask(context.Background(), ix, Request{Text: text, Budget: 4000})
		if err != nil {
			t.Fatal(err)
		}
		tight, err := ask(context.Background(), ix, Request{Text: text, Budget: 4000, Tight: true})
		if err != nil {
			t.Fatal(err)
		}
		if def.Pack.Tokens <= tight.Pack.Tokens || def.Pack.Tokens > 4000 {
			t.Errorf("%q: the default pack has %d tokens, the tight one %d, of 4000", text, def.Pack.Tokens, tight.Pack.Tokens)
		}
		if n := shownFiles(tight.Pack.Items); n > 5 {
			t.Errorf("%q: the tight pack shows %d files", text, n)
		}
		if !tight.Pack.Request.Tight || def.Pack.Request.Tight {
			t.Errorf("the packs do not state their request: %+v, %+v", def.Pack.Request, tight.Pack.Request)
		}
		// one block per file: a heading for each file whose code is shown
		for path := range shownPaths(def.Pack.Items) {
			if n := strings.Count(def.Pack.Text, "### "+path+":"); n != 1 {
				t.Errorf("%q: %s has %d blocks", text, path, n)
			}
		}
	}
}

func shownPaths(items []Item) map[string]bool {
	out := map[string]bool{}
	for _, it := range items {
		if it.Kind != "outline" && len(it.Shown) > 0 {
			out[it.Path] = true
		}
	}
	return out
}

func shownFiles(items []Item) int {
	n := 0
	for path := range shownPaths(items) {
		if !strings.Contains(path, "test") {
			n++
		}
	}
	return n
}
