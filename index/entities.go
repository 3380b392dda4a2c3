package index

import (
	"errors"
	"fmt"

	"github.com/ctxmap/ctxmap/internal/entity"
	"github.com/ctxmap/ctxmap/internal/entity/picture"
)

// EntitySummary is an entity as the lists of entities show it.
type EntitySummary struct {
	Name          string   `json:"name"`
	Importance    float64  `json:"importance"`
	Centrality    string   `json:"centrality"`
	Files         []string `json:"files"`
	Modules       []string `json:"modules"`
	Related       []string `json:"related"` // names, closest first
	Terms         []string `json:"terms"`
	BusinessTerms []string `json:"businessTerms"`
}

// TopEntities are the workspace's entities by importance, at most top (0: DefaultTop).
func (s *Snapshot) TopEntities(top int) []EntitySummary {
	if top <= 0 {
		top = DefaultTop
	}
	out := []EntitySummary{}
	if s.Entities == nil {
		return out
	}
	for i, e := range s.Entities.Entities {
		if i == top {
			break
		}
		sum := EntitySummary{Name: e.Name, Importance: e.Importance, Centrality: e.Centrality, Files: e.Files,
			Modules: e.Modules, Terms: e.Terms, BusinessTerms: e.BusinessTerms, Related: []string{}}
		for _, r := range e.Related {
			sum.Related = append(sum.Related, r.Name)
		}
		out = append(out, sum)
	}
	return out
}

// Shortened cuts each of the summary's lists to at most n.
func (e EntitySummary) Shortened(n int) EntitySummary {
	e.Files, e.Modules, e.Related = firstOf(e.Files, n), firstOf(e.Modules, n), firstOf(e.Related, n)
	e.Terms, e.BusinessTerms = firstOf(e.Terms, n), firstOf(e.BusinessTerms, n)
	return e
}

// Picture is the entity map laid out for drawing, with its SVG and HTML renderings.
type Picture = picture.Picture

// EntityPicture lays out the entity map of the current snapshot for drawing (as SVG or HTML): the top
// most important entities (0: picture.DefaultTop), or, with focus, that entity and its neighbourhood.
func (ix *Index) EntityPicture(top int, focus string) (*Picture, error) {
	es := ix.Snapshot().Entities
	if es == nil || len(es.Entities) == 0 {
		return nil, fmt.Errorf("%s has no entities yet", ix.Root())
	}
	p, err := picture.Draw(es, ix.Root(), picture.Options{Top: top, Entity: focus}, ix.entityLinks)
	if errors.Is(err, picture.ErrNoFocus) {
		return nil, fmt.Errorf("%w %q", ErrUnknownEntity, focus)
	}
	return p, err
}

// entityLinks lists an entity's files, most relevant first, each at the definition in it that
// mentions the entity most (its first line when none does).
func (ix *Index) entityLinks(e *entity.Entity) []picture.FileLink {
	best := map[string]picture.FileLink{}
	if ex, err := ix.Explore(e.Name, 5*picture.FilesPerNode); err == nil {
		for _, c := range ex.Chunks {
			if _, ok := best[c.Path]; !ok && c.Symbol != "" {
				best[c.Path] = picture.FileLink{Path: c.Path, Line: max(c.StartLine, 1), Symbol: c.Symbol}
			}
		}
	}
	var out []picture.FileLink
	for _, p := range e.Files {
		if len(out) == picture.FilesPerNode {
			break
		}
		link, ok := best[p]
		if !ok {
			link = picture.FileLink{Path: p, Line: 1}
		}
		out = append(out, link)
	}
	return out
}
