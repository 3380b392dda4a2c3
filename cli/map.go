package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

func (e *env) mapCommand() *cobra.Command {
	cmd := newCommand("map [flags] [TEXT...]", "a map of the project: ranked outline as text, or the entity map as a picture", `Draw a map of the project.

--format text is a ranked outline: the files that matter most (by the reference graph), each with the
signatures of its definitions that other files name most, within --budget tokens. Centred on --entity
or on a TEXT when given, it starts from that entity's files or from the files a pack for the text ranks.

--format svg (the default) or html draws the entities and their relations as a picture, on stdout or to
-o FILE.`)
	cmd.Example = `  ctxmap map --format text --budget 1000
  ctxmap map --format text "checkout fails when the cart is empty"
  ctxmap map -o map.html
  ctxmap map --entity RULE --top 12 -o rule.svg`
	cmd.Args = cobra.ArbitraryArgs // the text the outline is centred on
	dir := dirFlag(cmd)
	f := cmd.Flags()
	format := f.String("format", "", "text, svg or html (default: from -o's extension, else svg)")
	name := f.String("entity", "", "centre the map on this entity and its neighbourhood")
	top := f.Int("top", index.DefaultTop, "how many entities (svg, html)")
	budget := f.Int("budget", index.DefaultOutlineBudget, "token budget of the outline (text)")
	tokenizer := f.String("tokenizer", "", "o200k_base or cl100k_base, to count the outline's tokens (text)")
	out := f.StringP("output", "o", "", "the `FILE` to write (default, or -: stdout)")
	noDaemon := noDaemonFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *out == "-" { // as most tools read it: stdout
			*out = ""
		}
		form := strings.ToLower(*format)
		ext := strings.ToLower(filepath.Ext(*out))
		if form == "" {
			switch ext {
			case ".txt", ".md":
				form = "text"
			case ".html", ".htm":
				form = "html"
			default:
				form = "svg"
			}
		}
		switch form {
		case "text":
			if *budget < index.MinBudget {
				return usagef("--budget %d is below the minimum of %d tokens", *budget, index.MinBudget)
			}
			text := strings.TrimSpace(strings.Join(args, " "))
			if text != "" && *name != "" {
				return usagef("centre the map on --entity or on a text, not both")
			}
			req := index.OutlineRequest{Budget: *budget, Entity: *name, Text: text, Tokenizer: *tokenizer}
			return e.runOutline(routeOf(*dir, *noDaemon), req, *out)
		case "svg", "html":
			if len(args) > 0 {
				return usagef("a picture is centred on --entity; a text centres only --format text")
			}
			if *out != "" && form == "svg" && ext != ".svg" || form == "html" && *out != "" && ext != ".html" && ext != ".htm" {
				return usagef("-o %q does not end in .%s", *out, form)
			}
			if *out == "" && e.stdoutTerminal() {
				return usagef("a %s picture is not for a terminal: write it to a file (-o map.%s), pipe it, or read the map as text (--format text)", strings.ToUpper(form), form)
			}
			return e.runMap(routeOf(*dir, *noDaemon), *name, *top, *out, form)
		default:
			return usagef("--format %q is not one of text, svg, html", *format)
		}
	}
	return cmd
}

func (e *env) runOutline(r route, req index.OutlineRequest, out string) error {
	use := indexUse{packs: true, vectors: req.Text != "", noSearch: req.Text == ""}
	return answerOp(e, r, session.OpOutline, req, use, func(o *index.Outline) error { return e.writeOutline(o, out) })
}

// writeOutline prints the outline, or writes it to out.
func (e *env) writeOutline(o *index.Outline, out string) error {
	if out == "" {
		_, err := fmt.Fprint(e.stdout, o.Text)
		return err
	}
	if err := os.WriteFile(out, []byte(o.Text), 0o644); err != nil {
		return fmt.Errorf("write the map: %w", err)
	}
	fmt.Fprintf(e.stderr, "ctxmap: wrote %s: %s, %s\n", out, count(o.Tokens, "token"), count(len(o.Files), "file"))
	return nil
}

func (e *env) runMap(r route, name string, top int, out, form string) error {
	if top < 1 {
		return usagef("--top must be at least 1")
	}
	return answerOp(e, r, session.OpPicture, session.PictureArgs{Top: top, Name: name}, indexUse{noSearch: true}, func(m *index.Picture) error {
		return e.writePicture(m, name, out, form)
	})
}

// writePicture draws the entity map as SVG or HTML, on stdout or into out.
func (e *env) writePicture(m *index.Picture, name, out, form string) (err error) {
	m.Title = "Entities of " + filepath.Base(m.Root)
	if name != "" {
		m.Title += " around " + m.Focus
	}
	w := e.stdout
	var f *os.File
	if out != "" {
		if f, err = os.Create(out); err != nil {
			return err
		}
		w = f
	}
	if form == "svg" {
		err = m.WriteSVG(w)
	} else {
		err = m.WriteHTML(w)
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if out != "" {
		fmt.Fprintf(e.stderr, "ctxmap: wrote %s (%d entities, %d relations)\n", out, len(m.Nodes), len(m.Edges))
	}
	return nil
}
