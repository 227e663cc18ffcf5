package nettest

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/benches/internal/plot"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/internal/stats"
)

// A Rate is one of the spec's three bandwidths.
type Rate int

// The rates. Avg is the one the original reports.
const (
	AvgRate   Rate = iota // R(avg) = 2L/T, per channel
	TotalRate             // R(total) = 2·L·N(P)/T
	LocalRate             // R(local) = 2·L·N_0/T, at rank 0 (the centre of Star)
)

var rateNames = []string{"avg", "total", "local"}

func (k Rate) String() string { return rateNames[k] }

// Title heads a text table of the rate.
func (k Rate) Title() string {
	return [...]string{"R(avg) per channel", "R(total) of all channels", "R(local) at rank 0"}[k] + ", MB/sec"
}

// Of returns the rate of r had its run taken T seconds.
func (k Rate) Of(r Result, T float64) float64 {
	switch k {
	case TotalRate:
		return Total(r.Size, r.Procedure.Topology.Channels(r.Procs), T)
	case LocalRate:
		return Local(r.Size, len(r.Procedure.Topology.Neighbours(0, r.Procs)), T)
	}
	return Avg(r.Size, T)
}

// ParseRates parses the value of --rates: a comma-separated list of total
// and local (avg is always reported, and may be named).
func ParseRates(s string) ([]Rate, error) {
	var out []Rate
	for name := range strings.SplitSeq(s, ",") {
		k := slices.Index(rateNames, strings.TrimSpace(name))
		if k < 0 {
			return nil, fmt.Errorf("bad rate %q: want avg, total or local", name)
		}
		if k != int(AvgRate) && !slices.Contains(out, Rate(k)) {
			out = append(out, Rate(k))
		}
	}
	return out, nil
}

// Stats summarises a Result's runs: the median, shortest and longest t1 - t0.
func (r Result) Stats() (median, lo, hi float64) {
	lo, hi = stats.MinMax(r.Times)
	return stats.Median(r.Times), lo, hi
}

// WriteText writes the original's table, one row per size and one column
// per procedure, of R(avg) of the median run, and a table like it for each
// extra rate, each then under its title. A row for size 0 gives the median
// t1 - t0 in microseconds instead.
func WriteText(w io.Writer, rs []Result, extra []Rate) error {
	var b strings.Builder
	for i, k := range append([]Rate{AvgRate}, extra...) {
		if len(extra) > 0 {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(k.Title() + "\n")
		}
		fmt.Fprintf(&b, "%-10s", "Size")
		for _, p := range Procedures {
			fmt.Fprintf(&b, "%10s", p.Name())
		}
		b.WriteByte('\n')
		for at := 0; at < len(rs); {
			size := rs[at].Size
			label := fmt.Sprint(size)
			if size == 0 {
				label = "0 (usec)"
			}
			fmt.Fprintf(&b, "%-10s", label)
			for ; at < len(rs) && rs[at].Size == size; at++ {
				med, _, _ := rs[at].Stats()
				v := k.Of(rs[at], med)
				if size == 0 {
					v = med * 1e6
				}
				fmt.Fprintf(&b, "%10.3f", v)
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Table lists results one row per procedure and size, for CSV and JSON:
// t1 - t0 in µs and R(avg) of the median run with the range over the runs,
// and the extra rates of the median run.
func Table(rs []Result, extra []Rate) *report.Table {
	cols := []string{"test", "procs", "size", "reps", "time_us", "time_min_us", "time_max_us", "mbps", "mbps_min", "mbps_max"}
	for _, k := range extra {
		cols = append(cols, k.String()+"_mbps")
	}
	t := report.NewTable(cols...)
	for _, r := range rs {
		med, lo, hi := r.Stats()
		row := []any{r.Procedure.Name(), r.Procs, r.Size, len(r.Times), med * 1e6, lo * 1e6, hi * 1e6,
			Avg(r.Size, med), Avg(r.Size, hi), Avg(r.Size, lo)}
		for _, k := range extra {
			row = append(row, k.Of(r, med))
		}
		t.Add(row...)
	}
	return t
}

// Plot draws R(avg) against size, log-log, one series per procedure with
// the range over the runs as a band; size 0 is left out.
func Plot(rs []Result) *plot.Plot {
	procs := 0
	if len(rs) > 0 {
		procs = rs[0].Procs
	}
	p := msu.RatePlot(fmt.Sprintf("MSU nettest, %d ranks: R(avg) = 2L/T per channel (median run, band: min..max)", procs))
	for _, proc := range Procedures {
		s := plot.Series{Name: proc.Name()}
		for _, r := range rs {
			if r.Procedure != proc || r.Size == 0 {
				continue
			}
			med, lo, hi := r.Stats()
			s.X, s.Y = append(s.X, float64(r.Size)), append(s.Y, Avg(r.Size, med))
			s.Lo, s.Hi = append(s.Lo, Avg(r.Size, hi)), append(s.Hi, Avg(r.Size, lo))
		}
		p.Series = append(p.Series, s)
	}
	return p
}
