package mine

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/internal/rank"
)

// Mining a real repository: a mirror made from commits in the test, one snapshot, and the commits
// after it asked against its index. Fixes become pairs with their files and definitions; bots,
// releases, docs-only and message-less commits do not.
// shop is the benchmark's small shop, committed to by the tests.
var shop = filetest.Txtar("../bench/testdata/shop.txtar")

func TestMineTurnsCommitsIntoPairs(t *testing.T) {
	src := t.TempDir()
	filetest.Git(t, src, "init", "-q", "-b", "main")
	commit := func(msg, author string, files map[string]string) {
		filetest.Write(t, src, files)
		filetest.Git(t, src, "add", "-A")
		filetest.Git(t, src, "-c", "user.name="+author, "commit", "-q", "--allow-empty-message", "-m", msg)
	}
	commit("Start the shop", "Ann", shop)
	commit("Describe the cart", "Ann", map[string]string{"README.md": "# shop\n\nA cart and its discounts.\n"})
	commit("Fix discounts that make the total negative (#12)\n\nA coupon larger than the total gave a negative total.", "Ann",
		map[string]string{"shop/discount.py": strings.Replace(shop["shop/discount.py"], "return total - coupon.amount", "return max(0, total - coupon.amount)", 1)})
	commit("Bump the version to 1.2", "Ann", map[string]string{"VERSION": "1.2\n"})
	commit("Update the pinned tools and the cart's item handling", "dependabot[bot]", map[string]string{"shop/cart.py": shop["shop/cart.py"] + "\n# pinned\n"})
	commit("Let the cart take the same item twice by adding up the quantities", "Bob",
		map[string]string{"shop/cart.py": strings.Replace(shop["shop/cart.py"], "self.items.append((name, price, quantity))", "self.items.append((name, price, quantity))  # merged below", 1)})

	mirrors := t.TempDir()
	mirror := filepath.Join(mirrors, "acme+shop", "repo")
	filetest.Git(t, src, "clone", "-q", "--bare", src, mirror)

	var out bytes.Buffer
	n, err := Run(context.Background(), Options{Repos: []string{"acme/shop"}, Mirrors: mirrors, Work: t.TempDir(),
		Snapshots: 1, Queries: 10, Window: 4, Out: &out, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	var pairs []Pair
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var p Pair
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		pairs = append(pairs, p)
	}
	if n != len(pairs) {
		t.Fatalf("%d pairs counted, %d written", n, len(pairs))
	}
	var commits []Pair
	for _, p := range pairs {
		switch p.Shape {
		case "commit":
			commits = append(commits, p)
		case "issue": // the commit before it, asked again with an issue's evidence
			c := commits[len(commits)-1]
			if p.Commit != c.Commit || !strings.HasPrefix(p.Text, c.Text+"\n\n") || !slices.Equal(p.GoldDefs, c.GoldDefs) {
				t.Errorf("an issue-shaped pair that is not its commit's: %q after %q", p.Text, c.Text)
			}
		default:
			t.Errorf("%s: shape %q", p.Commit, p.Shape)
		}
	}
	if len(commits) != 2 {
		t.Fatalf("%d commit pairs, want the two fixes: %+v", len(commits), commits)
	}
	fix, cart := commits[0], commits[1]
	if !fix.PR || !strings.HasPrefix(fix.Text, "Fix discounts") || !slices.Equal(fix.GoldFiles, []string{"shop/discount.py"}) ||
		!slices.Equal(fix.GoldDefs, []string{"shop/discount.py::apply_discount"}) {
		t.Errorf("the discount fix: %+v", fix)
	}
	if cart.PR || !slices.Equal(cart.GoldFiles, []string{"shop/cart.py"}) || !slices.Equal(cart.GoldDefs, []string{"shop/cart.py::Cart.add_item"}) {
		t.Errorf("the cart change: pr %v, files %v, definitions %v", cart.PR, cart.GoldFiles, cart.GoldDefs)
	}
	for _, p := range pairs {
		if p.Repo != "acme/shop" || p.Language != "python" || len(p.Candidates) == 0 {
			t.Fatalf("%s: repo %s language %s, %d candidates", p.Commit, p.Repo, p.Language, len(p.Candidates))
		}
		gold := slices.IndexFunc(p.Candidates, func(c index.CandidateFeatures) bool { return c.Path == p.GoldFiles[0] })
		if gold < 0 || len(p.Candidates[gold].Defs) == 0 {
			t.Errorf("%s: the changed file is not a candidate with its definitions", p.Commit)
		}
		for _, c := range p.Candidates {
			if len(c.X) != len(rank.FileFeatures) {
				t.Fatalf("%s: %d features", c.Path, len(c.X))
			}
		}
	}
}
