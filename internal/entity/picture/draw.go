package picture

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
)

// WriteSVG draws the map as a standalone SVG picture.
func (m *Picture) WriteSVG(w io.Writer) error {
	var b bytes.Buffer
	m.svg(&b)
	_, err := w.Write(b.Bytes())
	return err
}

func (m *Picture) svg(b *bytes.Buffer) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" font-family="Helvetica, Arial, sans-serif">`+"\n",
		m.Width, m.Height, m.Width, m.Height)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	fmt.Fprintf(b, `<text x="%.0f" y="30" font-size="18" font-weight="bold" fill="#222">%s</text>`+"\n", margin, esc(m.Title))

	b.WriteString("<g class=\"edges\">\n")
	for _, e := range m.Edges {
		a, z := m.Nodes[e.From], m.Nodes[e.To]
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#555" stroke-width="%.1f" stroke-opacity="%.2f" data-from="%s" data-to="%s"/>`+"\n",
			a.X, a.Y, z.X, z.Y, 0.8+5*e.Weight, 0.25+0.5*e.Weight, esc(a.Name), esc(z.Name))
	}
	b.WriteString("</g>\n<g class=\"nodes\">\n")
	for i, n := range m.Nodes {
		color := m.Regions[n.Region].Color
		stroke, width := "#ffffff", 1.5
		if n.Name == m.Focus {
			stroke, width = "#111", 3.5
		}
		fmt.Fprintf(b, `<g class="node" data-index="%d" data-name="%s"><title>%s: importance %.2f, %d files, in %s</title>`,
			i, esc(n.Name), esc(n.Name), n.Importance, n.FileCount, esc(m.Regions[n.Region].Folder))
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" fill-opacity="0.85" stroke="%s" stroke-width="%.1f"/>`,
			n.X, n.Y, n.R, color, stroke, width)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="12" text-anchor="middle" fill="#111" paint-order="stroke" stroke="#fff" stroke-width="3">%s</text></g>`+"\n",
			n.X, n.Y+n.R+13, esc(n.Name))
	}
	b.WriteString("</g>\n<g class=\"legend\">\n")
	top := m.Height - legendHeight(m) - margin/2
	for i, r := range m.Regions {
		x := margin + float64(i%3)*(m.Width-2*margin)/3
		y := top + 22*float64(i/3)
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="6" fill="%s"/><text x="%.1f" y="%.1f" font-size="12" fill="#333">%s</text>`+"\n",
			x+6, y+8, r.Color, x+18, y+12, esc(r.Folder))
	}
	b.WriteString("</g>\n</svg>\n")
}

func esc(s string) string { return template.HTMLEscapeString(s) }

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Parse(pageHTML))

// WriteHTML writes a page with the map and, on a click on an entity, its files as path:line links and
// its related entities. The page needs no network.
func (m *Picture) WriteHTML(w io.Writer) error {
	var svg bytes.Buffer
	m.svg(&svg)
	data, err := json.Marshal(m) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	return page.Execute(w, struct {
		Title string
		SVG   template.HTML
		Data  template.JS
	}{m.Title, template.HTML(svg.String()), template.JS(data)})
}
