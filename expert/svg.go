package expert

import (
	"fmt"
	"html"
	"io"
)

var palette = []string{"#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#1f77b4", "#7f7f7f"}

// WriteSVG draws where each rank's time went: per rank a bar of its run
// time, split into the time each problem cost it, the rest of the time in
// calls, and computation (outside calls).
func (r *Report) WriteSVG(w io.Writer) error {
	const left, barH, gap, width = 70.0, 16.0, 4.0, 760.0
	longest := 0.0
	for _, rt := range r.RunTime {
		longest = max(longest, rt)
	}
	if longest <= 0 {
		longest = 1
	}
	scale := width / longest
	legendY := 40 + float64(r.Ranks)*(barH+gap) + 20
	height := legendY + float64(len(r.Problems)+2)*18 + 20
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", left+width+40, height)
	fmt.Fprintf(w, `<text x="10" y="20" font-size="14">Where the time went, per rank (run time %.3f s longest; total %.3f s)</text>`+"\n", longest, r.TotalTime)
	for rank := 0; rank < r.Ranks; rank++ {
		y := 30 + float64(rank)*(barH+gap)
		fmt.Fprintf(w, `<text x="%.0f" y="%.1f" text-anchor="end">rank %d</text>`+"\n", left-6, y+barH-4, rank)
		x := left
		seg := func(sec float64, color, title string) {
			if sec <= 0 {
				return
			}
			fmt.Fprintf(w, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.0f" fill="%s"><title>%s: %.6f s</title></rect>`+"\n",
				x, y, sec*scale, barH, color, html.EscapeString(title), sec)
			x += sec * scale
		}
		waits := 0.0
		for i, p := range r.Problems {
			seg(p.shown[rank], palette[i%len(palette)], p.Name)
			waits += p.shown[rank]
		}
		seg(max(0, r.InCalls[rank]-waits), "#aaaaaa", "other time in calls")
		seg(max(0, r.RunTime[rank]-max(r.InCalls[rank], waits)), "#c6dbef", "computation (outside calls)")
	}
	item := func(i int, color, text string) {
		y := legendY + float64(i)*18
		fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			left, y, color, left+18, y+10, html.EscapeString(text))
	}
	for i, p := range r.Problems {
		item(i, palette[i%len(palette)], fmt.Sprintf("%s: %.2f %% of total time", p.Name, p.Percent))
	}
	item(len(r.Problems), "#aaaaaa", "other time in calls")
	item(len(r.Problems)+1, "#c6dbef", "computation (outside calls)")
	_, err := fmt.Fprintln(w, "</svg>")
	return err
}
