package lexicon

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/ctxmap/ctxmap/internal/walk"
	"github.com/ctxmap/ctxmap/internal/words"
)

//go:embed builtin.yaml
var builtinYAML []byte

var builtin = sync.OnceValue(func() *Lexicon {
	l, err := Parse("builtin.yaml", builtinYAML)
	if err != nil {
		// The embedded file is checked by the tests; an empty lexicon keeps queries working.
		return &Lexicon{rel: map[string]map[string]float64{}, ignore: map[string]bool{}, syn: map[string][]Synonym{}}
	}
	return l
})

// Builtin returns the built-in programming lexicon. It is shared and immutable.
func Builtin() *Lexicon { return builtin() }

// maxProjectFile caps the size of a project lexicon.
const maxProjectFile = 4 << 20

// Load reads a project lexicon file: a regular file of at most 4 MiB. Every problem is reported as
// file:line with what to fix.
func Load(path string) (*Lexicon, error) {
	data, err := walk.ReadRegular(path, maxProjectFile)
	if err != nil {
		return nil, fmt.Errorf("read lexicon: %w", err)
	}
	return Parse(path, data)
}

// Parse reads lexicon YAML; name is used in error messages.
func Parse(name string, data []byte) (*Lexicon, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &parser{name: name, lex: newLexicon()}
	if len(doc.Content) > 0 {
		p.top(doc.Content[0])
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	p.lex.finish()
	return p.lex, nil
}

type parser struct {
	name string
	lex  *Lexicon
	errs []error
}

const maxErrors = 20

func (p *parser) fail(n *yaml.Node, format string, args ...any) {
	if len(p.errs) < maxErrors {
		p.errs = append(p.errs, fmt.Errorf("%s:%d: %s", p.name, n.Line, fmt.Sprintf(format, args...)))
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		if len(n.Value) > 40 || strings.ContainsAny(n.Value, "\n\r") {
			// not quoted: a file that is no lexicon is not to be echoed
			return fmt.Sprintf("a text of %d bytes", len(n.Value))
		}
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "something else"
}

func (p *parser) top(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // an empty file is an empty lexicon
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n, "the file must be a mapping with synonyms, groups, oneway or ignore, found %s", kindName(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "synonyms":
			p.related(v, "synonyms", true)
		case "oneway":
			p.related(v, "oneway", false)
		case "groups":
			p.groups(v)
		case "ignore":
			for _, w := range p.wordList(v, "ignore") {
				p.lex.ignore[w] = true
			}
		default:
			p.fail(k, "unknown key %q: the file may hold synonyms, groups, oneway and ignore", k.Value)
		}
	}
}

// related reads `word: {grade: [words]}` entries.
func (p *parser) related(n *yaml.Node, section string, both bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n, "%s must be a mapping of word -> {strong: [...], moderate: [...], weak: [...]}, found %s", section, kindName(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		from, ok := p.word(k, section)
		if !ok {
			continue
		}
		if v.Kind != yaml.MappingNode {
			p.fail(v, "%s.%s must be a mapping of grade -> list of words (e.g. strong: [remove]), found %s", section, k.Value, kindName(v))
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			g, list := v.Content[j], v.Content[j+1]
			w, ok := p.grade(g)
			if !ok {
				continue
			}
			for _, to := range p.wordList(list, section+"."+k.Value+"."+g.Value) {
				p.lex.raise(from, to, w)
				if both {
					p.lex.raise(to, from, w)
				}
			}
		}
	}
}

// groups reads `- grade: [words]` items: every word related to every other.
func (p *parser) groups(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "groups must be a list of {grade: [words]} items, found %s", kindName(n))
		return
	}
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode || len(item.Content) != 2 {
			p.fail(item, "a group must be one grade and its words, e.g. - strong: [delete, remove], found %s", kindName(item))
			continue
		}
		w, ok := p.grade(item.Content[0])
		if !ok {
			continue
		}
		list := item.Content[1]
		if list.Kind == yaml.SequenceNode && len(list.Content) < 2 {
			p.fail(list, "a group needs at least two words")
			continue
		}
		ws := p.wordList(list, "group")
		for _, a := range ws {
			for _, b := range ws {
				p.lex.raise(a, b, w)
			}
		}
	}
}

func (p *parser) grade(n *yaml.Node) (float64, bool) {
	if n.Kind != yaml.ScalarNode {
		p.fail(n, "a grade must be strong, moderate, weak or a weight in (0, 1], found %s", kindName(n))
		return 0, false
	}
	if w, ok := grades[strings.ToLower(n.Value)]; ok {
		return w, true
	}
	w, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		p.fail(n, "unknown grade %q: use strong, moderate, weak or a weight in (0, 1]", n.Value)
		return 0, false
	}
	if !(w > 0 && w <= 1) {
		p.fail(n, "weight %s is outside (0, 1]: use a number above 0 and at most 1", n.Value)
		return 0, false
	}
	return w, true
}

func (p *parser) wordList(n *yaml.Node, where string) []string {
	var nodes []*yaml.Node
	switch n.Kind {
	case yaml.SequenceNode:
		nodes = n.Content
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		nodes = []*yaml.Node{n} // a single word without brackets
	default:
		p.fail(n, "%s must be a list of words, found %s", where, kindName(n))
		return nil
	}
	out := make([]string, 0, len(nodes))
	for _, e := range nodes {
		if w, ok := p.word(e, where); ok {
			out = append(out, w)
		}
	}
	return out
}

func (p *parser) word(n *yaml.Node, where string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.fail(n, "%s: expected a word, found %s", where, kindName(n))
		return "", false
	}
	raw := strings.TrimSpace(n.Value)
	if parts := words.Split(raw); len(parts) != 1 || parts[0] != strings.ToLower(raw) {
		p.fail(n, "%s: %q is not one word: write single words of letters (queries are split into words before lookup)", where, n.Value)
		return "", false
	}
	return key(raw), true
}
