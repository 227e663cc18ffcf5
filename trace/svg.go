package trace

import (
	"bufio"
	"fmt"
	"io"
	"math"
)

// svgColors colour calls by kind: sends, receives, waits, collectives,
// everything else.
var svgColors = map[string]string{"send": "#4e79a7", "recv": "#f28e2b", "wait": "#e15759", "coll": "#59a14f", "other": "#9c9c9c"}

func svgKind(name string) string {
	switch k := opKinds[name]; {
	case k == kindBlockingSend || k == kindPostedSend || k == kindSendInit:
		return "send"
	case k == kindRecv || k == kindIrecv || k == kindSendrecv || k == kindRecvInit || k == kindMprobe || k == kindMrecv || name == "Imrecv":
		return "recv"
	case len(name) >= 4 && (name[:4] == "Wait" || name[:4] == "Test"):
		return "wait"
	}
	if otf2Role(name) != rolePoint2Point && otf2Role(name) != roleFunction {
		return "coll"
	}
	return "other"
}

// WriteSVG draws t as a picture: a lane per rank, a box per call (coloured
// by kind: sends, receives, waits, collectives, others), a line from each
// send to the receive that got it. It is meant for small traces (a
// documentation figure, a quick look without a viewer); Perfetto and OTF2
// viewers are for real ones.
func WriteSVG(out io.Writer, t *Trace) error {
	w := bufio.NewWriter(out)
	end := 0.0
	for _, rt := range t.Ranks {
		for i := range rt.Events {
			end = math.Max(end, rt.Events[i].T1)
		}
	}
	if end == 0 {
		end = 1
	}
	const left, width, lane, top = 70.0, 900.0, 26.0, 30.0
	x := func(s float64) float64 { return left + width*s/end }
	y := func(r int) float64 { return top + lane*float64(r) }
	height := y(len(t.Ranks)) + 30
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", left+width+20, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%.0f" y="16">%d ranks, %d messages, %.3g ms</text>`+"\n", left, len(t.Ranks), len(t.Messages), end*1e3)
	for r, rt := range t.Ranks {
		fmt.Fprintf(w, `<text x="8" y="%.1f">rank %d</text>`+"\n", y(r)+lane/2+4, r)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y(r)+lane/2, left+width, y(r)+lane/2)
		for i := range rt.Events {
			e := &rt.Events[i]
			name := rt.Name(e)
			fmt.Fprintf(w, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>%s %s</title></rect>`+"\n",
				x(e.T0), y(r)+4, math.Max(x(e.T1)-x(e.T0), 0.5), lane-8, svgColors[svgKind(name)], name, rt.Site(e))
		}
	}
	for _, m := range t.Messages {
		s, d := t.Event(m.Send), t.Event(m.RecvDone)
		fmt.Fprintf(w, `<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="black" stroke-width="0.6"/>`+"\n",
			x(s.T0), y(m.Src)+lane/2, x(d.T1), y(m.Dst)+lane/2)
	}
	lx := left
	for _, k := range []string{"send", "recv", "wait", "coll", "other"} {
		fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			lx, height-18, svgColors[k], lx+14, height-9, k)
		lx += 80
	}
	fmt.Fprintln(w, "</svg>")
	return w.Flush()
}
