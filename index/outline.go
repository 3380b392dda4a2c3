package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/ctxmap/ctxmap/internal/outline"
	"github.com/ctxmap/ctxmap/internal/pack"
	"github.com/ctxmap/ctxmap/internal/parse"
)

// DefaultOutlineBudget is an outline's size when the request names none: a map to read beside a
// question, not a pack.
const DefaultOutlineBudget = 1024

// OutlineRequest asks for a map of the workspace: its files in rank order, each with the signatures of
// its chief definitions, within a token budget.
type OutlineRequest struct {
	Budget    int    // tokens; 0: DefaultOutlineBudget
	Entity    string // centre the map on this entity's files
	Text      string // centre the map on the files a pack for this text ranks first
	Tokenizer string // "": the configuration's

	ranked []string // the files a pack for Text ranks, best first (Centre)
}

// Centre readies a map centred on a text: a pack for it is answered by src, as every pack is (Answer),
// and its files, best first, are the map's centre. Nothing to do for another map.
func (r *OutlineRequest) Centre(ctx context.Context, src Source) error {
	if err := r.check(); err != nil || r.Text == "" {
		return err
	}
	res, err := Answer(ctx, src, Request{Text: r.Text, Tokenizer: r.Tokenizer})
	if err != nil {
		return err
	}
	r.ranked = make([]string, len(res.Files))
	for i, f := range res.Files {
		r.ranked[i] = f.Path
	}
	return nil
}

// check says what is wrong with a map's request; the error wraps ErrInvalid.
func (r OutlineRequest) check() error {
	if budget := cmp.Or(r.Budget, DefaultOutlineBudget); budget < MinBudget {
		return invalidf("budget %d is below the minimum of %d tokens", budget, MinBudget)
	}
	if r.Entity != "" && r.Text != "" {
		return invalidf("centre the map on an entity or on a text, not both")
	}
	return nil
}

// Outline is the map: the files that fit the budget, best first, and their rendering.
type Outline = outline.Outline

// Outline draws the map (one centred on a text readied by Centre). Files are ranked by the reference graph (PageRank), from every file alike
// or, when centred, from the entity's files or the files a pack for the text ranks; tests rank below
// the code they test. A file's definitions are the ones most named by other files.
func (ix *Index) Outline(ctx context.Context, req OutlineRequest) (*Outline, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	budget := cmp.Or(req.Budget, DefaultOutlineBudget)
	name := req.Tokenizer
	if name == "" {
		name = ix.cfg.Tokenizer
	}
	tok, err := pack.NewTokenizer(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	s := ix.Snapshot()
	if len(s.Paths) == 0 || s.Graph == nil {
		return nil, fmt.Errorf("%s holds no file ctxmap can read", s.Root)
	}

	seeds := map[string]float64{}
	centre := ""
	switch {
	case req.Entity != "":
		ex, err := ix.Explore(req.Entity, 1)
		if err != nil {
			return nil, err
		}
		centre = ex.Entity.Name
		for _, p := range ex.Entity.Files {
			seeds[p] = 1
		}
	case req.Text != "":
		if req.ranked == nil {
			return nil, errors.New("a map centred on a text is readied by OutlineRequest.Centre")
		}
		centre = req.Text
		for i, p := range req.ranked {
			seeds[p] = 1 / float64(i+1) // by rank: scores of different signals do not add up
		}
	default:
		for _, p := range s.Paths {
			seeds[p] = 1
		}
	}
	w := outline.Workspace{Root: s.Root, Paths: s.Paths, Graph: s.Graph,
		File: func(p string) (string, *parse.File) {
			if r := s.Record(p); r != nil {
				return r.Language, r.File
			}
			return "", nil
		},
		Definers: func(name string) int { return len(s.Symbols[name]) }}
	return outline.Draw(ctx, w, seeds, centre, budget, tok)
}
