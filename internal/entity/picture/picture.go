// Package picture draws a workspace's entity map (the model of package entity) as a picture: the most
// important entities as circles sized by importance, the relations between them as lines as thick as
// they are strong, and the folders the entities live in as coloured regions. It writes SVG, and HTML
// where a click on an entity lists its files with path:line links and its related entities.
package picture

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/internal/entity"
)

// Picture is a laid-out entity map, ready to draw.
type Picture struct {
	Title   string   `json:"title"`
	Root    string   `json:"root"` // absolute workspace root, to make file links
	Focus   string   `json:"focus,omitempty"`
	Width   float64  `json:"width"`
	Height  float64  `json:"height"`
	Nodes   []Node   `json:"nodes"`
	Edges   []Edge   `json:"edges"`
	Regions []Region `json:"regions"`
}

// Node is one entity on the map.
type Node struct {
	Name       string     `json:"name"`
	Importance float64    `json:"importance"`
	Centrality string     `json:"centrality"`
	Region     int        `json:"region"` // index in Picture.Regions
	FileCount  int        `json:"fileCount"`
	Files      []FileLink `json:"files"`
	Related    []string   `json:"related"` // all its related entities, on the map or not
	X          float64    `json:"x"`
	Y          float64    `json:"y"`
	R          float64    `json:"r"`
}

// FileLink is a place in the workspace that is about an entity.
type FileLink struct {
	Path   string `json:"path"` // workspace-relative, slash-separated
	Line   int    `json:"line"`
	Symbol string `json:"symbol,omitempty"`
}

// Edge is a relation between two nodes, by index, with its co-occurrence weight (0..1).
type Edge struct {
	From   int     `json:"from"`
	To     int     `json:"to"`
	Weight float64 `json:"weight"`
}

// Region is a folder that is the main home of some of the entities.
type Region struct {
	Folder string  `json:"folder"`
	Color  string  `json:"color"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	W      float64 `json:"w"`
	H      float64 `json:"h"`
}

// Options choose what the picture shows.
type Options struct {
	Top    int    // how many entities (default 40)
	Entity string // centre the picture on this entity and its neighbourhood
}

// DefaultTop keeps a large project's picture readable: more circles turn it into a hairball.
const DefaultTop = 40

// FilesPerNode bounds the links listed for an entity.
const FilesPerNode = 10

// ErrNoFocus says the entity to centre the picture on is not in the map.
var ErrNoFocus = errors.New("no such entity")

// Draw lays out the entity map es for drawing, the workspace at root; mentions lists the chunks that
// mention an entity, at most limit, the best first (entity.Map.Mentions).
func Draw(es *entity.Map, root string, opts Options, mentions func(e *entity.Entity, limit int) []entity.Mention) (*Picture, error) {
	chosen, focus, err := choose(es, opts)
	if err != nil {
		return nil, err
	}
	m := place(chosen, focus)
	m.Root = root
	for i, e := range chosen {
		m.Nodes[i].Files = links(e, mentions(e, 5*FilesPerNode))
	}
	return m, nil
}

// links lists e's files, most relevant first, at most FilesPerNode, each at the definition in it that
// mentions the entity most (its first line when none does).
func links(e *entity.Entity, mentions []entity.Mention) []FileLink {
	best := map[string]FileLink{}
	for _, c := range mentions {
		if _, ok := best[c.Path]; !ok && c.Symbol != "" {
			best[c.Path] = FileLink{Path: c.Path, Line: max(c.StartLine, 1), Symbol: c.Symbol}
		}
	}
	var out []FileLink
	for _, p := range e.Files {
		if len(out) == FilesPerNode {
			break
		}
		link, ok := best[p]
		if !ok {
			link = FileLink{Path: p, Line: 1}
		}
		out = append(out, link)
	}
	return out
}

// choose picks the entities to draw: the most important ones, or the focus entity, its related
// entities and theirs, up to the same count.
func choose(es *entity.Map, opts Options) ([]*entity.Entity, *entity.Entity, error) {
	top := opts.Top
	if top <= 0 {
		top = DefaultTop
	}
	if opts.Entity == "" {
		n := min(top, len(es.Entities))
		return es.Entities[:n], nil, nil
	}
	focus := es.Get(strings.ReplaceAll(strings.TrimSpace(opts.Entity), " ", "_"))
	if focus == nil {
		return nil, nil, fmt.Errorf("%w: %q", ErrNoFocus, opts.Entity)
	}
	seen := map[string]bool{focus.Name: true}
	out := []*entity.Entity{focus}
	ring := []*entity.Entity{focus}
	for len(ring) > 0 && len(out) < top {
		var next []*entity.Entity
		for _, e := range ring {
			for _, r := range e.Related {
				if len(out) == top {
					break
				}
				x := es.Get(r.Name)
				if x == nil || seen[x.Name] {
					continue
				}
				seen[x.Name] = true
				out = append(out, x)
				next = append(next, x)
			}
		}
		ring = next
	}
	return out, focus, nil
}

// edgesPerNode keeps each entity's strongest relations only, so the picture stays readable.
const edgesPerNode = 3

// relations returns the edges to draw between the chosen entities.
func relations(chosen []*entity.Entity) []Edge {
	at := map[string]int{}
	for i, e := range chosen {
		at[e.Name] = i
	}
	weight := map[[2]int]float64{}
	for i, e := range chosen {
		kept := 0
		for _, r := range e.Related {
			j, ok := at[r.Name]
			if !ok || j == i {
				continue
			}
			k := [2]int{min(i, j), max(i, j)}
			weight[k] = math.Max(weight[k], r.Weight)
			if kept++; kept == edgesPerNode {
				break
			}
		}
	}
	out := make([]Edge, 0, len(weight))
	for k, w := range weight {
		out = append(out, Edge{From: k[0], To: k[1], Weight: w})
	}
	slices.SortFunc(out, func(a, b Edge) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	return out
}

// palette colours the regions; folders past it share the last, grey one.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac"}

// regions gives each entity the folder that is its main home, cut to the depth that tells the chosen
// entities apart best with no more folders than there are colours.
func regions(chosen []*entity.Entity) ([]Region, []int) {
	homes := make([]string, len(chosen))
	for i, e := range chosen {
		if len(e.Modules) > 0 {
			homes[i] = e.Modules[0]
		}
	}
	cut := func(dir string, depth int) string {
		if dir == "" || dir == "." {
			return "(root)"
		}
		parts := strings.Split(dir, "/")
		return strings.Join(parts[:min(depth, len(parts))], "/")
	}
	best, bestCount := 1, 0
	for depth := 1; depth <= 4; depth++ {
		distinct := map[string]bool{}
		for _, h := range homes {
			distinct[cut(h, depth)] = true
		}
		if len(distinct) <= len(palette)-1 && len(distinct) > bestCount {
			best, bestCount = depth, len(distinct)
		}
	}
	count := map[string]int{}
	for _, h := range homes {
		count[cut(h, best)]++
	}
	folders := slices.Collect(maps.Keys(count)) // the most homes first
	slices.SortFunc(folders, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	at := map[string]int{}
	var out []Region
	for _, f := range folders {
		if len(out) == len(palette)-1 {
			at[f] = len(out)
			continue
		}
		at[f] = len(out)
		out = append(out, Region{Folder: f, Color: palette[len(out)]})
	}
	if len(folders) > len(palette)-1 {
		out = append(out, Region{Folder: "(other folders)", Color: palette[len(palette)-1]})
	}
	of := make([]int, len(chosen))
	for i, h := range homes {
		of[i] = at[cut(h, best)]
	}
	return out, of
}
