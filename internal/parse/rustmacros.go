package parse

import (
	"bytes"
	"context"

	sitter "github.com/smacker/go-tree-sitter"
)

// Rust code often sits in a macro's block: cfg_rt! { pub fn f() {} }, whose body tree-sitter keeps as
// a token tree, not as items. rustItemMacros finds such blocks whose body reads as items, writes each
// block's name!, { and } over with spaces (offsets and lines stay) and parses the file again, so that
// the items are seen where they stand. A block whose body is not Rust after all (a macro's own syntax)
// makes errors in the second tree: such blocks are left as they were, in a third parse. It returns
// tree itself when no block reads as items.
func rustItemMacros(ctx context.Context, p *Parser, l *language, tree *sitter.Tree, src []byte) (*sitter.Tree, error) {
	if !bytes.Contains(src, []byte("!")) {
		return tree, nil
	}
	blocks := itemBlocks(tree.RootNode(), src)
	for round := 0; len(blocks) > 0; round++ {
		again, err := p.tree(ctx, l, blankBlocks(src, blocks))
		if err != nil {
			tree.Close()
			return nil, err
		}
		var good []itemBlock
		if root := again.RootNode(); root.HasError() && round == 0 {
			for _, b := range blocks {
				if !erred(root, b.start, b.end) {
					good = append(good, b)
				}
			}
		} else {
			good = blocks
		}
		if len(good) == len(blocks) {
			tree.Close()
			return again, nil
		}
		again.Close()
		blocks = good
	}
	return tree, nil
}

// itemBlock is a macro block to read as items: the spans to blank and the block's whole range.
type itemBlock struct {
	start, end uint32
	spans      [][2]uint32
}

// itemBlocks lists the outermost macro blocks whose bodies read as items, at the top of the file
// and in impl, mod and trait bodies.
func itemBlocks(root *sitter.Node, src []byte) []itemBlock {
	var out []itemBlock
	var items func(n *sitter.Node)
	items = func(n *sitter.Node) {
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			switch c.Type() {
			case "expression_statement":
				if m := c.NamedChild(0); m != nil && m.Type() == "macro_invocation" {
					c = m
				}
			case "impl_item", "mod_item", "trait_item":
				if b := c.ChildByFieldName("body"); b != nil {
					items(b)
				}
				continue
			}
			if c.Type() == "macro_invocation" {
				if spans := itemMacro(c, src, nil); len(spans) > 0 {
					out = append(out, itemBlock{c.StartByte(), c.EndByte(), spans})
				}
			}
		}
	}
	items(root)
	return out
}

// blankBlocks is src with the blocks' spans written over with spaces.
func blankBlocks(src []byte, blocks []itemBlock) []byte {
	out := bytes.Clone(src)
	for _, b := range blocks {
		for _, s := range b.spans {
			for i := s[0]; i < s[1] && int(i) < len(out); i++ {
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
		}
	}
	return out
}

// erred says whether an error of the tree under n touches the range start-end.
func erred(n *sitter.Node, start, end uint32) bool {
	if !n.HasError() || n.EndByte() <= start || n.StartByte() >= end {
		return false
	}
	if n.IsError() || n.IsMissing() {
		return true
	}
	for i := 0; i < int(n.ChildCount()); i++ {
		if erred(n.Child(i), start, end) {
			return true
		}
	}
	return false
}

// itemMacro blanks the macro invocation m (name! { items }) when its body reads as items, and the
// item blocks nested in that body.
func itemMacro(m *sitter.Node, src []byte, blank [][2]uint32) [][2]uint32 {
	name := m.ChildByFieldName("macro")
	var body *sitter.Node
	for i := int(m.ChildCount()) - 1; i >= 0; i-- {
		if c := m.Child(i); c.Type() == "token_tree" {
			body = c
			break
		}
	}
	if name == nil || name.Type() != "identifier" || body == nil {
		return blank
	}
	return blockOfItems(name, body, src, blank)
}

// blockOfItems blanks name, the '!' after it and the braces of body when body's first tokens open
// an item, then looks for such blocks inside body.
func blockOfItems(name, body *sitter.Node, src []byte, blank [][2]uint32) [][2]uint32 {
	n := int(body.ChildCount())
	if n < 2 || body.Child(0).Type() != "{" || body.Child(n-1).Type() != "}" || !opensItem(body, src) {
		return blank
	}
	if string(text(name, src)) == "lazy_static" { // static ref NAME: T = ...; is no item
		return blank
	}
	blank = append(blank, [2]uint32{name.StartByte(), body.StartByte() + 1}, [2]uint32{body.EndByte() - 1, body.EndByte()})
	for i := 1; i+2 < n; i++ {
		a, bang, tree := body.Child(i), body.Child(i+1), body.Child(i+2)
		if a.Type() == "identifier" && bang.Type() == "!" && tree.Type() == "token_tree" {
			blank = blockOfItems(a, tree, src, blank)
		}
	}
	return blank
}

// itemWords open an item in Rust.
var itemWords = map[string]bool{
	"pub": true, "fn": true, "struct": true, "enum": true, "impl": true, "mod": true, "use": true, "trait": true,
	"type": true, "const": true, "static": true, "unsafe": true, "async": true, "extern": true, "union": true,
	"macro_rules": true,
}

// opensItem says whether the token tree's first token after its brace, past comments and
// attributes, opens an item, or a nested name! { ... }.
func opensItem(body *sitter.Node, src []byte) bool {
	n := int(body.ChildCount())
	for i := 1; i < n-1; i++ {
		c := body.Child(i)
		switch t := c.Type(); {
		case t == "line_comment" || t == "block_comment":
			continue
		case t == "#":
			i++ // the attribute's [...]
			continue
		case itemWords[string(text(c, src))]:
			return true
		case t == "identifier":
			return i+2 < n && body.Child(i+1).Type() == "!" && body.Child(i+2).Type() == "token_tree"
		default:
			return false
		}
	}
	return false
}
