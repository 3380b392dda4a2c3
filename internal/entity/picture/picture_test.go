package picture_test

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/entity/picture"
	"github.com/ctxmap/ctxmap/internal/shoptest"
)

// shop indexes testdata/shop.txtar in a temporary workspace.
func shop(t *testing.T) *index.Index {
	t.Helper()
	root := shoptest.Write(t, shoptest.Files(t))
	ix, err := index.Open(context.Background(), index.Options{Root: root, InMemory: true, Config: &index.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

func names(m *picture.Picture) map[string]int {
	out := map[string]int{}
	for i, n := range m.Nodes {
		out[n.Name] = i
	}
	return out
}

func TestMapOfShop(t *testing.T) {
	ix := shop(t)
	m, err := ix.EntityPicture(0, "")
	if err != nil {
		t.Fatal(err)
	}
	at := names(m)
	for _, want := range []string{"CART", "ORDER", "PAYMENT", "STOCK", "INVENTORY", "DISCOUNT"} {
		if _, ok := at[want]; !ok {
			t.Errorf("the map lacks %s; it has %v", want, at)
		}
	}
	if len(m.Edges) == 0 {
		t.Fatal("no relations drawn")
	}
	for _, e := range m.Edges {
		if e.From == e.To || e.From >= len(m.Nodes) || e.To >= len(m.Nodes) || e.Weight <= 0 {
			t.Errorf("bad edge %+v", e)
		}
	}
	cart := m.Nodes[at["CART"]]
	if len(cart.Files) == 0 || !strings.HasPrefix(cart.Files[0].Path, "shop/") || cart.Files[0].Line < 1 {
		t.Errorf("CART's first file link is not a place in shop/: %+v", cart.Files)
	}
	// more important entities are drawn larger
	if m.Nodes[at["CART"]].R <= m.Nodes[at["LINE"]].R {
		t.Errorf("CART (%.2f) drawn no larger than LINE (%.2f)", m.Nodes[at["CART"]].R, m.Nodes[at["LINE"]].R)
	}
	for i, a := range m.Nodes {
		if a.X-a.R < 0 || a.Y-a.R < 0 || a.X+a.R > m.Width || a.Y+a.R > m.Height {
			t.Errorf("%s at (%.0f,%.0f) is off the %0.fx%.0f page", a.Name, a.X, a.Y, m.Width, m.Height)
		}
		for _, b := range m.Nodes[i+1:] {
			if math.Hypot(a.X-b.X, a.Y-b.Y) < a.R+b.R {
				t.Errorf("%s and %s overlap", a.Name, b.Name)
			}
		}
	}
	if m.Regions[cart.Region].Folder != "shop" {
		t.Errorf("CART's region is %q, want shop", m.Regions[cart.Region].Folder)
	}

	again, err := ix.EntityPicture(0, "")
	if err != nil {
		t.Fatal(err)
	}
	var x, y bytes.Buffer
	if err := m.WriteSVG(&x); err != nil {
		t.Fatal(err)
	}
	if err := again.WriteSVG(&y); err != nil {
		t.Fatal(err)
	}
	if x.String() != y.String() {
		t.Error("the same index drew two different pictures")
	}
}

func TestMapAroundAnEntity(t *testing.T) {
	ix := shop(t)
	m, err := ix.EntityPicture(5, "cart")
	if err != nil {
		t.Fatal(err)
	}
	if m.Focus != "CART" || m.Nodes[0].Name != "CART" || len(m.Nodes) != 5 {
		t.Fatalf("focus %q, nodes %v; want CART first of 5", m.Focus, names(m))
	}
	if _, ok := names(m)["DISCOUNT"]; !ok {
		t.Errorf("CART's related DISCOUNT is not on its map: %v", names(m))
	}
	_, err = ix.EntityPicture(0, "spaceship")
	if !errors.Is(err, index.ErrUnknownEntity) {
		t.Errorf("unknown entity: got %v", err)
	}
}

// TestMapRendersInChromium draws the map in a real browser: the SVG's screenshot has the regions'
// colours on it, and the HTML page, once its script ran and an entity was clicked, names the entities and
// lists the clicked one's files.
func TestMapRendersInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (apt-get install chromium)")
		}
		t.Skip("chromium is not installed")
	}
	ix := shop(t)
	m, err := ix.EntityPicture(0, "")
	if err != nil {
		t.Fatal(err)
	}
	m.Title = "Entities of shop"
	dir := t.TempDir()
	write := func(name string, draw func(*bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := draw(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	svg := write("map.svg", func(b *bytes.Buffer) error { return m.WriteSVG(b) })
	// the page selects CART at load, as a click would
	m.Focus = "CART"
	page := write("map.html", func(b *bytes.Buffer) error { return m.WriteHTML(b) })

	browse := func(args ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
			"--user-data-dir=" + t.TempDir()}
		out, err := exec.CommandContext(ctx, chromium, append(base, args...)...).Output()
		if err != nil {
			t.Fatalf("chromium %v: %v", args, err)
		}
		return out
	}

	shot := filepath.Join(dir, "map.png")
	browse("--hide-scrollbars", "--window-size=1200,900", "--screenshot="+shot, "file://"+svg)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	colours := map[[3]uint32]int{}
	inked := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 < 240 || g>>8 < 240 || b>>8 < 240 {
				inked++
				colours[[3]uint32{r >> 12, g >> 12, b >> 12}]++
			}
		}
	}
	if share := float64(inked) / float64(bounds.Dx()*bounds.Dy()); share < 0.02 {
		t.Errorf("the screenshot is nearly blank: %.1f%% inked", 100*share)
	}
	many := 0
	for _, n := range colours {
		if n > 200 {
			many++
		}
	}
	if many < 3 {
		t.Errorf("the screenshot has %d colours in any quantity, want the regions' colours", many)
	}

	dom := string(browse("--virtual-time-budget=2000", "--dump-dom", "file://"+page))
	for _, want := range []string{">CART<", ">ORDER<", ">PAYMENT<", ">STOCK<", `class="file"`, "shop/cart.py:", `class="related"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
}
