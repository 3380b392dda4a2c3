package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxmap/ctxmap/entitymap"
	"github.com/ctxmap/ctxmap/index"
)

func runMap(args []string, _ io.Reader, stdout io.Writer) error {
	fs := newFlags("map")
	dir := fs.String("C", ".", "workspace root")
	name := fs.String("entity", "", "centre the map on this entity and its neighbourhood")
	top := fs.Int("top", entitymap.DefaultTop, "how many entities")
	out := fs.String("o", "", "the file to write: .svg or .html (default: SVG on stdout)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if *top < 1 {
		return usagef("--top must be at least 1")
	}
	ext := strings.ToLower(filepath.Ext(*out))
	if *out != "" && ext != ".svg" && ext != ".html" && ext != ".htm" {
		return usagef("-o must name a .svg or .html file, got %q", *out)
	}
	ctx, cancel := interruptible()
	defer cancel()
	ix, _, err := openIndex(ctx, *dir)
	if err != nil {
		return err
	}
	defer ix.Close()
	m, err := entitymap.Build(ix, entitymap.Options{Top: *top, Entity: *name})
	if errors.Is(err, index.ErrInvalid) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	m.Title = "Entities of " + filepath.Base(ix.Root())
	if *name != "" {
		m.Title += " around " + m.Focus
	}
	if *out == "" {
		return m.WriteSVG(stdout)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if ext == ".svg" {
		err = m.WriteSVG(f)
	} else {
		err = m.WriteHTML(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	fmt.Fprintf(os.Stderr, "ctxmap: wrote %s (%d entities, %d relations)\n", *out, len(m.Nodes), len(m.Edges))
	return nil
}
