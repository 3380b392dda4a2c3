package parse

import (
	"context"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// rawDef is a definition before parents, kinds and docs are settled.
type rawDef struct {
	node       *sitter.Node
	start, end uint32
	kind       string
	name       string
	nameStart  uint32
	parent     string // explicit, from @parent
	doc        string // from @doc
	pattern    uint16
	scope      bool // owns definitions without being one
}

type rawRef struct {
	name  string
	start uint32
	line  int
}

// extraction collects one file's matches.
type extraction struct {
	src        []byte
	defs       []rawDef
	refs       []rawRef
	comments   []*sitter.Node
	imports    []Import
	strings    []*sitter.Node
	notLiteral map[uint32]bool // start bytes of docs, comments and imports, which are never literals
	names      map[string]string
}

// checkEvery is how many matches pass between looks at the context.
const checkEvery = 512

func extract(ctx context.Context, cursor *sitter.QueryCursor, cq *compiled, root *sitter.Node, src []byte) (*File, error) {
	// capacities from typical densities, so that large files do not regrow these many times
	n := len(src)
	x := &extraction{
		src:        src,
		defs:       make([]rawDef, 0, n/300+8),
		refs:       make([]rawRef, 0, n/60+8),
		comments:   make([]*sitter.Node, 0, n/400+8),
		notLiteral: make(map[uint32]bool, n/400+8),
		names:      make(map[string]string, n/200+8),
	}
	cursor.Exec(cq.query, root)
	for i := 0; ; i++ {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		m, ok := cursor.NextMatch()
		if !ok {
			break
		}
		if !cq.accept(m, src) {
			continue
		}
		x.match(cq, m)
	}
	return x.file(), nil
}

func (x *extraction) match(cq *compiled, m *sitter.QueryMatch) {
	var d rawDef
	var nameNode *sitter.Node
	isDef := false
	for _, c := range m.Captures {
		capt := cq.captures[c.Index]
		switch capt.role {
		case roleDefinition:
			isDef = true
			d.node, d.kind = c.Node, capt.kind
		case roleScope:
			isDef = true
			d.node, d.scope = c.Node, true
		case roleName:
			nameNode = c.Node
		case roleParent:
			d.parent = oneLine(text(c.Node, x.src))
		case roleDoc:
			d.doc = docstring(text(c.Node, x.src))
			x.notLiteral[c.Node.StartByte()] = true
		case roleReference:
			x.refs = append(x.refs, rawRef{
				name:  x.intern(text(c.Node, x.src)),
				start: c.Node.StartByte(),
				line:  int(c.Node.StartPoint().Row) + 1,
			})
		case roleComment:
			x.comments = append(x.comments, c.Node)
			x.notLiteral[c.Node.StartByte()] = true
		case roleImport:
			x.notLiteral[c.Node.StartByte()] = true
			if p := importPath(text(c.Node, x.src)); p != "" {
				x.imports = append(x.imports, Import{Path: p, Line: int(c.Node.StartPoint().Row) + 1})
			}
		case roleString:
			x.strings = append(x.strings, c.Node)
		}
	}
	if !isDef {
		return
	}
	if nameNode != nil {
		d.name = strings.TrimLeft(oneLine(text(nameNode, x.src)), ":") // Ruby symbols
		d.nameStart = nameNode.StartByte()
	}
	if d.name == "" && !d.scope {
		return
	}
	d.start, d.end = d.node.StartByte(), d.node.EndByte()
	d.pattern = m.PatternIndex
	x.defs = append(x.defs, d)
}

// intern keeps one copy of each referenced name: a file names the same few identifiers many times.
func (x *extraction) intern(b []byte) string {
	if s, ok := x.names[string(b)]; ok {
		return s
	}
	s := oneLine(b)
	x.names[string(b)] = s
	return s
}

func (x *extraction) file() *File {
	f := &File{
		Definitions: []Definition{},
		References:  []Reference{},
		Imports:     x.imports,
		Literals:    literals(x.strings, x.notLiteral, x.src),
	}
	if f.Imports == nil {
		f.Imports = []Import{}
	}
	blocks := comments(x.comments, x.src) // sorts x.comments
	commentStarts := make([]uint32, len(x.comments))
	for i, c := range x.comments {
		commentStarts[i] = c.StartByte()
	}
	f.Comments = commentsOf(blocks)
	defs, scopes := x.settle()
	f.Definitions = x.definitions(defs, scopes, newDocs(blocks, x.src), commentStarts)
	f.References = x.references(defs)
	return f
}

// settle drops duplicate matches of one declaration (the earliest pattern wins, so queries list
// specific patterns before general ones) and splits scopes from definitions, both in source order
// with outer nodes before the nodes they contain.
func (x *extraction) settle() (defs, scopes []rawDef) {
	sort.SliceStable(x.defs, func(i, j int) bool {
		a, b := x.defs[i], x.defs[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.end != b.end {
			return a.end > b.end
		}
		return a.pattern < b.pattern
	})
	defs = make([]rawDef, 0, len(x.defs))
	seen := make(map[uint32]int, len(x.defs)) // name start -> index in defs
	// one function node is one function, though patterns may take different names in it (TEST(A, B):
	// B, not TEST); x.defs is sorted, so such matches are neighbours
	last := -1
	for _, d := range x.defs {
		if d.scope {
			scopes = append(scopes, d)
			continue
		}
		i, ok := seen[d.nameStart]
		if !ok && last >= 0 && callable[d.kind] && callable[defs[last].kind] && defs[last].start == d.start && defs[last].end == d.end {
			i, ok = last, true
		}
		if ok {
			if d.pattern < defs[i].pattern {
				defs[i] = d
				seen[d.nameStart] = i
			}
			continue
		}
		seen[d.nameStart] = len(defs)
		last = len(defs)
		defs = append(defs, d)
	}
	// a replaced duplicate may have a different range
	sort.SliceStable(defs, func(i, j int) bool {
		if defs[i].start != defs[j].start {
			return defs[i].start < defs[j].start
		}
		return defs[i].end > defs[j].end
	})
	return defs, scopes
}

// containers own the definitions inside them; their name becomes the Parent.
var containers = map[string]bool{
	"class": true, "struct": true, "interface": true, "trait": true, "enum": true, "module": true, "namespace": true,
	"type": true, // typedef struct {...} t; type T = { field: string }
}

// classLike containers turn the functions declared in them into methods.
var classLike = map[string]bool{"class": true, "struct": true, "interface": true, "trait": true, "enum": true}

var callable = map[string]bool{"function": true, "method": true, "constructor": true}

func (x *extraction) definitions(defs, scopes []rawDef, docs *docs, commentStarts []uint32) []Definition {
	// one sweep over definitions and scopes in source order, outer first, with a stack of the
	// ones open at each point: a definition's owner is the nearest open container or scope,
	// unless a function or method lies between them (then it is local and has no parent)
	type item struct {
		*rawDef
		def int // index in defs, -1 for a scope
	}
	items := make([]item, 0, len(defs)+len(scopes))
	for i := range defs {
		items = append(items, item{&defs[i], i})
	}
	for i := range scopes {
		items = append(items, item{&scopes[i], -1})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].start != items[j].start {
			return items[i].start < items[j].start
		}
		return items[i].end > items[j].end
	})
	owners := make([]*rawDef, len(defs))
	var open []*rawDef
	for _, it := range items {
		for len(open) > 0 {
			top := open[len(open)-1]
			if top.end >= it.end && !(top.start == it.start && top.end == it.end) {
				break
			}
			open = open[:len(open)-1]
		}
		if !it.scope {
			for k := len(open) - 1; k >= 0; k-- {
				o := open[k]
				if !o.scope && callable[o.kind] {
					break
				}
				if (o.scope || containers[o.kind]) && o.name != "" {
					owners[it.def] = o
					break
				}
			}
		}
		open = append(open, it.rawDef)
	}

	out := make([]Definition, len(defs))
	for i := range defs {
		d := &defs[i]
		kind, parent := d.kind, d.parent
		owner := owners[i]
		if parent == "" && owner != nil {
			parent = owner.name
		}
		switch {
		case kind == "function" && d.parent != "":
			kind = "method"
		case kind == "function" && owner != nil && (owner.scope || classLike[owner.kind]):
			kind = "method"
		case kind == "method" && parent == "":
			kind = "function"
		}
		if kind == "method" && d.name == parent {
			kind = "constructor" // C++, C#: a member named after its class
		}
		decl := declaration(d.node)
		out[i] = Definition{
			Name:      d.name,
			Kind:      kind,
			Signature: signature(d.node, d.start, d.end, kind, x.src, commentStarts),
			Doc:       d.doc,
			Parent:    parent,
			StartLine: int(decl.StartPoint().Row) + 1,
			EndLine:   endLine(d.node),
			StartByte: int(min(d.start, decl.StartByte())),
			EndByte:   int(d.end),
		}
		// only the first declaration on a line owns the comment above it (not a class's parameters)
		first := i == 0 || out[i-1].StartLine != out[i].StartLine || out[i-1].StartByte == out[i].StartByte
		if out[i].Doc == "" && first {
			out[i].Doc = docs.above(out[i].StartLine)
		}
	}
	return out
}

// references attaches each reference to the innermost definition holding it, drops names at their
// own declaration and repeats of one name on one line within one definition.
func (x *extraction) references(defs []rawDef) []Reference {
	declared := make(map[uint32]bool, len(defs))
	for _, d := range defs {
		declared[d.nameStart] = true
	}
	sort.SliceStable(x.refs, func(i, j int) bool { return x.refs[i].start < x.refs[j].start })
	type key struct {
		name      string
		line, enc int
	}
	seen := map[key]bool{}
	out := make([]Reference, 0, len(x.refs))
	var stack []int // indexes of defs open at the current position
	next := 0
	for _, r := range x.refs {
		if declared[r.start] {
			continue
		}
		for next < len(defs) && defs[next].start <= r.start {
			for len(stack) > 0 && defs[stack[len(stack)-1]].end <= defs[next].start {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, next)
			next++
		}
		for len(stack) > 0 && defs[stack[len(stack)-1]].end <= r.start {
			stack = stack[:len(stack)-1]
		}
		enc := -1
		if len(stack) > 0 {
			enc = stack[len(stack)-1]
		}
		k := key{r.name, r.line, enc}
		if r.name == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, Reference{Name: r.name, Line: r.line, Enclosing: enc})
	}
	return out
}

// declaration is the whole declaration of a definition's node: in C++, with the template heads written
// over it (template <typename T, enable_if_t<...>>), which say for which types it is chosen.
func declaration(n *sitter.Node) *sitter.Node {
	for p := n.Parent(); p != nil && p.Type() == "template_declaration"; p = p.Parent() {
		n = p
	}
	return n
}

// endLine is the 1-based last line of n; a node ending at column 0 ends on the line before.
func endLine(n *sitter.Node) int {
	s, e := n.StartPoint(), n.EndPoint()
	if e.Column == 0 && e.Row > s.Row {
		return int(e.Row)
	}
	return int(e.Row) + 1
}
