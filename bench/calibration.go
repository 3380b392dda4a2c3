package bench

import (
	"fmt"
	"io"
	"strings"
)

// Reliability is a calibration curve: the probabilities cut into equal bins, each with its mean
// probability and the share of its files that were gold.
type Reliability struct {
	Bins []Bin `json:"bins"`
}

// Bin is one range of predicted probabilities: how many files fell in it, their mean prediction and
// how often they were in the fix.
type Bin struct {
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	N        int     `json:"n"`
	MeanP    float64 `json:"mean_p"`
	Observed float64 `json:"observed"`
}

// ReliabilityOf bins one system's probabilities over every scored instance.
func (r *Report) ReliabilityOf(system string, bins int) Reliability {
	out := Reliability{Bins: make([]Bin, bins)}
	for i := range out.Bins {
		out.Bins[i].Lo, out.Bins[i].Hi = float64(i)/float64(bins), float64(i+1)/float64(bins)
	}
	for _, in := range r.Instances {
		s := in.Systems[system]
		if in.Status != StatusOK || s == nil {
			continue
		}
		for _, c := range s.Probabilities {
			b := &out.Bins[min(bins-1, int(c.P*float64(bins)))]
			b.N++
			b.MeanP += c.P
			b.Observed += boolf(c.Gold)
		}
	}
	for i := range out.Bins {
		if b := &out.Bins[i]; b.N > 0 {
			b.MeanP /= float64(b.N)
			b.Observed /= float64(b.N)
		}
	}
	return out
}

// WriteSVG draws the curve: observed share against mean probability, the diagonal a perfect
// calibration, each bin's dot sized by how many files it holds.
func (rel Reliability) WriteSVG(w io.Writer, title string) error {
	const size, pad = 360.0, 40.0
	x := func(v float64) float64 { return pad + v*size }
	y := func(v float64) float64 { return pad + (1-v)*size }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", size+2*pad, size+2*pad+20)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="18" font-size="13">%s</text>`+"\n", pad, xmlText(title))
	fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", pad, pad, size, size)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#bbb" stroke-dasharray="4 3"/>`+"\n", x(0), y(0), x(1), y(1))
	for i := 0; i <= 10; i += 2 {
		v := float64(i) / 10
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" text-anchor="middle">%.1f</text><text x="%.0f" y="%.1f" text-anchor="end">%.1f</text>`+"\n",
			x(v), pad+size+14, v, pad-4, y(v)+4, v)
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">predicted probability</text>`+"\n", pad+size/2, pad+size+32)
	fmt.Fprintf(&b, `<text transform="translate(12 %.0f) rotate(-90)" text-anchor="middle">share that the fix touched</text>`+"\n", pad+size/2)
	var pts []string
	total := 0
	for _, bin := range rel.Bins {
		total += bin.N
	}
	for _, bin := range rel.Bins {
		if bin.N == 0 {
			continue
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(bin.MeanP), y(bin.Observed)))
		r := 2 + 10*float64(bin.N)/float64(max(total, 1))
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="#2a6fdb" fill-opacity="0.6"><title>%d files, mean p %.3f, observed %.3f</title></circle>`+"\n",
			x(bin.MeanP), y(bin.Observed), r+2, bin.N, bin.MeanP, bin.Observed)
	}
	if len(pts) > 1 {
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#2a6fdb"/>`+"\n", strings.Join(pts, " "))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
