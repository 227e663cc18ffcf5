package hwtopo

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// Drawing constants, in SVG user units (pixels).
const (
	svgCharX2 = 15 // twice the width of one character of the 12px monospace font
	svgLine   = 16 // height of a label line
	svgPad    = 5  // padding inside a box
	svgGap    = 6  // space between boxes
	svgPUH    = 22 // height of a PU box
	svgFont   = 12
	svgStyle  = "font-family:monospace;font-size:12px"
)

// Box colours, close to lstopo's.
var svgFill = map[ObjType]string{
	ObjMachine:  "#ffffff",
	ObjPackage:  "#dedede",
	ObjGroup:    "#eeeeee",
	ObjCache:    "#ffffff",
	ObjCore:     "#bebebe",
	ObjPU:       "#ffffff",
	ObjNUMANode: "#efdfde",
}

// box is the layout of one object: its size, where its children go.
type box struct {
	o        *Object
	w, h     int
	mem, kid []*box
	rows     [][]*box
	rowH     []int
}

// WriteSVG draws the machine tree as nested boxes, like lstopo's graphical
// output: packages, groups and cores enclose what they hold, caches are bars
// above the objects that share them, NUMA nodes are bars at the top of the
// object they are attached to. The output depends only on the topology.
func (t *Topology) WriteSVG(w io.Writer) error {
	root := layout(t.Tree())
	title := "Machine"
	if t.Model != "" {
		title = t.Model
	}
	W, H := root.w+2*svgGap, root.h+2*svgGap+svgLine
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" style="%s">`+"\n",
		W, H, W, H, svgStyle)
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(title))
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", W, H)
	root.draw(&b, svgGap, svgGap)
	fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", svgGap, H-svgGap, html.EscapeString(title))
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func labelWidth(s string) int { return (len(s)*svgCharX2+1)/2 + 2*svgPad }

// columns is how many children go in one row: packages and groups in a
// near-square grid, everything else at most eight abreast.
func columns(o *Object, n int) int {
	switch {
	case o.Type <= ObjGroup && n > 2:
		return int(math.Ceil(math.Sqrt(float64(n))))
	case n > 8:
		return (n + (n+7)/8 - 1) / ((n + 7) / 8)
	}
	return max(n, 1)
}

func layout(o *Object) *box {
	b := &box{o: o}
	for _, m := range o.MemChildren {
		b.mem = append(b.mem, &box{o: m, w: labelWidth(m.Label()), h: svgLine + 2*svgPad})
	}
	for _, c := range o.Children {
		b.kid = append(b.kid, layout(c))
	}
	cols := columns(o, len(b.kid))
	for i := 0; i < len(b.kid); i += cols {
		row := b.kid[i:min(i+cols, len(b.kid))]
		b.rows = append(b.rows, row)
		h := 0
		for _, k := range row {
			h = max(h, k.h)
		}
		b.rowH = append(b.rowH, h)
	}
	// Width and height of the content below the label.
	contentW, contentH := 0, 0
	if len(b.mem) > 0 {
		mw := 0
		for _, m := range b.mem {
			mw += m.w + svgGap
		}
		contentW, contentH = mw-svgGap, b.mem[0].h+svgGap
	}
	for i, row := range b.rows {
		rw := 0
		for _, k := range row {
			rw += k.w + svgGap
		}
		contentW = max(contentW, rw-svgGap)
		contentH += b.rowH[i] + svgGap
	}
	if len(b.rows) > 0 || len(b.mem) > 0 {
		contentH -= svgGap
	}
	label := labelWidth(o.Label())
	switch o.Type {
	case ObjPU:
		b.w, b.h = labelWidth(fmt.Sprintf("PU P#%d", o.OSIndex)), svgPUH
	case ObjCache: // a bar, then the children below it, no frame
		b.w = max(label, contentW)
		b.h = svgLine + 2*svgPad
		if contentH > 0 {
			b.h += svgGap + contentH
		}
		if len(b.kid) == 1 {
			b.kid[0].stretch(b.w)
		}
	default: // a frame with the label at the top
		b.w = max(label, contentW+2*svgPad)
		b.h = svgLine + 2*svgPad + contentH
		if contentH > 0 {
			b.h += svgPad
		}
	}
	return b
}

// stretch widens a box, and the single child of a cache with it, to w.
func (b *box) stretch(w int) {
	b.w = max(b.w, w)
	if b.o.Type == ObjCache && len(b.kid) == 1 {
		b.kid[0].stretch(w)
	}
}

func (b *box) draw(s *strings.Builder, x, y int) {
	o := b.o
	rect := func(x, y, w, h int, fill string) {
		fmt.Fprintf(s, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#000000"/>`+"\n", x, y, w, h, fill)
	}
	text := func(x, y int, t string) {
		fmt.Fprintf(s, `<text x="%d" y="%d">%s</text>`+"\n", x+svgPad, y+svgPad+svgFont, html.EscapeString(t))
	}
	switch o.Type {
	case ObjPU:
		rect(x, y, b.w, b.h, svgFill[ObjPU])
		text(x, y, fmt.Sprintf("PU P#%d", o.OSIndex))
		return
	case ObjCache:
		rect(x, y, b.w, svgLine+2*svgPad, svgFill[ObjCache])
		text(x, y, o.Label())
		b.drawContent(s, x, y+svgLine+2*svgPad+svgGap)
		return
	}
	rect(x, y, b.w, b.h, svgFill[o.Type])
	text(x, y, o.Label())
	b.drawContent(s, x+svgPad, y+svgLine+2*svgPad)
}

// drawContent draws the memory bars and the rows of children from (x, y).
func (b *box) drawContent(s *strings.Builder, x, y int) {
	if len(b.mem) > 0 {
		mx := x
		for _, m := range b.mem {
			fmt.Fprintf(s, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#000000"/>`+"\n",
				mx, y, m.w, m.h, svgFill[ObjNUMANode])
			fmt.Fprintf(s, `<text x="%d" y="%d">%s</text>`+"\n", mx+svgPad, y+svgPad+svgFont, html.EscapeString(m.o.Label()))
			mx += m.w + svgGap
		}
		y += b.mem[0].h + svgGap
	}
	for i, row := range b.rows {
		kx := x
		for _, k := range row {
			k.draw(s, kx, y)
			kx += k.w + svgGap
		}
		y += b.rowH[i] + svgGap
	}
}
