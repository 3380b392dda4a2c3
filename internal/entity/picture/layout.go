package picture

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/layout"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/ctxmap/ctxmap/internal/entity"
)

// Pulls that shape the layout besides the drawn relations: entities of one folder stay near each other,
// and a hidden hub keeps unrelated entities from drifting off the page.
const (
	sameRegionPull = 0.1
	hubPull        = 0.05
	layoutUpdates  = 1500
	canvasWidth    = 1100.0
	spreadMin      = 640.0 // room for the title and legend
	margin         = 40.0
	titleSpace     = 40.0
)

// place lays out the chosen entities with gonum's force-directed Eades layout, then pushes apart
// circles and labels that still overlap and fits the result to the canvas.
func place(chosen []*entity.Entity, focus *entity.Entity) *Picture {
	regs, regionOf := regions(chosen)
	edges := relations(chosen)
	m := &Picture{Regions: regs, Edges: edges}
	if focus != nil {
		m.Focus = focus.Name
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range chosen {
		lo, hi = math.Min(lo, e.Importance), math.Max(hi, e.Importance)
	}
	for i, e := range chosen {
		// sized by importance among the entities drawn, so that the top ones stand out on any project
		rel := 1.0
		if hi > lo {
			rel = (e.Importance - lo) / (hi - lo)
		}
		n := Node{Name: e.Name, Importance: e.Importance, Centrality: e.Centrality, Region: regionOf[i],
			FileCount: len(e.Files), Related: []string{}, R: 7 + 21*math.Sqrt(rel)}
		for _, r := range e.Related {
			n.Related = append(n.Related, r.Name)
		}
		m.Nodes = append(m.Nodes, n)
	}

	g := orderedGraph{simple.NewWeightedUndirectedGraph(0, 0)}
	for i := range m.Nodes {
		g.AddNode(simple.Node(i))
	}
	hub := simple.Node(len(m.Nodes))
	g.AddNode(hub)
	pull := map[[2]int]float64{}
	for _, e := range edges {
		pull[[2]int{e.From, e.To}] += 0.5 + e.Weight
	}
	for i := range m.Nodes {
		for j := i + 1; j < len(m.Nodes); j++ {
			if m.Nodes[i].Region == m.Nodes[j].Region {
				pull[[2]int{i, j}] += sameRegionPull
			}
		}
		g.SetWeightedEdge(g.NewWeightedEdge(simple.Node(i), hub, hubPull))
	}
	for k, w := range pull {
		g.SetWeightedEdge(g.NewWeightedEdge(simple.Node(k[0]), simple.Node(k[1]), w))
	}
	eades := layout.EadesR2{Updates: layoutUpdates, Repulsion: 1, Rate: 0.01, Theta: 0.2, Src: rand.NewPCG(1, 2)}
	opt := layout.NewOptimizerR2(g, eades.Update)
	for opt.Update() {
	}
	for i := range m.Nodes {
		p := opt.Coord2(int64(i))
		m.Nodes[i].X, m.Nodes[i].Y = p.X, p.Y
	}
	pullIn(m)
	fit(m)
	separate(m)
	bound(m)
	return m
}

// orderedGraph hands out nodes in ID order so that the same entities always give the same picture.
type orderedGraph struct {
	*simple.WeightedUndirectedGraph
}

func (g orderedGraph) Nodes() graph.Nodes { return ordered(g.WeightedUndirectedGraph.Nodes()) }

func (g orderedGraph) From(id int64) graph.Nodes {
	return ordered(g.WeightedUndirectedGraph.From(id))
}

func ordered(it graph.Nodes) graph.Nodes {
	var ns []graph.Node
	for it.Next() {
		ns = append(ns, it.Node())
	}
	slices.SortFunc(ns, func(a, b graph.Node) int { return int(a.ID() - b.ID()) })
	return iterator.NewOrderedNodes(ns)
}

// labelWidth estimates a label's width in pixels at the font size the drawing uses.
func labelWidth(name string) float64 { return 7.2 * float64(len(name)) }

// extent is how far from its centre a node's circle or label reaches, for overlap checks.
func extent(n Node) float64 { return math.Max(n.R, labelWidth(n.Name)/2) + 6 }

// pullIn brings entities with no drawn relation, which the layout pushes far off, to the edge of the
// others so that they do not shrink the picture.
func pullIn(m *Picture) {
	if len(m.Nodes) < 3 {
		return
	}
	var cx, cy float64
	for _, n := range m.Nodes {
		cx, cy = cx+n.X, cy+n.Y
	}
	cx, cy = cx/float64(len(m.Nodes)), cy/float64(len(m.Nodes))
	ds := make([]float64, len(m.Nodes))
	for i, n := range m.Nodes {
		ds[i] = math.Hypot(n.X-cx, n.Y-cy)
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	limit := 1.5 * sorted[len(sorted)*3/4]
	for i := range m.Nodes {
		if ds[i] > limit {
			k := limit / ds[i]
			m.Nodes[i].X, m.Nodes[i].Y = cx+(m.Nodes[i].X-cx)*k, cy+(m.Nodes[i].Y-cy)*k
		}
	}
}

// fit scales the layout to a spread that grows with the number of entities, keeping proportions.
func fit(m *Picture) {
	if len(m.Nodes) == 0 {
		return
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, n := range m.Nodes {
		minX, maxX = math.Min(minX, n.X), math.Max(maxX, n.X)
		minY, maxY = math.Min(minY, n.Y), math.Max(maxY, n.Y)
	}
	span := math.Max(maxX-minX, maxY-minY)
	if span == 0 {
		span = 1
	}
	// a few entities spread less than many, so that their circles and labels stay legible when scaled
	spread := math.Min(math.Max(150*math.Sqrt(float64(len(m.Nodes))), 420), canvasWidth-2*margin-120)
	scale := spread / span
	for i := range m.Nodes {
		m.Nodes[i].X = (m.Nodes[i].X - minX) * scale
		m.Nodes[i].Y = (m.Nodes[i].Y - minY) * scale
	}
}

// separate pushes overlapping nodes apart (circles and labels), a few pixels at a time.
func separate(m *Picture) {
	for round := 0; round < 200; round++ {
		moved := false
		for i := range m.Nodes {
			for j := i + 1; j < len(m.Nodes); j++ {
				a, b := &m.Nodes[i], &m.Nodes[j]
				dx, dy := b.X-a.X, b.Y-a.Y
				// labels are wide and short: measure vertical distance as if it were wider
				need := extent(*a) + extent(*b)
				d := math.Hypot(dx, dy*2.2)
				if d >= need {
					continue
				}
				moved = true
				if d < 1e-6 {
					dx, dy, d = 1, float64(j%3)-1, 1
				}
				push := (need - d) / 2 / d
				a.X, a.Y = a.X-dx*push, a.Y-dy*push/2.2
				b.X, b.Y = b.X+dx*push, b.Y+dy*push/2.2
			}
		}
		if !moved {
			return
		}
	}
}

// bound moves the layout into the page, sets the page's size and draws each region's box around its
// nodes.
func bound(m *Picture) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, n := range m.Nodes {
		e := extent(n)
		minX, maxX = math.Min(minX, n.X-e), math.Max(maxX, n.X+e)
		minY, maxY = math.Min(minY, n.Y-n.R-8), math.Max(maxY, n.Y+n.R+22)
	}
	for i := range m.Nodes {
		m.Nodes[i].X += margin - minX
		m.Nodes[i].Y += margin + titleSpace - minY
	}
	m.Width = math.Max(spreadMin, maxX-minX+2*margin)
	m.Height = maxY - minY + 2*margin + titleSpace + legendHeight(m)
	for r := range m.Regions {
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, n := range m.Nodes {
			if n.Region != r {
				continue
			}
			e := extent(n)
			x0, x1 = math.Min(x0, n.X-e), math.Max(x1, n.X+e)
			y0, y1 = math.Min(y0, n.Y-n.R-6), math.Max(y1, n.Y+n.R+20)
		}
		m.Regions[r].X, m.Regions[r].Y, m.Regions[r].W, m.Regions[r].H = x0, y0, x1-x0, y1-y0
	}
}

// legendHeight is the room below the map for the folders' colours.
func legendHeight(m *Picture) float64 { return 22 * float64((len(m.Regions)+2)/3) }
