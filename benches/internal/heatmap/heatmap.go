// Package heatmap draws a table of ratios as an SVG heat map: one row per
// rank count, one column per message size, each cell coloured by its ratio on
// a diverging scale centred on 1.0 (white), blue below (the first side is
// faster), red above, logarithmic and clamped at Span times either way, with
// the ratio written in the cell, a title and a legend. The output depends only
// on the input, so tests can compare it.
package heatmap

import (
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// ErrShape is returned when the ratios do not have one value per row and
// column.
var ErrShape = errors.New("heatmap: ratios do not match the rows and columns")

// Span is the ratio at which the colour saturates: the scale runs from
// 1/Span (deepest blue) through 1 (white) to Span (deepest red).
const Span = 4.0

// Map is one heat map.
type Map struct {
	Title    string
	Subtitle string // a second, smaller line under the title (say, the command)
	RowTitle string // what the rows are ("ranks")
	ColTitle string // what the columns are ("message size")
	Legend   string // what the ratio is ("gompi / Open MPI time")
	Rows     []string
	Cols     []string
	Ratios   [][]float64 // [row][column]; NaN or a value <= 0: not measured
}

// The ends of the scale and its centre: ColorBrewer's RdBu, readable with
// the common forms of colour blindness.
var (
	low  = [3]float64{0x21, 0x66, 0xac}
	mid  = [3]float64{0xf7, 0xf7, 0xf7}
	high = [3]float64{0xb2, 0x18, 0x2b}
)

// position maps a ratio to [-1, 1]: 0 at 1.0, ±1 at Span and 1/Span and beyond.
func position(r float64) float64 {
	return max(-1, min(1, math.Log(r)/math.Log(Span)))
}

// Colour is the fill of a cell of ratio r ("#rrggbb"); grey when r is not a
// measurement (NaN, infinite or not positive).
func Colour(r float64) string {
	if !measured(r) {
		return "#d0d0d0"
	}
	t, end := position(r), high
	if t < 0 {
		t, end = -t, low
	}
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(mid[i] + t*(end[i]-mid[i])))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

func measured(r float64) bool { return r > 0 && !math.IsInf(r, 0) && !math.IsNaN(r) }

// Layout, in pixels.
const (
	cellW, cellH = 76, 34
	left, top    = 96, 78
	legendGap    = 36
	legendW      = 18
	legendH      = 200
)

// WriteSVG writes the heat map as a standalone SVG document.
func (m Map) WriteSVG(w io.Writer) error {
	if len(m.Ratios) != len(m.Rows) {
		return fmt.Errorf("%w: %d rows of ratios for %d row labels", ErrShape, len(m.Ratios), len(m.Rows))
	}
	for i, row := range m.Ratios {
		if len(row) != len(m.Cols) {
			return fmt.Errorf("%w: row %d has %d ratios for %d columns", ErrShape, i, len(row), len(m.Cols))
		}
	}
	gridW, gridH := cellW*len(m.Cols), cellH*len(m.Rows)
	legendX := left + gridW + legendGap
	// Wide enough for the legend and, roughly, for the title lines (about
	// 10 px a character at 16 px bold, 6 px at 10 px).
	width := max(legendX+legendW+150, left+10*utf8.RuneCountInString(m.Title), left+6*utf8.RuneCountInString(m.Subtitle))
	height := top + max(gridH, legendH) + 56
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	esc := html.EscapeString
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	p(`<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	p(`<text x="%d" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", left, esc(m.Title))
	if m.Subtitle != "" {
		p(`<text x="%d" y="42" font-size="10" fill="#555555">%s</text>`+"\n", left, esc(m.Subtitle))
	}
	// Column titles above the grid, row titles to its left.
	p(`<text x="%d" y="%d" text-anchor="middle" fill="#333333">%s</text>`+"\n", left+gridW/2, top-24, esc(m.ColTitle))
	for j, c := range m.Cols {
		p(`<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+j*cellW+cellW/2, top-6, esc(c))
	}
	p(`<text x="%d" y="%d" text-anchor="middle" fill="#333333" transform="rotate(-90 %d %d)">%s</text>`+"\n",
		left-52, top+gridH/2, left-52, top+gridH/2, esc(m.RowTitle))
	for i, r := range m.Rows {
		p(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, top+i*cellH+cellH/2+4, esc(r))
	}
	for i, row := range m.Ratios {
		for j, r := range row {
			x, y := left+j*cellW, top+i*cellH
			p(`<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ffffff"/>`+"\n", x, y, cellW, cellH, Colour(r))
			label, ink := "—", "#555555"
			if measured(r) {
				label, ink = fmt.Sprintf("%.2f", r), "#000000"
				if math.Abs(position(r)) > 0.6 {
					ink = "#ffffff"
				}
			}
			p(`<text x="%d" y="%d" text-anchor="middle" fill="%s">%s</text>`+"\n", x+cellW/2, y+cellH/2+4, ink, label)
		}
	}
	// The legend: a vertical gradient from Span (top) to 1/Span (bottom).
	p(`<defs><linearGradient id="scale" x1="0" y1="0" x2="0" y2="1">`)
	for k := 0; k <= 8; k++ {
		t := 1 - float64(k)/4 // 1 .. -1
		p(`<stop offset="%.3f" stop-color="%s"/>`, float64(k)/8, Colour(math.Pow(Span, t)))
	}
	p("</linearGradient></defs>\n")
	p(`<text x="%d" y="%d" fill="#333333">%s</text>`+"\n", legendX, top-24, esc(m.Legend))
	p(`<rect x="%d" y="%d" width="%d" height="%d" fill="url(#scale)" stroke="#888888"/>`+"\n", legendX, top, legendW, legendH)
	for _, tick := range []float64{Span, 2, 1, 0.5, 1 / Span} {
		y := top + int(math.Round((1-position(tick))/2*legendH))
		label := fmt.Sprintf("%gx", tick)
		switch tick {
		case Span:
			label = fmt.Sprintf("≥ %gx slower", Span)
		case 1 / Span:
			label = fmt.Sprintf("≤ %gx (faster)", tick)
		case 1:
			label = "1x (equal)"
		}
		p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#333333"/>`+"\n", legendX+legendW, y, legendX+legendW+5, y)
		p(`<text x="%d" y="%d">%s</text>`+"\n", legendX+legendW+8, y+4, esc(label))
	}
	p(`<text x="%d" y="%d" font-size="10" fill="#555555">blue: below 1.0; red: above; grey: not measured</text>`+"\n", left, top+max(gridH, legendH)+30)
	p("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
