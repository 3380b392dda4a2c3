package entity

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/index/history"
	"github.com/ctxmap/ctxmap/index/parse"
)

func TestRealRepo(t *testing.T) {
	root := os.Getenv("REAL_ROOT")
	if root == "" {
		t.Skip()
	}
	p := parse.NewParser()
	defer p.Close()
	var cs []Contribution
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || parse.LanguageOf(path) == "" || parse.LanguageOf(path) == "text" {
			return nil
		}
		b, _ := os.ReadFile(path)
		if len(b) > 500000 {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		f, err := p.Parse(context.Background(), rel, b)
		if err != nil {
			return nil
		}
		cs = append(cs, Contribute(filepath.ToSlash(rel), f))
		return nil
	})
	terms, comp := 0, 0
	for _, c := range cs {
		terms += len(c.Terms)
		for _, t := range c.Terms {
			if contains(t.Words, ' ') {
				comp++
			}
		}
	}
	var hist *history.Log
	if g := os.Getenv("REAL_GIT"); g != "" {
		hist, _ = history.Read(context.Background(), g, 0)
	}
	start := time.Now()
	m := Aggregate(cs, hist)
	el := time.Since(start)
	chosenPost := 0
	for _, e := range m.Entities {
		chosenPost += len(e.Files)
	}
	fmt.Println("files", len(cs), "terms", terms, "compounds", comp, "entities", len(m.Entities), "entity-files", chosenPost, "time", el)
	for _, e := range m.Entities[:40] {
		var rel []string
		for _, r := range e.Related[:min(4, len(e.Related))] {
			rel = append(rel, r.Name)
		}
		fmt.Printf("%-24s %.3f %-14s files=%-3d mods=%v rel=%v bt=%v\n", e.Name, e.Importance, e.Centrality, len(e.Files), e.Modules[:min(2, len(e.Modules))], rel, e.BusinessTerms)
	}
}

func contains(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}
