package nettest

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/gompi"
)

// Suite describes the command.
var Suite = msu.Suite{
	Name:     "nettest",
	Synopsis: "[--min SIZE] [--max SIZE] [--reps T] [--rates total,local] [flags]   or   [m<size>] [M<size>] [T<reps>]",
	Description: "The MSU logical-topology test on 3 ranks or more: every channel of a Star (rank 0 with\n" +
		"each other), a Chaos (each with each) and a Ring (each with its neighbours) carries L bytes\n" +
		"each way, uni-directionally (Star, Chaos, Ring: one side answers what it received) or\n" +
		"bi-directionally (iStar, iChaos, iRing: Isend and Irecv at once). Each run is Barrier; t0;\n" +
		"the exchange; Barrier; t1, timed on rank 0. The table gives R(avg) = 2L/T per channel in\n" +
		"MB/sec (MB = 2^20 bytes) of the median of --reps runs, after one run to warm up; sizes\n" +
		"double from --min to --max. CSV and JSON add the time and the range over the runs.",
	Letters:  []msu.Letter{{Letter: 'm', Flag: "min"}, {Letter: 'M', Flag: "max"}, {Letter: 'T', Flag: "reps"}, {Letter: 'o', Flag: "output"}},
	MinRanks: 3, MaxRanks: -1,
}

// Main is the command: it parses args (the original syntax or flags), runs
// the procedures and writes the results on rank 0. Every rank of world
// calls it.
func Main(world *gompi.Comm, args []string, out msu.IO) error {
	fs := pflag.NewFlagSet(Suite.Name, pflag.ContinueOnError)
	fs.SortFlags = false
	lo, hi := params.Size(1), params.Size(1<<20)
	fs.Var(&lo, "min", "first message size (sizes double up to --max)")
	fs.Var(&hi, "max", "last message size")
	reps := fs.Int("reps", 20, "timed runs per procedure and size, T")
	rates := fs.String("rates", "avg", "rates to report besides R(avg): total (R(total)) and local (R(local) at rank 0)")
	var o msu.Options
	o.AddFlags(fs, true)
	if help, err := Suite.Setup(world, fs, args, &o, out.Stderr); help || err != nil {
		return err
	}
	extra, err := ParseRates(*rates)
	if err != nil {
		return msu.Usagef("--rates: %v", err)
	}
	if *reps < 1 {
		return msu.Usagef("T (--reps) must be at least 1, not %d", *reps)
	}
	sizes, err := msu.Sizes(int64(lo), int64(hi), 0, 2)
	if err != nil {
		return err
	}
	cfg := Config{Sizes: sizes, Reps: *reps}
	rs, err := Run(msu.Gompi(world), cfg, func(p Procedure, size int64) { out.Progressf("nettest: %s, %d bytes", p.Name(), size) })
	out.ProgressDone()
	if err != nil || world.Rank() != 0 {
		return err
	}
	fmt.Fprintf(out.Stderr, "# nettest: %d ranks, %d runs per procedure and size after one to warm up, timed by rank 0 with the %s clock; "+
		"figures are the median run, MB = 2^20 bytes\n", world.Size(), cfg.Reps, gompi.Timer().Name())
	err = o.Write(out.Stdout, func(w io.Writer) error {
		if o.Format == report.Text {
			return WriteText(w, rs, extra)
		}
		return Table(rs, extra).Write(w, o.Format)
	})
	if err == nil && o.Plot != "" {
		err = msu.WritePlot(o.Plot, Plot(rs))
	}
	return err
}
