package plot

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/internal/golden"
)

// bandwidth is a log-log plot of size against bandwidth with a band.
func bandwidth() *Plot {
	var sizes, shm, shmLo, shmHi, tcp []float64
	for s := 1.0; s <= 1<<22; s *= 4 {
		sizes = append(sizes, s)
		// T(L) = s + L/R with s = 1 µs, R = 5 GB/s, and 0.3 µs + L/1 GB/s.
		bw := s / (1e-6 + s/5e9)
		shm = append(shm, bw)
		shmLo = append(shmLo, bw*0.9)
		shmHi = append(shmHi, bw*1.1)
		tcp = append(tcp, s/(30e-6+s/1e9))
	}
	return &Plot{
		Title:  "Point-to-point bandwidth",
		XLabel: "message size (bytes)", YLabel: "bandwidth (B/s)",
		XScale: Log2, YScale: Log,
		XFormat: func(v float64) string { return params.FormatSize(int64(v)) },
		Series: []Series{
			{Name: "shared memory", X: sizes, Y: shm, Lo: shmLo, Hi: shmHi},
			{Name: "tcp", X: sizes, Y: tcp, Mode: Points},
		},
	}
}

func linear() *Plot {
	return &Plot{
		Title: "WaitPatternUp <error & check>", XLabel: "ranks", YLabel: "time (s)",
		Width: 500, Height: 300,
		Series: []Series{
			{Name: "measured", X: []float64{1, 2, 3, 4}, Y: []float64{1.1e-6, 2.05e-6, 2.9e-6, 4.2e-6}, Mode: Lines},
			{Name: "true", X: []float64{1, 2, 3, 4}, Y: []float64{1e-6, 2e-6, 3e-6, 4e-6}},
		},
	}
}

func TestGolden(t *testing.T) {
	for name, p := range map[string]*Plot{"bandwidth": bandwidth(), "linear": linear()} {
		var b bytes.Buffer
		if err := p.WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		p.WriteSVG(&again)
		if !bytes.Equal(b.Bytes(), again.Bytes()) {
			t.Errorf("%s: two renderings differ", name)
		}
		golden.Check(t, filepath.Join("testdata", name+".svg"), b.Bytes())
	}
	s := mustSVG(t, linear())
	if !strings.Contains(s, "WaitPatternUp &lt;error &amp; check&gt;") {
		t.Error("title not escaped")
	}
}

func mustSVG(t *testing.T, p *Plot) string {
	t.Helper()
	var b strings.Builder
	if err := p.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestErrors(t *testing.T) {
	cases := map[string]*Plot{
		"length":  {Series: []Series{{X: []float64{1, 2}, Y: []float64{1}}}},
		"band":    {Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{1}}}},
		"empty":   {},
		"log<=0":  {YScale: Log, Series: []Series{{X: []float64{1, 2}, Y: []float64{0, -1}}}},
		"all NaN": {Series: []Series{{X: []float64{math.NaN()}, Y: []float64{1}}}},
	}
	for name, p := range cases {
		if err := p.WriteSVG(&strings.Builder{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Non-positive values are left out of a log axis, the rest is drawn; a
	// single point still gets a range.
	s := mustSVG(t, &Plot{XScale: Log, Series: []Series{{X: []float64{-1, 10}, Y: []float64{5, 5}}}})
	if strings.Count(s, "<circle") != 2 { // the point and its legend mark
		t.Errorf("want one point drawn:\n%s", s)
	}
}

func TestTicks(t *testing.T) {
	cases := []struct {
		scale  Scale
		lo, hi float64 // transformed
		want   []float64
	}{
		{Linear, 0, 10, []float64{0, 2, 4, 6, 8, 10}},
		{Linear, -0.3, 0.9, []float64{-0.2, 0, 0.2, 0.4, 0.6, 0.8}},
		{Log, 0, 3, []float64{1, 10, 100, 1000}},
		{Log, -0.5, 2.2, []float64{1, 10, 100}},
		{Log, 0, 20, []float64{1, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18}},
		{Log2, 0, math.Log10(1 << 10), []float64{1, 4, 16, 64, 256, 1024}},
		{Log2, 0, math.Log10(1 << 22), []float64{1, 8, 64, 512, 4096, 1 << 15, 1 << 18, 1 << 21}},
	}
	for _, c := range cases {
		a := &axis{scale: c.scale, lo: c.lo, hi: c.hi}
		a.makeTicks()
		if !slices.EqualFunc(a.ticks, c.want, func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }) {
			t.Errorf("ticks(%v, %v..%v) = %v, want %v", c.scale, c.lo, c.hi, a.ticks, c.want)
		}
	}
	// Less than a decade on a log axis: linear steps.
	a := &axis{scale: Log, lo: math.Log10(2), hi: math.Log10(8)}
	a.makeTicks()
	if len(a.ticks) < 3 || a.ticks[0] < 2 || a.ticks[len(a.ticks)-1] > 8 {
		t.Errorf("ticks on 2..8 log: %v", a.ticks)
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{1e9, "1e9"}, {2.5e-6, "2.5e-6"}, {120, "120"}, {1e-10, "1e-10"}, {0, "0"}} {
		if got := formatNumber(c.v); got != c.want {
			t.Errorf("formatNumber(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	for _, c := range []struct{ raw, want float64 }{{0.13, 0.2}, {1, 1}, {3, 5}, {7, 10}, {0, 1}} {
		if got := niceStep(c.raw); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("niceStep(%v) = %v, want %v", c.raw, got, c.want)
		}
	}
}

// TestNothingClipped: every text of the figure fits in it, at a width of 7
// px a character (12 px sans-serif; 8 for the 14 px title), however long
// the legend's names and the title, and every legend row is inside it.
func TestNothingClipped(t *testing.T) {
	p := bandwidth()
	p.Title = "mpiperf, 64 ranks sharing CPUs: NOT synchronized (all launches: mean over every launch)"
	for i := 0; i < 30; i++ {
		p.Series = append(p.Series, Series{Name: fmt.Sprintf("bcast scatter_allgather_ring (all launches) %d", i),
			X: []float64{1, 2}, Y: []float64{1, 2}})
	}
	s := mustSVG(t, p)
	var w, h float64
	fmt.Sscanf(s[strings.Index(s, "width="):], `width="%g" height="%g"`, &w, &h)
	textRe := regexp.MustCompile(`<text x="([0-9.]+)" y="([0-9.]+)"( text-anchor="(\w+)")?( style="font-size:(\d+)px")?>([^<]*)</text>`)
	texts := textRe.FindAllStringSubmatch(s, -1)
	if len(texts) < 30 {
		t.Fatalf("found %d texts in:\n%s", len(texts), s)
	}
	for _, m := range texts {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		cw := 7.0
		if m[6] == "14" {
			cw = 8
		}
		tw := cw * float64(utf8.RuneCountInString(html.UnescapeString(m[7])))
		lo, hi := x, x+tw
		switch m[4] {
		case "middle":
			lo, hi = x-tw/2, x+tw/2
		case "end":
			lo, hi = x-tw, x
		}
		if lo < 0 || hi > w || y < 0 || y > h {
			t.Errorf("text %q spans x %.0f..%.0f at y %.0f: outside the %.0f×%.0f figure", m[7], lo, hi, y, w, h)
		}
	}
}
