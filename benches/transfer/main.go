package transfer

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/internal/msu"
	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/gompi"
)

// Suite describes the command.
var Suite = msu.Suite{
	Name: "transfer",
	Synopsis: "[--test 1..5] [--min SIZE] [--max SIZE] [--step SIZE | --factor K] [--reps T] [flags]\n" +
		"       benches transf1 … transf5 [m<size>] [M<size>] [s<step> | K<factor>] [T<reps>] [b<size>] [o<file>]",
	Description: "The MSU transfer test on exactly 2 ranks: rank 0 and rank 1 exchange L bytes N times,\n" +
		"rank 0 times the run, T, and the bandwidth is R = 2NL/T in MB/sec (MB = 2^20 bytes); at\n" +
		"L = 0 the time per message, T/(2N), is the latency. The tests:\n" + describeTests() +
		"Each size is measured --reps times; the table shows the median run with the slowest and\n" +
		"fastest in brackets, and under it the fit of T(L) = s + L/R. Sizes grow by --step\n" +
		"(arithmetic) or by --factor (geometric, the default); from 0, a geometric progression\n" +
		"goes on from 1.",
	Letters: []msu.Letter{{Letter: 'm', Flag: "min"}, {Letter: 'M', Flag: "max"}, {Letter: 's', Flag: "step"},
		{Letter: 'S', Flag: "step"}, {Letter: 'K', Flag: "factor"}, {Letter: 'T', Flag: "reps"},
		{Letter: 'b', Flag: "buffer"}, {Letter: 'o', Flag: "output"}},
	MinRanks: 2, MaxRanks: 2,
}

// Main is the command: it parses args (the original syntax or flags), runs
// the tests and writes the results on rank 0. Every rank of world calls it.
func Main(world *gompi.Comm, args []string, out msu.IO) error {
	fs := pflag.NewFlagSet(Suite.Name, pflag.ContinueOnError)
	fs.SortFlags = false
	tests := testList{1, 2, 3, 4, 5}
	lo, hi, step, buffer := params.Size(0), params.Size(1<<20), params.Size(0), params.Size(0)
	fs.Var(&tests, "test", "tests to run: 1 to 5, as a list or range (3, 1,4 or 1..5)")
	fs.Var(&lo, "min", "first message size (0 measures the latency)")
	fs.Var(&hi, "max", "last message size")
	fs.Var(&step, "step", "grow sizes by this step (arithmetic progression)")
	factor := fs.Int("factor", 2, "grow sizes by this factor (geometric progression)")
	reps := fs.Int("reps", 10, "timed runs per test and size, T")
	iters := fs.Int("iters", 0, "exchanges per run, N (0: as many as take --time)")
	budget := fs.Duration("time", 10*time.Millisecond, "how long one run should take when --iters is 0")
	fs.Var(&buffer, "buffer", "attach a buffer of this size for buffered sends (BufferAttach), as the original's b did")
	var o msu.Options
	o.AddFlags(fs, true)
	if help, err := Suite.Setup(world, fs, args, &o, out.Stderr); help || err != nil {
		return err
	}
	if fs.Changed("step") && fs.Changed("factor") {
		return msu.Usagef("s (--step) and K (--factor) exclude each other: give one")
	}
	if *reps < 1 || *iters < 0 || *budget <= 0 {
		return msu.Usagef("T (--reps) must be at least 1, --iters at least 0 and --time positive, not T%d --iters %d --time %v", *reps, *iters, *budget)
	}
	sizes, err := msu.Sizes(int64(lo), int64(hi), int64(step), int64(*factor))
	if err != nil {
		return err
	}
	if buffer > 0 {
		if err := world.BufferAttach(make([]byte, buffer)); err != nil {
			return err
		}
		defer world.BufferDetach()
	}
	cfg := Config{Tests: tests, Sizes: sizes, Reps: *reps, Iters: *iters, Budget: budget.Seconds()}
	rs, err := Run(msu.Gompi(world), cfg, func(test int, size int64) { out.Progressf("transf%d: %d bytes", test, size) })
	out.ProgressDone()
	if err != nil || world.Rank() != 0 {
		return err
	}
	n := fmt.Sprintf("N found per size for runs of about %v", *budget)
	if cfg.Iters > 0 {
		n = fmt.Sprintf("N = %d", cfg.Iters)
	}
	fmt.Fprintf(out.Stderr, "# transfer: 2 ranks, %d runs of N exchanges per size (%s), timed by rank 0 with the %s clock; "+
		"figures are the median run [min .. max], MB = 2^20 bytes\n", cfg.Reps, n, gompi.Timer().Name())
	err = o.Write(out.Stdout, func(w io.Writer) error { return write(w, rs, o.Format, out.Stderr) })
	if err == nil && o.Plot != "" {
		err = msu.WritePlot(o.Plot, Plot(rs))
	}
	return err
}

// write writes the results on rank 0: a table per test in the original's
// format, or one table of them all for CSV and JSON with the fits on stderr.
func write(w io.Writer, rs []Result, f report.Format, stderr io.Writer) error {
	groups := ByTest(rs)
	if f != report.Text {
		for _, g := range groups {
			if fit, err := FitModel(g); err == nil {
				fmt.Fprintf(stderr, "%s: %s\n", Tests[g[0].Test-1].Name(), fit)
			}
		}
		return Table(rs).Write(w, f)
	}
	for i, g := range groups {
		if len(groups) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			t := Tests[g[0].Test-1]
			fmt.Fprintf(w, "%s: %s\n", t.Name(), t.Summary)
		}
		if err := WriteText(w, g); err != nil {
			return err
		}
	}
	return nil
}

// testList is the value of --test: test numbers as a list and ranges.
type testList []int

func (l testList) String() string {
	parts := make([]string, len(l))
	for i, t := range l {
		parts[i] = strconv.Itoa(t)
	}
	return strings.Join(parts, ",")
}

// Set parses "3", "1,4", "1..5" or "1..3,5".
func (l *testList) Set(s string) error {
	var out testList
	for part := range strings.SplitSeq(s, ",") {
		a, b, isRange := strings.Cut(part, "..")
		if !isRange {
			b = a
		}
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || lo < 1 || hi > len(Tests) || lo > hi {
			return fmt.Errorf("bad test %q: want numbers 1 to %d, as 3, 1,4 or 1..5", part, len(Tests))
		}
		for t := lo; t <= hi; t++ {
			out = append(out, t)
		}
	}
	*l = out
	return nil
}

// Type names the value in --help.
func (*testList) Type() string { return "tests" }

// describeTests lists the tests for --help.
func describeTests() string {
	var b strings.Builder
	for _, t := range Tests {
		fmt.Fprintf(&b, "  %d (%s)  %s\n", t.Number, t.Name(), t.Summary)
	}
	return b.String()
}
