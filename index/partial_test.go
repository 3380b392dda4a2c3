package index

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/internal/shoptest"
)

// A quick pack is made by the same route as the full index's, from the files the query matches: it
// says it is partial, holds only files it read, and leads with the full index's first file.
func TestQuickContext(t *testing.T) {
	root := shoptest.Write(t, shoptest.Files(t))
	ctx := context.Background()
	full, err := Open(ctx, Options{Root: root, InMemory: true, Config: &Config{}})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if _, err := full.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	full.WaitVectors()
	for _, text := range []string{
		"checkout fails when the cart is empty",
		"the refund of a parcel paid by card shows a wrong tax on the receipt",
		"`reserve_stock` raises \"not enough stock\" for a warehouse that has it",
	} {
		req, err := Request{Text: text, Budget: 2000}.Normalize(Config{})
		if err != nil {
			t.Fatal(err)
		}
		res, read, err := QuickContext(ctx, Options{Root: root, Config: &Config{}}, req, 0.35)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		p := res.Pack
		if p.Partial == nil || p.Partial.Files != len(read) || p.Partial.Total < len(read) || p.Partial.Built != 0.35 {
			t.Errorf("%s: partial %+v, %d files read", text, p.Partial, len(read))
		}
		if !strings.Contains(p.Text, "- partial: from ") || !strings.Contains(p.Text, "; the index is 35% built") {
			t.Errorf("%s: the header does not say the pack is partial:\n%s", text, p.Text)
		}
		if len(p.Items) == 0 {
			t.Fatalf("%s: an empty quick pack", text)
		}
		for _, it := range p.Items {
			if !slices.Contains(read, it.Path) {
				t.Errorf("%s: %s is in the pack but was not read", text, it.Path)
			}
		}
		want, err := full.Context(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if want.Pack.Partial != nil {
			t.Errorf("%s: the full index's pack says it is partial", text)
		}
		// the sieve reads the full index's first file; a name the text quotes leads both packs
		first := want.Pack.Items[0].Path
		if !slices.Contains(read, first) {
			t.Errorf("%s: the full index's first file %s was not read: %v", text, first, read)
		}
		if strings.Contains(text, "`") && p.Items[0].Path != first {
			t.Errorf("%s: the quick pack leads with %s, the full index's with %s", text, p.Items[0].Path, first)
		}
	}
}

// A text no file matches gets no quick pack: the full index is waited for instead.
func TestQuickContextWithNothingToMatch(t *testing.T) {
	root := shoptest.Write(t, shoptest.Files(t))
	req, err := Request{Text: "zyxwvut qqqqq"}.Normalize(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if res, _, err := QuickContext(context.Background(), Options{Root: root, Config: &Config{}}, req, 0); !errors.Is(err, ErrNothingMatches) {
		t.Errorf("a text nothing matches: %v, %+v", err, res)
	}
}
