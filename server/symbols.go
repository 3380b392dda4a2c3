package server

import (
	"bytes"
	"context"
	"path/filepath"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
)

func (s *Server) workspaceSymbol(ctx context.Context, p protocol.WorkspaceSymbolParams) (any, error) {
	release(ctx)
	// a client shows a short list and asks again as the user types: each root's best, the first
	// folder's first
	var out []protocol.SymbolInformation
	for _, sess := range s.sessions() {
		if len(out) == index.MaxSymbols { // a limit of 0 is FindSymbols' default
			break
		}
		for _, d := range sess.Snapshot(ctx).FindSymbols(p.Query, "", index.MaxSymbols-len(out)) {
			out = append(out, symbolInformation(sess.Root(), d))
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// symbolInformation is a definition of the workspace at root as LSP gives it.
func symbolInformation(root string, d index.Symbol) protocol.SymbolInformation {
	return protocol.SymbolInformation{
		Name:          d.Name,
		Kind:          symbolKind(d.Kind),
		ContainerName: d.Parent,
		Location: protocol.Location{
			URI: protocol.DocumentURI(index.FileURI(filepath.Join(root, filepath.FromSlash(d.Path)))),
			Range: protocol.Range{
				Start: protocol.Position{Line: uint32(d.StartLine - 1)},
				End:   protocol.Position{Line: uint32(d.EndLine)},
			},
		},
	}
}

func (s *Server) documentSymbol(ctx context.Context, p protocol.DocumentSymbolParams) (any, error) {
	text, pl, err := s.text(string(p.TextDocument.URI))
	if err != nil || pl.rel == "" {
		return nil, nil
	}
	release(ctx)
	rec := pl.sess.Snapshot(ctx).Record(pl.rel)
	if rec == nil || rec.File == nil {
		return nil, nil
	}
	return outline(rec.File.Definitions, newLineIndex(text)), nil
}

// outline nests a file's definitions: a definition goes under the closest one before it that is named
// as its parent (or, for Markdown, is its parent heading) and whose lines hold it.
func outline(defs []index.Definition, lines *lineIndex) []protocol.DocumentSymbol {
	type node struct {
		sym      protocol.DocumentSymbol
		children []int
	}
	nodes := make([]node, len(defs))
	var roots []int
	for i, d := range defs {
		nodes[i].sym = documentSymbol(d, lines)
		parent := -1
		if d.Parent != "" {
			for j := i - 1; j >= 0; j-- {
				if defs[j].Name == d.Parent && defs[j].StartLine <= d.StartLine && d.EndLine <= defs[j].EndLine {
					parent = j
					break
				}
			}
		}
		if parent >= 0 {
			nodes[parent].children = append(nodes[parent].children, i)
		} else {
			roots = append(roots, i)
		}
	}
	var build func(i int) protocol.DocumentSymbol
	build = func(i int) protocol.DocumentSymbol {
		sym := nodes[i].sym
		for _, c := range nodes[i].children {
			sym.Children = append(sym.Children, build(c))
		}
		return sym
	}
	out := make([]protocol.DocumentSymbol, 0, len(roots))
	for _, i := range roots {
		out = append(out, build(i))
	}
	return out
}

func documentSymbol(d index.Definition, lines *lineIndex) protocol.DocumentSymbol {
	start := min(max(d.StartByte, 0), len(lines.text))
	end := min(max(d.EndByte, start), len(lines.text))
	r := protocol.Range{Start: lines.position(start), End: lines.position(end)}
	sel := protocol.Range{Start: r.Start, End: r.Start}
	// the name's first occurrence on the declaration's first line
	first := lines.text[start:end]
	if nl := bytes.IndexByte(first, '\n'); nl >= 0 {
		first = first[:nl]
	}
	if i := bytes.Index(first, []byte(d.Name)); i >= 0 && d.Name != "" {
		sel = protocol.Range{Start: lines.position(start + i), End: lines.position(start + i + len(d.Name))}
	}
	name := d.Name
	if name == "" {
		name = "(anonymous)"
	}
	return protocol.DocumentSymbol{Name: name, Detail: d.Signature, Kind: symbolKind(d.Kind), Range: r, SelectionRange: sel}
}

func symbolKind(kind string) protocol.SymbolKind {
	switch kind {
	case "function", "macro":
		return protocol.SymbolKindFunction
	case "method":
		return protocol.SymbolKindMethod
	case "class", "type":
		return protocol.SymbolKindClass
	case "struct":
		return protocol.SymbolKindStruct
	case "interface", "trait":
		return protocol.SymbolKindInterface
	case "enum":
		return protocol.SymbolKindEnum
	case "module":
		return protocol.SymbolKindModule
	case "namespace":
		return protocol.SymbolKindNamespace
	case "constant":
		return protocol.SymbolKindConstant
	case "variable":
		return protocol.SymbolKindVariable
	case "field":
		return protocol.SymbolKindField
	case "constructor":
		return protocol.SymbolKindConstructor
	case "section":
		return protocol.SymbolKindString
	}
	return protocol.SymbolKindObject
}
