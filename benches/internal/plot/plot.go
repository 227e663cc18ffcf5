// Package plot draws small SVG line and point plots of benchmark results:
// several named series, linear or logarithmic axes, axis labels, a legend,
// and an optional shaded band per series (a confidence interval). The output
// depends only on the input, so it can be compared with a golden file.
package plot

import (
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Scale maps data to an axis.
type Scale int

// Axis scales.
const (
	Linear Scale = iota
	Log          // logarithmic, ticks at powers of 10; values <= 0 are left out
	Log2         // logarithmic, ticks at powers of 2 (byte sizes); values <= 0 are left out
)

// Mode says how a series is drawn.
type Mode int

// Drawing modes.
const (
	LinesPoints Mode = iota // a line through the points, and the points
	Lines                   // only the line
	Points                  // only the points
)

// Series is one named curve. Lo and Hi, when given, have one value per point
// and bound a shaded band (say, a 95 % confidence interval).
type Series struct {
	Name   string
	X, Y   []float64
	Lo, Hi []float64
	Mode   Mode
}

// Plot is a figure. Width and Height default to 720×450; XFormat and
// YFormat, when set, write tick labels (params.FormatSize for byte sizes).
type Plot struct {
	Title, XLabel, YLabel string
	XScale, YScale        Scale
	Series                []Series
	Width, Height         int
	XFormat, YFormat      func(float64) string
}

// Colours: the Okabe–Ito palette, distinguishable with colour blindness.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"}

// Margins around the plotting area; the right one holds the legend and
// grows with its longest name.
const (
	marginL, marginR, marginT, marginB = 80, 170, 40, 55
	font                               = "font-family:sans-serif;font-size:12px"
	// Widths of a character, generous for sans-serif at 12 and 14 px: text
	// is laid out by the viewer, so the figure is sized by these bounds
	// rather than clip a legend or a title.
	charW, titleCharW = 7.5, 8.8
)

// axis maps data values to pixels along one direction.
type axis struct {
	scale      Scale
	lo, hi     float64 // data range, after the scale's transform
	p0, p1     float64 // pixel range
	format     func(float64) string
	ticks      []float64 // in data units
	tickLabels []string
}

func (a *axis) tr(v float64) float64 {
	if a.scale != Linear {
		return math.Log10(v)
	}
	return v
}

func (a *axis) pixel(v float64) float64 {
	return a.p0 + (a.tr(v)-a.lo)/(a.hi-a.lo)*(a.p1-a.p0)
}

// usable reports whether v can be placed on the axis.
func (a *axis) usable(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (a.scale == Linear || v > 0)
}

// WriteFile draws the plot into the file at path.
func (p *Plot) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.WriteSVG(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteSVG draws the plot. It fails when a series' slices differ in length or
// when no point can be drawn (say, only non-positive values on a log axis).
func (p *Plot) WriteSVG(w io.Writer) error {
	W, H := p.Width, p.Height
	if W <= 0 {
		W = 720
	}
	if H <= 0 {
		H = 450
	}
	// The legend's margin fits its longest name, the figure its title and
	// every legend row: nothing is clipped.
	right := marginR
	for _, s := range p.Series {
		right = max(right, 45+int(math.Ceil(charW*float64(utf8.RuneCountInString(s.Name))))+10)
	}
	W += right - marginR
	W = max(W, int(math.Ceil(titleCharW*float64(utf8.RuneCountInString(p.Title))))+20)
	H = max(H, marginT+10+20*len(p.Series)+10)
	x := &axis{scale: p.XScale, p0: marginL, p1: float64(W - right), format: p.XFormat}
	y := &axis{scale: p.YScale, p0: float64(H - marginB), p1: marginT, format: p.YFormat}
	if err := p.ranges(x, y); err != nil {
		return err
	}
	x.makeTicks()
	y.makeTicks()

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" style="%s">`+"\n", W, H, W, H, font)
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", W, H)
	if p.Title != "" {
		fmt.Fprintf(&b, `<text x="%d" y="22" text-anchor="middle" style="font-size:14px">%s</text>`+"\n", W/2, esc(p.Title))
	}
	// Grid, ticks and their labels.
	for i, v := range x.ticks {
		px := x.pixel(v)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#dddddd"/>`+"\n", f2(px), f2(y.p1), f2(px), f2(y.p0))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f2(px), f2(y.p0+16), esc(x.tickLabels[i]))
	}
	for i, v := range y.ticks {
		py := y.pixel(v)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#dddddd"/>`+"\n", f2(x.p0), f2(py), f2(x.p1), f2(py))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end">%s</text>`+"\n", f2(x.p0-6), f2(py+4), esc(y.tickLabels[i]))
	}
	fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#000000"/>`+"\n",
		f2(x.p0), f2(y.p1), f2(x.p1-x.p0), f2(y.p0-y.p1))
	fmt.Fprintf(&b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", f2((x.p0+x.p1)/2), H-12, esc(p.XLabel))
	fmt.Fprintf(&b, `<text x="16" y="%s" text-anchor="middle" transform="rotate(-90 16 %s)">%s</text>`+"\n",
		f2((y.p0+y.p1)/2), f2((y.p0+y.p1)/2), esc(p.YLabel))

	for i, s := range p.Series {
		color := palette[i%len(palette)]
		p.drawSeries(&b, s, x, y, color)
		// Legend entry, drawn as the series is.
		ly := marginT + 10 + 20*i
		lx := W - right + 15
		if s.Mode != Points {
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", lx, ly, lx+24, ly, color)
		}
		if s.Mode != Lines {
			fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="3" fill="%s"/>`+"\n", lx+12, ly, color)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", lx+30, ly+4, esc(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ranges checks the series and sets the axes' data ranges (transformed),
// padded by 5 % on linear axes.
func (p *Plot) ranges(x, y *axis) error {
	x.lo, y.lo = math.Inf(1), math.Inf(1)
	x.hi, y.hi = math.Inf(-1), math.Inf(-1)
	widen := func(a *axis, v float64) {
		if a.usable(v) {
			a.lo, a.hi = math.Min(a.lo, a.tr(v)), math.Max(a.hi, a.tr(v))
		}
	}
	for _, s := range p.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plot: series %q has %d x and %d y values", s.Name, len(s.X), len(s.Y))
		}
		if (s.Lo != nil || s.Hi != nil) && (len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X)) {
			return fmt.Errorf("plot: series %q: the band needs %d low and high values", s.Name, len(s.X))
		}
		for i := range s.X {
			if !x.usable(s.X[i]) || !y.usable(s.Y[i]) {
				continue
			}
			widen(x, s.X[i])
			widen(y, s.Y[i])
			if s.Lo != nil {
				widen(y, s.Lo[i])
				widen(y, s.Hi[i])
			}
		}
	}
	if math.IsInf(x.lo, 0) || math.IsInf(y.lo, 0) {
		return errors.New("plot: no point can be drawn")
	}
	for _, a := range []*axis{x, y} {
		if a.lo == a.hi {
			d := math.Max(math.Abs(a.lo)*0.1, 1)
			if a.scale != Linear {
				d = 0.5
			}
			a.lo, a.hi = a.lo-d, a.hi+d
		} else if a.scale == Linear {
			pad := (a.hi - a.lo) * 0.05
			a.lo, a.hi = a.lo-pad, a.hi+pad
		}
	}
	return nil
}

func (p *Plot) drawSeries(b *strings.Builder, s Series, x, y *axis, color string) {
	type pt struct{ x, y, lo, hi float64 }
	var pts []pt
	for i := range s.X {
		if !x.usable(s.X[i]) || !y.usable(s.Y[i]) {
			continue
		}
		q := pt{x: x.pixel(s.X[i]), y: y.pixel(s.Y[i])}
		if s.Lo != nil {
			if !y.usable(s.Lo[i]) || !y.usable(s.Hi[i]) {
				q.lo, q.hi = math.NaN(), math.NaN()
			} else {
				q.lo, q.hi = y.pixel(s.Lo[i]), y.pixel(s.Hi[i])
			}
		}
		pts = append(pts, q)
	}
	if s.Lo != nil {
		var up, down []string
		for _, q := range pts {
			if !math.IsNaN(q.lo) {
				up = append(up, f2(q.x)+","+f2(q.hi))
				down = append([]string{f2(q.x) + "," + f2(q.lo)}, down...)
			}
		}
		if len(up) > 1 {
			fmt.Fprintf(b, `<polygon points="%s" fill="%s" fill-opacity="0.2" stroke="none"/>`+"\n",
				strings.Join(append(up, down...), " "), color)
		}
	}
	if s.Mode != Points && len(pts) > 1 {
		coords := make([]string, len(pts))
		for i, q := range pts {
			coords[i] = f2(q.x) + "," + f2(q.y)
		}
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(coords, " "), color)
	}
	if s.Mode != Lines {
		for _, q := range pts {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", f2(q.x), f2(q.y), color)
		}
	}
}

// makeTicks places ticks: on a log axis spanning a decade or more, powers of
// ten (Log) or of two (Log2), thinned to at most about eight; otherwise about
// six "nice" values (1, 2 or 5 × 10^k apart).
func (a *axis) makeTicks() {
	a.ticks = nil
	switch {
	case a.scale != Linear && a.hi-a.lo >= 1:
		base := 10.0
		if a.scale == Log2 {
			base = 2
		}
		lo, hi := a.lo/math.Log10(base), a.hi/math.Log10(base) // exponents of base
		step := math.Max(1, math.Ceil((hi-lo)/8))
		for e := math.Ceil(lo/step-1e-9) * step; e <= hi+1e-9; e += step {
			a.ticks = append(a.ticks, math.Pow(base, e))
		}
	default:
		lo, hi := a.lo, a.hi
		if a.scale != Linear {
			lo, hi = math.Pow(10, lo), math.Pow(10, hi)
		}
		step := niceStep((hi - lo) / 6)
		for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
			if math.Abs(v) < step*1e-9 {
				v = 0
			}
			if a.scale == Linear || v > 0 {
				a.ticks = append(a.ticks, v)
			}
		}
	}
	a.tickLabels = make([]string, len(a.ticks))
	for i, v := range a.ticks {
		if a.format != nil {
			a.tickLabels[i] = a.format(v)
		} else {
			a.tickLabels[i] = formatNumber(v)
		}
	}
}

// formatNumber writes a tick value with four significant digits and a short
// exponent: 1e9, 2.5e-6, 120.
func formatNumber(v float64) string {
	s := strconv.FormatFloat(v, 'g', 4, 64)
	s = strings.Replace(s, "e+0", "e", 1)
	s = strings.Replace(s, "e+", "e", 1)
	return strings.Replace(s, "e-0", "e-", 1)
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// f2 writes a pixel coordinate with two decimals.
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func esc(s string) string { return html.EscapeString(s) }
