package server

import (
	"context"
	"path"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
)

const copyContextTitle = "Copy context for LLM"

// rangeArg is the argument of a ctxmap.copyContext lens: the client passes it on to ctxmap.context.
type rangeArg struct {
	URI   string         `json:"uri"`
	Range protocol.Range `json:"range"`
}

func (s *Server) codeLens(ctx context.Context, p protocol.CodeLensParams) (any, error) {
	uri := string(p.TextDocument.URI)
	text, pl, err := s.text(uri)
	if err != nil || pl.rel == "" {
		return nil, nil
	}
	release(ctx)
	rec := pl.sess.Snapshot(ctx).Record(pl.rel)
	return lenses(uri, pl.rel, rec, newLineIndex(text)), nil
}

// lenses are the "copy context" lenses of a file: above each TODO/FIXME/BUG/XXX comment, and above
// each heading of a file that holds issues.
func lenses(uri, rel string, rec *index.Record, lines *lineIndex) []protocol.CodeLens {
	if rec == nil || rec.File == nil {
		return nil
	}
	var out []protocol.CodeLens
	add := func(startLine, endLine int) {
		if startLine < 1 || startLine > lines.lines() {
			return // the record is older than the buffer
		}
		endLine = min(max(endLine, startLine), lines.lines())
		r := protocol.Range{Start: protocol.Position{Line: uint32(startLine - 1)}, End: lines.lineEnd(endLine - 1)}
		out = append(out, protocol.CodeLens{Range: r, Command: &protocol.Command{
			Title: copyContextTitle, Command: cmdCopyContext, Arguments: []any{rangeArg{URI: uri, Range: r}},
		}})
	}
	for _, c := range rec.File.Comments {
		if c.Marker != "" {
			add(c.StartLine, c.EndLine)
		}
	}
	if issueLike(rel) {
		for _, d := range rec.File.Definitions {
			if d.Kind == "section" {
				add(d.StartLine, d.EndLine)
			}
		}
	}
	return out
}

// issueLike says whether a file holds issues or bug reports by its name: ISSUE*, BUG*, TODO*,
// *.issue.md, or anything under an issues/ folder.
func issueLike(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	for _, prefix := range []string{"issue", "bug", "todo"} {
		if strings.HasPrefix(base, prefix) {
			return true
		}
	}
	if strings.HasSuffix(base, ".issue.md") {
		return true
	}
	for _, dir := range strings.Split(path.Dir(rel), "/") {
		if strings.EqualFold(dir, "issues") {
			return true
		}
	}
	return false
}
