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

// shopHistory is a mirror of the shop with fixes, a release, a bot's commit and a docs change, and
// the commits' hashes, oldest first.
func shopHistory(t *testing.T) (mirrors string, hashes []string) {
	src := t.TempDir()
	filetest.Git(t, src, "init", "-q", "-b", "main")
	commit := func(msg, author string, files map[string]string) {
		filetest.Write(t, src, files)
		filetest.Git(t, src, "add", "-A")
		filetest.Git(t, src, "-c", "user.name="+author, "commit", "-q", "--allow-empty-message", "-m", msg)
		hashes = append(hashes, strings.TrimSpace(filetest.Git(t, src, "rev-parse", "HEAD")))
	}
	commit("Start the shop", "Ann", shop)
	commit("Describe the cart", "Ann", map[string]string{"README.md": "# shop\n\nA cart and its discounts.\n"})
	commit("Fix discounts that make the total negative (#12)\n\nA coupon larger than the total gave a negative total.", "Ann",
		map[string]string{"shop/discount.py": strings.Replace(shop["shop/discount.py"], "return total - coupon.amount", "return max(0, total - coupon.amount)", 1)})
	commit("Bump the version to 1.2", "Ann", map[string]string{"VERSION": "1.2\n"})
	commit("Update the pinned tools and the cart's item handling", "dependabot[bot]", map[string]string{"shop/cart.py": shop["shop/cart.py"] + "\n# pinned\n"})
	commit("Let the cart take the same item twice by adding up the quantities", "Bob",
		map[string]string{"shop/cart.py": strings.Replace(shop["shop/cart.py"], "self.items.append((name, price, quantity))", "self.items.append((name, price, quantity))  # merged below", 1)})

	mirrors = t.TempDir()
	filetest.Git(t, src, "clone", "-q", "--bare", src, filepath.Join(mirrors, "acme+shop", "repo"))
	return mirrors, hashes
}

func TestMineTurnsCommitsIntoPairs(t *testing.T) {
	mirrors, _ := shopHistory(t)
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

// An issue as its reporter wrote it is asked at the parent of its fix, with what the fix changed as
// the answer; a report whose commit the mirror lacks is passed over, and the others still mined.
func TestReportsAreAskedBeforeTheirFix(t *testing.T) {
	mirrors, hashes := shopHistory(t)
	fix, cart := hashes[2], hashes[5]
	in := strings.Join([]string{
		`{"repo": "acme/shop", "commit": "` + cart + `", "text": "Adding an item twice lists it twice in the cart"}`,
		`{"repo": "acme/shop", "commit": "` + strings.Repeat("0", 40) + `", "text": "A commit the mirror does not have"}`,
		`{"repo": "acme/shop", "commit": "` + fix + `", "text": "Total below zero\n\nWith a coupon of 50 on a cart of 30 the checkout shows -20."}`,
	}, "\n")
	reports, err := ReadReports(strings.NewReader(in))
	if err != nil || len(reports) != 3 {
		t.Fatalf("%d reports, %v", len(reports), err)
	}
	var out bytes.Buffer
	n, err := RunReports(context.Background(), Options{Mirrors: mirrors, Work: t.TempDir(), Out: &out, Logf: t.Logf}, reports)
	if err != nil || n != 2 {
		t.Fatalf("%d pairs, %v", n, err)
	}
	var pairs []Pair
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var p Pair
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, p)
	}
	// in the order of their fixes, each at its fix's parent
	if pairs[0].Commit != fix || pairs[0].Snapshot != hashes[1] || pairs[1].Commit != cart || pairs[1].Snapshot != hashes[4] {
		t.Fatalf("pairs for %s@%s and %s@%s", pairs[0].Commit, pairs[0].Snapshot, pairs[1].Commit, pairs[1].Snapshot)
	}
	p := pairs[0]
	if p.Shape != "reported" || !strings.HasPrefix(p.Text, "Total below zero") || p.Language != "python" ||
		!slices.Equal(p.GoldFiles, []string{"shop/discount.py"}) || !slices.Equal(p.GoldDefs, []string{"shop/discount.py::apply_discount"}) {
		t.Errorf("the discount report: %+v", p)
	}
	if !slices.ContainsFunc(p.Candidates, func(c index.CandidateFeatures) bool { return c.Path == "shop/discount.py" && len(c.Defs) > 0 }) {
		t.Errorf("the fixed file is not a candidate with its definitions")
	}
	if _, err := ReadReports(strings.NewReader(`{"repo": "acme/shop", "text": "no commit"}`)); err == nil {
		t.Errorf("a report without its commit was read")
	}
}
