package parse

import (
	"context"
	"os"
	"testing"
)

// BenchmarkParse parses every fixture once per iteration; the MB/s column is the throughput.
func BenchmarkParse(b *testing.B) {
	type fixture struct {
		path string
		src  []byte
	}
	var all []fixture
	total := 0
	for _, p := range fixtures(b) {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, fixture{p, src})
		total += len(src)
	}
	p := NewParser()
	defer p.Close()
	ctx := context.Background()
	for _, f := range all { // compile each language's query before timing
		if _, err := p.Parse(ctx, f.path, f.src); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range all {
			if _, err := p.Parse(ctx, f.path, f.src); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParseLarge parses one generated 100 KiB Go file, the size the speed target is set for;
// "tree" is tree-sitter's parse alone, "full" adds the queries and everything after them.
func BenchmarkParseLarge(b *testing.B) {
	src := generatedGo(100 << 10)
	ctx := context.Background()
	b.Run("tree", func(b *testing.B) {
		p := NewParser()
		defer p.Close()
		b.SetBytes(int64(len(src)))
		for i := 0; i < b.N; i++ {
			tree, err := p.tree(ctx, byName["go"], src)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
	})
	b.Run("full", func(b *testing.B) {
		p := NewParser()
		defer p.Close()
		if _, err := p.Parse(ctx, "big.go", src); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(src)))
		b.ResetTimer()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := p.Parse(ctx, "big.go", src); err != nil {
				b.Fatal(err)
			}
		}
	})
}
