package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/ctxmap/ctxmap/index"
)

// FileSearch is the baseline's index: every file whole, its path (also cut into words) and its text
// under one BM25 field with bleve's standard analyzer, as whole-file retrievers do it.
type FileSearch struct {
	idx  bleve.Index
	root string
}

const bodyField = "body"

// NewFileSearch indexes the given workspace-relative files of root in memory.
func NewFileSearch(root string, paths []string) (*FileSearch, error) {
	m := bleve.NewIndexMapping()
	m.ScoringModel = "bm25"
	m.DefaultAnalyzer = standard.Name
	dm := bleve.NewDocumentMapping()
	fm := bleve.NewTextFieldMapping()
	fm.Analyzer = standard.Name
	fm.Store = false
	fm.IncludeInAll = false
	fm.IncludeTermVectors = false
	dm.AddFieldMappingsAt(bodyField, fm)
	m.DefaultMapping = dm
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("create the baseline index: %w", err)
	}
	fs := &FileSearch{idx: idx, root: root}
	b := idx.NewBatch()
	for _, p := range paths {
		src, err := fs.read(p)
		if err != nil {
			continue // gone since the engine listed it: not there for the baseline either
		}
		if err := b.Index(p, map[string]any{bodyField: pathWords(p) + "\n" + string(src)}); err != nil {
			idx.Close()
			return nil, fmt.Errorf("baseline index %s: %w", p, err)
		}
		if b.Size() >= 300 {
			if err := idx.Batch(b); err != nil {
				idx.Close()
				return nil, fmt.Errorf("baseline index: %w", err)
			}
			b = idx.NewBatch()
		}
	}
	if err := idx.Batch(b); err != nil {
		idx.Close()
		return nil, fmt.Errorf("baseline index: %w", err)
	}
	return fs, nil
}

// pathWords is the path and its parts: the standard analyzer keeps "parser.go" as one token.
func pathWords(p string) string {
	parts := strings.FieldsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return p + " " + strings.Join(parts, " ")
}

func (fs *FileSearch) read(rel string) ([]byte, error) {
	return os.ReadFile(filepath.Join(fs.root, filepath.FromSlash(rel)))
}

// Rank returns up to k files by BM25 of the text, best first (ties by path).
func (fs *FileSearch) Rank(ctx context.Context, text string, k int) ([]string, error) {
	q := bleve.NewMatchQuery(text)
	q.SetField(bodyField)
	q.Analyzer = standard.Name
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := fs.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("baseline search: %w", err)
	}
	out := make([]string, 0, len(res.Hits))
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	return out, nil
}

// Close releases the index.
func (fs *FileSearch) Close() error { return fs.idx.Close() }

// WholeFiles dumps ranked files whole, in order, until the budget is spent: the file that does not fit
// is cut at a line boundary to fill what is left, and nothing follows it. It returns the items, the
// text and its token count.
func (fs *FileSearch) WholeFiles(ranked []string, budget int, tok *index.Tokenizer) ([]index.Item, string, int) {
	var items []index.Item
	var text strings.Builder
	used := 0
	for _, p := range ranked {
		src, err := fs.read(p)
		if err != nil {
			continue
		}
		lines := strings.SplitAfter(string(src), "\n")
		if len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		block := fileBlock(p, lines)
		n := tok.Count(text.String() + block)
		if n <= budget {
			text.WriteString(block)
			items = append(items, index.Item{Kind: "file", Path: p, StartLine: 1, EndLine: len(lines), Tokens: n - used, Size: "full", Why: []string{"bm25"},
				Shown: []index.Lines{{1, len(lines)}}})
			used = n
			continue
		}
		// the most lines that still fit, found by halving
		lo, hi := 0, len(lines)
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if tok.Count(text.String()+fileBlock(p, lines[:mid])) <= budget {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		if lo > 0 {
			text.WriteString(fileBlock(p, lines[:lo]))
			n := tok.Count(text.String())
			items = append(items, index.Item{Kind: "file", Path: p, StartLine: 1, EndLine: lo, Tokens: n - used, Size: "truncated", Why: []string{"bm25"},
				Shown: []index.Lines{{1, lo}}})
			used = n
		}
		break
	}
	return items, text.String(), used
}

func fileBlock(path string, lines []string) string {
	body := strings.Join(lines, "")
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return "### " + path + "\n```\n" + body + "```\n\n"
}
