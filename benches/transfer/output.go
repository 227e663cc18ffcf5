package transfer

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/benches/internal/plot"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/internal/stats"
)

// Stats summarises a Result's runs: the median, fastest and slowest run, as
// time per message in seconds and as bandwidth in MB/sec (the fastest run
// has the highest bandwidth).
type Stats struct {
	Time, TimeMin, TimeMax float64
	Rate, RateMin, RateMax float64
}

// Stats summarises r.
func (r Result) Stats() Stats {
	med := stats.Median(r.Times)
	lo, hi := stats.MinMax(r.Times)
	return Stats{
		Time: PerMessage(r.Iters, med), TimeMin: PerMessage(r.Iters, lo), TimeMax: PerMessage(r.Iters, hi),
		Rate: Bandwidth(r.Size, r.Iters, med), RateMin: Bandwidth(r.Size, r.Iters, hi), RateMax: Bandwidth(r.Size, r.Iters, lo),
	}
}

// A Fit is the model T(L) = s + L/R fitted by least squares to the median
// time per message at each size.
type Fit struct {
	Latency, LatencyErr     float64 // s and its standard error, seconds
	Bandwidth, BandwidthErr float64 // R and its standard error, MB/sec; NaN unless time grows with size
	Line                    stats.Line
	MinSize, MaxSize        int64
}

// FitModel fits T(L) = s + L/R to one test's results; it needs two sizes.
func FitModel(rs []Result) (Fit, error) {
	x, y := make([]float64, len(rs)), make([]float64, len(rs))
	for i, r := range rs {
		x[i], y[i] = float64(r.Size), r.Stats().Time
	}
	l, err := stats.FitLine(x, y)
	if err != nil {
		return Fit{}, err
	}
	f := Fit{Latency: l.Intercept, LatencyErr: l.InterceptErr, Line: l, MinSize: rs[0].Size, MaxSize: rs[len(rs)-1].Size}
	f.Bandwidth, f.BandwidthErr = math.NaN(), math.NaN()
	if l.Slope > 0 {
		// R = 1/slope; its standard error by the propagation of the slope's.
		f.Bandwidth = 1 / l.Slope / msu.MB
		f.BandwidthErr = l.SlopeErr / (l.Slope * l.Slope) / msu.MB
	}
	return f, nil
}

// String writes the fit as the line under a table.
func (f Fit) String() string {
	pm := func(v, err float64, verb string) string {
		s := fmt.Sprintf(verb, v)
		if !math.IsNaN(err) {
			s += fmt.Sprintf(" ± "+verb, err)
		}
		return s
	}
	r := "R not defined (the time does not grow with the size)"
	if !math.IsNaN(f.Bandwidth) {
		r = "R = " + pm(f.Bandwidth, f.BandwidthErr, "%.1f") + " MB/sec"
	}
	return fmt.Sprintf("T(L) = s + L/R: s = %s microseconds, %s (least squares over %d sizes %d..%d, R² %.4f; ± one standard error)",
		pm(f.Latency*1e6, f.LatencyErr*1e6, "%.3f"), r, f.Line.N, f.MinSize, f.MaxSize, f.Line.R2)
}

// WriteText writes one test's results in the original's format: the
// header, the latency line for size 0, then size and MB/sec. Each figure is
// the median run's, followed by the slowest and the fastest run's in
// brackets; the fit of T(L) = s + L/R comes last.
func WriteText(w io.Writer, rs []Result) error {
	var b strings.Builder
	b.WriteString("Size       Transfer (MB/sec)   [min .. max]\n")
	for _, r := range rs {
		s := r.Stats()
		if r.Size == 0 {
			fmt.Fprintf(&b, "Latency: %.3f microseconds   [%.3f .. %.3f]\n", s.Time*1e6, s.TimeMin*1e6, s.TimeMax*1e6)
			continue
		}
		fmt.Fprintf(&b, "%-10d %12.3f       [%.3f .. %.3f]\n", r.Size, s.Rate, s.RateMin, s.RateMax)
	}
	if f, err := FitModel(rs); err == nil {
		b.WriteString(f.String() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Table lists results one row per test and size, for CSV and JSON: the
// bandwidth (MB = 2^20 bytes) and the time per message in µs of the median
// run, with the range over the runs.
func Table(rs []Result) *report.Table {
	t := report.NewTable("test", "size", "reps", "iters", "mbps", "mbps_min", "mbps_max", "latency_us", "latency_min_us", "latency_max_us")
	for _, r := range rs {
		s := r.Stats()
		t.Add(r.Test, r.Size, len(r.Times), r.Iters, s.Rate, s.RateMin, s.RateMax, s.Time*1e6, s.TimeMin*1e6, s.TimeMax*1e6)
	}
	return t
}

// ByTest splits results by test, in the order they come.
func ByTest(rs []Result) [][]Result {
	var out [][]Result
	for i, r := range rs {
		if i == 0 || r.Test != rs[i-1].Test {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

// Plot draws MB/sec against size, log-log, one series per test with the
// range over the runs as a band; size 0 is left out.
func Plot(rs []Result) *plot.Plot {
	p := msu.RatePlot("MSU transfer test: bandwidth R = 2NL/T (median run, band: min..max)")
	for _, g := range ByTest(rs) {
		s := plot.Series{Name: Tests[g[0].Test-1].Name()}
		for _, r := range g {
			if r.Size == 0 {
				continue
			}
			st := r.Stats()
			s.X, s.Y = append(s.X, float64(r.Size)), append(s.Y, st.Rate)
			s.Lo, s.Hi = append(s.Lo, st.RateMin), append(s.Hi, st.RateMax)
		}
		p.Series = append(p.Series, s)
	}
	return p
}
