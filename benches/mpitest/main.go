package mpitest

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/internal/stats"
)

// Suite describes the command.
var Suite = msu.Suite{
	Name:     "mpitest",
	Synopsis: "[--reps T] [--fast-reps t] [flags]   or   [T<reps>] [t<reads>]",
	Description: "The MSU basic-operations test on 2 ranks or more: DT, the time of one timer read (Timing);\n" +
		"DB, the time of a Barrier after a Barrier (Barrier); and for every other row\n" +
		"Barrier; t1; the construct; Barrier; t2 and t = t2 - t1 - DT - DB, timed on rank 0. Each\n" +
		"figure is the median in microseconds of --reps runs (after one to warm up; of --fast-reps\n" +
		"reads for DT). Point-to-point rows run between ranks 2k and 2k+1, all pairs at once.\n" +
		"CSV and JSON add the range over the runs and the median of the uncorrected t2 - t1.",
	Letters:  []msu.Letter{{Letter: 'T', Flag: "reps"}, {Letter: 't', Flag: "fast-reps"}, {Letter: 'o', Flag: "output"}},
	MinRanks: 2, MaxRanks: -1,
}

// Main is the command: it parses args (the original syntax or flags), runs
// the rows and writes the results on rank 0. Every rank of world calls it.
func Main(world *gompi.Comm, args []string, out msu.IO) error {
	fs := pflag.NewFlagSet(Suite.Name, pflag.ContinueOnError)
	fs.SortFlags = false
	reps := fs.Int("reps", 200, "timed runs of the Barrier and of every construct, T")
	fast := fs.Int("fast-reps", 100000, "timer reads for DT, t")
	var o msu.Options
	o.AddFlags(fs, false)
	if help, err := Suite.Setup(world, fs, args, &o, out.Stderr); help || err != nil {
		return err
	}
	if *reps < 1 || *fast < 1 {
		return msu.Usagef("T (--reps) and t (--fast-reps) must be at least 1, not T%d t%d", *reps, *fast)
	}
	cfg := Config{Reps: *reps, FastReps: *fast}
	rs, err := Run(msu.Gompi(world), cfg, func(name string) { out.Progressf("mpitest: %s", name) })
	out.ProgressDone()
	if err != nil || world.Rank() != 0 {
		return err
	}
	fmt.Fprintf(out.Stderr, "# mpitest: %d ranks, %d runs per row after one to warm up, %d timer reads for DT, timed by rank 0 with the %s clock; "+
		"t = t2 - t1 - DT - DB with DT = %.3f us and DB = %.3f us; figures are the median in microseconds\n",
		world.Size(), cfg.Reps, cfg.FastReps, gompi.Timer().Name(), rs[0].Median()*1e6, rs[1].Median()*1e6)
	return o.Write(out.Stdout, func(w io.Writer) error {
		if o.Format == report.Text {
			return WriteText(w, rs)
		}
		return Table(rs, world.Size()).Write(w, o.Format)
	})
}

// WriteText writes the original's output: the median time in microseconds,
// then the row's name.
func WriteText(w io.Writer, rs []Result) error {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%10.3f  %s\n", r.Median()*1e6, r.Name)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Table lists the rows for CSV and JSON: the median, shortest and longest
// run in microseconds, and the median of the uncorrected t2 - t1.
func Table(rs []Result, procs int) *report.Table {
	t := report.NewTable("name", "procs", "reps", "time_us", "time_min_us", "time_max_us", "raw_us")
	for _, r := range rs {
		lo, hi := stats.MinMax(r.Times)
		t.Add(r.Name, procs, len(r.Times), r.Median()*1e6, lo*1e6, hi*1e6, stats.Median(r.Raw)*1e6)
	}
	return t
}
