package parse

import (
	"bytes"

	sitter "github.com/smacker/go-tree-sitter"
)

// Rust code often sits in a macro's block: cfg_rt! { pub fn f() {} }, whose body tree-sitter keeps as
// a token tree, not as items. rustItemMacros finds such blocks whose body reads as items and returns
// the source with each block's name!, { and } written over with spaces, so that a second parse sees
// its items where they stand; nil when there are none.
func rustItemMacros(root *sitter.Node, src []byte) []byte {
	if !bytes.Contains(src, []byte("!")) {
		return nil
	}
	var blank [][2]uint32
	var items func(n *sitter.Node)
	items = func(n *sitter.Node) {
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			switch c.Type() {
			case "macro_invocation":
				blank = itemMacro(c, src, blank)
			case "expression_statement":
				if m := c.NamedChild(0); m != nil && m.Type() == "macro_invocation" {
					blank = itemMacro(m, src, blank)
				}
			case "impl_item", "mod_item", "trait_item":
				if b := c.ChildByFieldName("body"); b != nil {
					items(b)
				}
			}
		}
	}
	items(root)
	if len(blank) == 0 {
		return nil
	}
	out := bytes.Clone(src)
	for _, b := range blank {
		for i := b[0]; i < b[1] && int(i) < len(out); i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	return out
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
