// Package mpiperf is the `benches mpiperf` suite: every MPI-2.2 collective,
// its nonblocking form, Send and Sendrecv, timed by synchronized launch
// (spec/mpiperf.md; the clocks from sync/clock, the launches from
// sync/launch), with the self tests that check the timer and the
// synchronization, and the classic IMB-style loop beside it to show its
// systematic errors. docs/MPIPERF.md is the user's guide.
package mpiperf

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/internal/outpath"
	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/sync/clock"
	"github.com/gompi/gompi/sync/launch"
)

// Method is how a test is timed.
type Method string

// Methods.
const (
	MethodSync     Method = "sync"     // synchronized launch (the spec's method)
	MethodClassic  Method = "classic"  // barrier + k back-to-back calls, rank 0's mean (IMB)
	MethodBoth     Method = "both"     // both, one row each
	MethodLateInit Method = "lateinit" // first call / second call per operation (the seed's table 1)
)

// Config is everything a run of the suite depends on.
type Config struct {
	Ops         []string     // tests or groups (ParseOps)
	Algs        []string     // collective algorithms: "" the runtime's choice, "all" every one
	Sizes       params.Sizes // message sizes in bytes
	Ranks       params.Sizes // numbers of ranks (the first n); empty: all
	Root        int
	Timer       string
	Sync        clock.Options
	Launch      launch.Params
	Method      Method
	ClassicReps int
	Buffers     BufferPolicy
	Overlap     bool // nonblocking tests: also measure with computation between start and wait
	Format      report.Format
	PerRank     string // file for the per-rank report
	Plot        string // SVG file
	Progress    string // auto, on, off
	Bind        string // auto: one core per rank when they fit; none
	List        bool
	Command     string // the command line, for the header
}

// DefaultConfig is the default sweep: the self tests, then Barrier, Bcast,
// Reduce, Allreduce, Allgather and Alltoall at 8 B, 1 KiB and 64 KiB; the
// clock sync goes on until each pairwise bound is within 1 µs (or 10000
// exchanges).
func DefaultConfig() Config {
	p := launch.DefaultParams()
	p.Deadline = 5 * time.Second
	return Config{
		Ops:  []string{OpWaitNull, OpWaitUp, OpStartSpread, "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"},
		Algs: []string{""}, Sizes: params.Sizes{8, 1 << 10, 64 << 10},
		Timer: "tsc", Sync: clock.Options{MaxErr: 1e-6}.WithDefaults(), Launch: p,
		Method: MethodSync, ClassicReps: 100, Progress: "auto", Bind: "auto",
	}
}

// Flags registers the suite's flags on fs, writing into c (which holds the
// defaults to show). After fs.Parse, call the returned finish: it applies the
// flags that combine and validates c.
func (c *Config) Flags(fs *pflag.FlagSet) (finish func() error) {
	x := &flagExtras{}
	fs.StringSliceVar(&c.Ops, "op", c.Ops, "tests: names (see --list) or groups all, coll, nonblocking, p2p, selftest")
	fs.StringSliceVar(&c.Algs, "alg", c.Algs, `collective algorithms ("" the runtime's choice, "all" every registered one)`)
	fs.Var(&c.Sizes, "sizes", "message sizes: list and ranges, LO..HI doubles, LO..HI:xF multiplies, LO..HI:+S adds (K, M, G)")
	fs.Var(&x.minSize, "min-size", "smallest size of a progression (with --max-size; overrides --sizes)")
	fs.Var(&x.maxSize, "max-size", "largest size of a progression")
	fs.Var(&x.step, "step", "arithmetic step of the progression (instead of --factor)")
	fs.IntVar(&x.factor, "factor", 2, "geometric factor of the progression")
	fs.Var(&c.Ranks, "ranks", "vary the number of ranks: the first n of the job, e.g. 2..8:+1 or 2..16 (doubling)")
	fs.IntVar(&c.Root, "root", c.Root, "root of the rooted collectives")
	fs.StringVar(&c.Timer, "timer", c.Timer, "clock for measurement and sync: tsc, monotonic, realtime, mpi")
	fs.StringVar(&c.Sync.Algorithm, "sync", c.Sync.Algorithm, "clock synchronization: "+syncNames())
	fs.IntVar(&c.Sync.StopAfter, "sync-d", c.Sync.StopAfter, "d: a pairwise sync stops when the minimum RTT has not changed for d exchanges")
	fs.IntVar(&c.Sync.MaxExchanges, "sync-max", c.Sync.MaxExchanges, "at most this many exchanges per pairwise sync")
	fs.Float64Var(&x.syncErrUS, "sync-max-err", c.Sync.MaxErr*1e6, "µs: a pairwise sync (and the check) goes on past d exchanges until its bound RTT_min/2 is within this (0: the spec's rule alone)")
	fs.IntVar(&c.Sync.Epochs, "sync-epochs", c.Sync.Epochs, "epochs of the drift algorithm")
	fs.DurationVar(&c.Sync.EpochGap, "sync-epoch-gap", c.Sync.EpochGap, "pause between the drift algorithm's epochs")
	p := &c.Launch
	fs.IntVar(&p.InitLaunches, "k0", p.InitLaunches, "k′: launches of stage 0 (initialisation, discarded)")
	fs.IntVar(&p.StageLaunches, "k", p.StageLaunches, "k: launches per stage")
	fs.Float64Var(&p.WidenShare, "widen", p.WidenShare, "g: correct Δ when more than this share of a stage's launches is invalid")
	fs.Float64Var(&p.Gamma, "gamma", p.Gamma, "γ: Δ_{j+1} = γ·(t_j − τ_j)/k")
	fs.Var(&p.Stop, "stop", "stop rule: 1 (more than --max-launches or --max-valid), 2 (RSE ≤ --rse with ≥ --min-valid valid, or more than --max-launches), either")
	fs.IntVar(&p.MaxLaunches, "max-launches", p.MaxLaunches, "stop after more than this many launches")
	fs.IntVar(&p.MaxValid, "max-valid", p.MaxValid, "rule 1: stop after more than this many valid launches")
	fs.Float64Var(&p.TargetRSE, "rse", p.TargetRSE, "rule 2: target relative standard error of the mean")
	fs.IntVar(&p.MinValid, "min-valid", p.MinValid, "rule 2: at least this many valid launches")
	fs.Float64Var(&p.Trim, "trim", p.Trim, "share of the valid launch times dropped at each end")
	fs.Float64Var(&p.Confidence, "confidence", p.Confidence, "confidence p of the interval (0.90, 0.95, 0.99)")
	fs.Float64Var(&x.slackUS, "late-slack", p.LateSlack*1e6, "µs a rank may start after its start moment and still be on time")
	fs.IntVar(&p.BcastReps, "bcast-reps", p.BcastReps, "broadcasts timed to bound t_bcast")
	fs.DurationVar(&p.Deadline, "deadline", p.Deadline, "end a measurement after this long even if its stop rule is not met (0: never)")
	fs.Var(&p.Wait, "wait", "how ranks wait for a start: auto (sleep when oversubscribed, else spin), spin, yield, sleep")
	fs.StringVar((*string)(&c.Method), "method", string(c.Method), "sync, classic (IMB-style loop), both, or lateinit (first/second call ratio)")
	fs.IntVar(&c.ClassicReps, "classic-reps", c.ClassicReps, "calls of the classic loop")
	fs.Var(&c.Buffers, "buffers", "hot (one buffer set, in cache) or rotate (over an arena twice the last-level cache)")
	fs.BoolVar(&c.Overlap, "overlap", c.Overlap, "nonblocking tests: measure again with as much computation as the operation takes between start and wait")
	fs.Var(&c.Format, "format", "output: text, csv or json (JSON lines, one object per point)")
	fs.StringVar(&c.PerRank, "per-rank", c.PerRank, "write each rank's own times to this file (in --format)")
	fs.StringVar(&c.Plot, "plot", c.Plot, "draw time vs size (or vs ranks) with the confidence band to this SVG file")
	fs.StringVar(&c.Bind, "bind", c.Bind, "auto: bind each rank to a core of its own when the ranks are processes and do not outnumber the cores; none")
	fs.StringVar(&c.Progress, "progress", c.Progress, "progress lines on stderr: auto (when it is a terminal), on, off")
	fs.BoolVar(&c.List, "list", c.List, "list the tests and the sync algorithms, and exit")
	return func() error { return c.finish(fs, x) }
}

type flagExtras struct {
	minSize, maxSize, step params.Size
	factor                 int
	slackUS, syncErrUS     float64
}

// finish applies the flags that need combining.
func (c *Config) finish(fs *pflag.FlagSet, x *flagExtras) error {
	c.Launch.LateSlack = x.slackUS * 1e-6
	c.Sync.MaxErr = x.syncErrUS * 1e-6
	if fs.Changed("min-size") || fs.Changed("max-size") {
		lo, hi := int64(x.minSize), int64(x.maxSize)
		if !fs.Changed("max-size") {
			hi = lo
		}
		spec := fmt.Sprintf("%d..%d:x%d", lo, hi, x.factor)
		if fs.Changed("step") {
			spec = fmt.Sprintf("%d..%d:+%d", lo, hi, int64(x.step))
		} else if x.factor < 2 {
			return fmt.Errorf("--factor %d: must be at least 2", x.factor)
		}
		s, err := params.ParseSizes(spec)
		if err != nil {
			return fmt.Errorf("--min-size/--max-size: %w", err)
		}
		c.Sizes = s
	}
	return c.Validate()
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if _, err := ParseOps(c.Ops); err != nil {
		return err
	}
	if _, err := clock.Lookup(c.Sync.Algorithm); err != nil {
		return err
	}
	if err := c.Launch.Validate(); err != nil {
		return err
	}
	switch c.Method {
	case MethodSync, MethodClassic, MethodBoth, MethodLateInit:
	default:
		return fmt.Errorf("--method %q: use sync, classic, both or lateinit", c.Method)
	}
	if c.ClassicReps < 1 {
		return fmt.Errorf("--classic-reps %d: at least 1", c.ClassicReps)
	}
	if len(c.Sizes) == 0 {
		return fmt.Errorf("no message size")
	}
	for _, n := range c.Ranks {
		if n < 1 {
			return fmt.Errorf("--ranks: %d ranks", n)
		}
	}
	switch c.Progress {
	case "auto", "on", "off":
	default:
		return fmt.Errorf("--progress %q: use auto, on or off", c.Progress)
	}
	if c.Bind != "auto" && c.Bind != "none" {
		return fmt.Errorf("--bind %q: use auto or none", c.Bind)
	}
	if len(c.Algs) == 0 {
		c.Algs = []string{""}
	}
	// The files are written at the end: refuse now what could not be.
	if err := outpath.Check("--plot", c.Plot); err != nil {
		return err
	}
	if err := outpath.Check("--per-rank", c.PerRank); err != nil {
		return err
	}
	return c.checkAlgs()
}

// checkAlgs refuses an algorithm name that none of the collectives asked
// for has: a typo would otherwise measure nothing and print an empty table.
func (c *Config) checkAlgs() error {
	ops, _ := ParseOps(c.Ops)
	for _, a := range c.Algs {
		if a == "" || a == "all" {
			continue
		}
		var colls []string
		found := false
		for _, op := range ops {
			if op.Kind != Collective && op.Kind != Nonblocking {
				continue
			}
			colls = append(colls, op.Name)
			if _, err := coll.Lookup(op.Coll, a); err == nil {
				found = true
			}
		}
		if found {
			continue
		}
		if len(colls) == 0 {
			return fmt.Errorf("--alg %q: none of the tests asked for (--op) is a collective", a)
		}
		return fmt.Errorf("--alg %q: no collective asked for (%s) has an algorithm of that name; `benches coll-algorithms` lists them, --alg all runs every one", a, strings.Join(colls, ", "))
	}
	return nil
}

func syncNames() string {
	var n []string
	for _, a := range clock.Algorithms() {
		n = append(n, a.Name)
	}
	return strings.Join(n, ", ")
}

// algorithmsFor returns the algorithms to run op with: for collectives the
// names asked for that op has ("" for the runtime's choice, all of them for
// "all"); "-" for tests without algorithms.
func algorithmsFor(op Op, asked []string) []string {
	if op.Kind != Collective && op.Kind != Nonblocking {
		return []string{"-"}
	}
	var out []string
	for _, a := range asked {
		switch a {
		case "":
			out = append(out, "")
		case "all":
			for _, alg := range coll.Algorithms(op.Coll) {
				out = append(out, alg.Name)
			}
		default:
			if _, err := coll.Lookup(op.Coll, a); err == nil {
				out = append(out, a)
			}
		}
	}
	return out
}
