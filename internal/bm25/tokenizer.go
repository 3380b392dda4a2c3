package bm25

import (
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/character"
	"github.com/blevesearch/bleve/v2/registry"
)

// spacesName is the tokenizer of the fields: Normalize's terms cut at spaces. It cuts as bleve's
// whitespace tokenizer does, which makes a 1,024-token slice per field and decodes every rune: a
// tenth of a cold index. Text that is not plain ASCII goes to that tokenizer.
const spacesName = "ctxmap_spaces"

func init() {
	if err := registry.RegisterTokenizer(spacesName, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return spaces{}, nil
	}); err != nil {
		panic(err)
	}
}

var whitespace = character.NewCharacterTokenizer(func(r rune) bool { return !unicode.IsSpace(r) })

type spaces struct{}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func (spaces) Tokenize(input []byte) analysis.TokenStream {
	n := 0
	in := false
	for _, c := range input {
		if c >= 0x80 {
			return whitespace.Tokenize(input)
		}
		space := asciiSpace(c)
		if !space && !in {
			n++
		}
		in = !space
	}
	tokens := make([]analysis.Token, n)
	stream := make(analysis.TokenStream, n)
	k, start := 0, -1
	for i := 0; i <= len(input); i++ {
		if i < len(input) && !asciiSpace(input[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			tokens[k] = analysis.Token{Term: input[start:i], Start: start, End: i, Position: k + 1, Type: analysis.AlphaNumeric}
			stream[k] = &tokens[k]
			k++
			start = -1
		}
	}
	return stream
}
