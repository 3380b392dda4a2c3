package parse

import (
	"embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// Each query file tags nodes with these captures; one role per pattern:
//
//	@definition.<kind>  the whole declaration (kind from the list on Definition.Kind), with
//	  @name             its name node,
//	  @parent           an explicit owner name (Go receiver, C++ A::b, ...), optional,
//	  @doc              a docstring node, optional (preceding comments are found without it);
//	@scope              a node that owns definitions without being one (Rust impl), with an optional @name;
//	@reference.<what>   an identifier that is called or used as a type;
//	@comment, @import, @string.
//
// Captures whose name starts with "_" only feed predicates. Predicates: #eq?, #not-eq?, #match?,
// #not-match?, #any-of?, #not-any-of?; they are checked here, not by the binding, and must sit inside
// the pattern's parentheses. When one node matches several definition patterns, the first pattern in
// the file wins. A first line "; inherits: a, b" puts queries/a.scm and queries/b.scm before the
// file (shared parts such as ecma.scm and jsx.scm).
//
//go:embed queries/*.scm
var queryFiles embed.FS

type role uint8

const (
	roleNone role = iota
	roleDefinition
	roleName
	roleParent
	roleDoc
	roleScope
	roleReference
	roleComment
	roleImport
	roleString
)

var kinds = map[string]bool{
	"function": true, "method": true, "class": true, "struct": true, "interface": true, "trait": true,
	"enum": true, "type": true, "module": true, "namespace": true, "constant": true, "variable": true,
	"field": true, "constructor": true, "macro": true, "section": true,
}

type capture struct {
	role role
	kind string // for roleDefinition
}

type predicate struct {
	op      string
	capture uint32
	other   int // capture compared by eq?/not-eq?, or -1
	values  []string
	re      *regexp.Regexp
}

// compiled is a language's query with its captures and predicates decoded once. A sitter.Query is
// only read by cursors (the C API takes it as const), so one compiled query serves every Parser.
type compiled struct {
	query    *sitter.Query
	captures []capture
	preds    [][]predicate // by pattern index
}

type compileOnce struct {
	once sync.Once
	q    *compiled
	err  error
}

// queryFor compiles the language's query on first use and keeps it for the life of the process.
func queryFor(l *language) (*compiled, error) {
	c := l.tags
	c.once.Do(func() {
		src, err := querySource(l)
		if err != nil {
			c.err = fmt.Errorf("query for %s: %w", l.name, err)
			return
		}
		c.q, c.err = compile(src, l.grammar())
		if c.err != nil {
			c.err = fmt.Errorf("query for %s: %w", l.name, c.err)
		}
	})
	return c.q, c.err
}

// querySource is the row's query, or queries/<name>.scm when it has none, with the files it inherits.
func querySource(l *language) ([]byte, error) {
	if l.query != "" {
		return inherited([]byte(l.query), 0)
	}
	return queryFile(l.name, 0)
}

// queryFile reads queries/<name>.scm with the files it inherits.
func queryFile(name string, depth int) ([]byte, error) {
	if depth > 4 {
		return nil, fmt.Errorf("queries/%s.scm: inherits too deep", name)
	}
	src, err := queryFiles.ReadFile("queries/" + name + ".scm")
	if err != nil {
		return nil, err
	}
	return inherited(src, depth)
}

// inherited puts before src the files its first line names ("; inherits: a, b").
func inherited(src []byte, depth int) ([]byte, error) {
	first, _, _ := strings.Cut(string(src), "\n")
	parents, ok := strings.CutPrefix(strings.TrimSpace(first), "; inherits:")
	if !ok {
		return src, nil
	}
	var out []byte
	for _, p := range strings.Split(parents, ",") {
		b, err := queryFile(strings.TrimSpace(p), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(append(out, b...), '\n')
	}
	return append(out, src...), nil
}

func compile(src []byte, lang *sitter.Language) (*compiled, error) {
	q, err := sitter.NewQuery(src, lang)
	if err != nil {
		return nil, err
	}
	cq := &compiled{query: q}
	for i := uint32(0); i < q.CaptureCount(); i++ {
		name := q.CaptureNameForId(i)
		c, err := captureOf(name)
		if err != nil {
			q.Close()
			return nil, err
		}
		cq.captures = append(cq.captures, c)
	}
	for i := uint32(0); i < q.PatternCount(); i++ {
		ps, err := predicatesOf(q, i)
		if err != nil {
			q.Close()
			return nil, fmt.Errorf("pattern %d: %w", i, err)
		}
		cq.preds = append(cq.preds, ps)
	}
	return cq, nil
}

func captureOf(name string) (capture, error) {
	switch {
	case strings.HasPrefix(name, "_"):
		return capture{role: roleNone}, nil
	case strings.HasPrefix(name, "definition."):
		k := strings.TrimPrefix(name, "definition.")
		if !kinds[k] {
			return capture{}, fmt.Errorf("unknown definition kind %q", k)
		}
		return capture{role: roleDefinition, kind: k}, nil
	case name == "reference" || strings.HasPrefix(name, "reference."):
		return capture{role: roleReference}, nil
	}
	if r, ok := roleNamed[name]; ok {
		return capture{role: r}, nil
	}
	return capture{}, fmt.Errorf("unknown capture @%s", name)
}

// roleNamed is the role of each capture whose name is the role alone.
var roleNamed = map[string]role{
	"name": roleName, "parent": roleParent, "doc": roleDoc, "scope": roleScope, "comment": roleComment,
	"import": roleImport, "string": roleString,
}

func predicatesOf(q *sitter.Query, pattern uint32) ([]predicate, error) {
	var out []predicate
	for _, steps := range q.PredicatesForPattern(pattern) {
		// the last step of each predicate is the "done" marker
		if len(steps) > 0 && steps[len(steps)-1].Type == sitter.QueryPredicateStepTypeDone {
			steps = steps[:len(steps)-1]
		}
		if len(steps) < 2 || steps[0].Type != sitter.QueryPredicateStepTypeString {
			return nil, errors.New("malformed predicate")
		}
		p := predicate{op: q.StringValueForId(steps[0].ValueId), other: -1}
		if steps[1].Type != sitter.QueryPredicateStepTypeCapture {
			return nil, fmt.Errorf("#%s: first argument must be a capture", p.op)
		}
		p.capture = steps[1].ValueId
		args := steps[2:]
		switch p.op {
		case "eq?", "not-eq?":
			if len(args) != 1 {
				return nil, fmt.Errorf("#%s takes two arguments", p.op)
			}
			if args[0].Type == sitter.QueryPredicateStepTypeCapture {
				p.other = int(args[0].ValueId)
			} else {
				p.values = []string{q.StringValueForId(args[0].ValueId)}
			}
		case "match?", "not-match?":
			if len(args) != 1 || args[0].Type != sitter.QueryPredicateStepTypeString {
				return nil, fmt.Errorf("#%s takes a capture and a pattern", p.op)
			}
			re, err := regexp.Compile(q.StringValueForId(args[0].ValueId))
			if err != nil {
				return nil, fmt.Errorf("#%s: %w", p.op, err)
			}
			p.re = re
		case "any-of?", "not-any-of?":
			if len(args) == 0 {
				return nil, fmt.Errorf("#%s needs values", p.op)
			}
			for _, a := range args {
				if a.Type != sitter.QueryPredicateStepTypeString {
					return nil, fmt.Errorf("#%s takes strings after the capture", p.op)
				}
				p.values = append(p.values, q.StringValueForId(a.ValueId))
			}
		default:
			return nil, fmt.Errorf("unsupported predicate #%s", p.op)
		}
		out = append(out, p)
	}
	return out, nil
}

// accept reports whether a match satisfies its pattern's predicates. Every node of a quantified
// capture must satisfy a predicate on it.
func (cq *compiled) accept(m *sitter.QueryMatch, src []byte) bool {
	for _, p := range cq.preds[m.PatternIndex] {
		for _, c := range m.Captures {
			if c.Index != p.capture {
				continue
			}
			if !p.holds(text(c.Node, src), m, src) {
				return false
			}
		}
	}
	return true
}

func (p *predicate) holds(s []byte, m *sitter.QueryMatch, src []byte) bool {
	switch p.op {
	case "eq?", "not-eq?":
		want := p.op == "eq?"
		if p.other >= 0 {
			for _, c := range m.Captures {
				if int(c.Index) == p.other {
					return (string(s) == string(text(c.Node, src))) == want
				}
			}
			return true
		}
		return (string(s) == p.values[0]) == want
	case "match?":
		return p.re.Match(s)
	case "not-match?":
		return !p.re.Match(s)
	case "any-of?", "not-any-of?":
		found := false
		for _, v := range p.values {
			if string(s) == v {
				found = true
				break
			}
		}
		return found == (p.op == "any-of?")
	}
	return true
}

// text is the node's source bytes, clamped so a malformed tree can never index out of range.
func text(n *sitter.Node, src []byte) []byte {
	a, b := int(n.StartByte()), int(n.EndByte())
	if a > len(src) {
		a = len(src)
	}
	if b > len(src) {
		b = len(src)
	}
	if a > b {
		a = b
	}
	return src[a:b]
}
