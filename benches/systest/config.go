package systest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/benches/internal/adaptive"
	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/hwtopo"
)

// Config is every parameter of a run; the flags set it.
type Config struct {
	Tests   []string // in the seed's order
	Judge   adaptive.Judge
	Rounds  adaptive.Rounds
	Quick   bool
	Quiet   bool
	Format  report.Format
	PlotDir string
	Command string // the command line, for provenance

	// Test 1.
	Loads    []string // 0, half, all
	Affinity []string // off, on
	Waiters  []int
	Chain    int
	Batch    int // operations per sample of the short operations

	// Test 2.
	MinBlock, MaxBlock int64
	BlockFactor        int64   // each block is this many times the one before
	MemShare           float64 // the largest block is at most this share of available memory

	// Tests 3 and 4.
	ThreadBlock int64 // per thread
	NUMABlock   int64
	Modes       []string // none, scatter, compact

	// Test 5.
	MsgSizes []int64
	Netns    string // auto, on, off
	Golaunch string // path of golaunch for the namespace job; "" finds it
	Shape    string // tc rate of the namespace link, "" for none
	MsgChild string // set in the child job: write rows and samples to this file

	CC string // C compiler for the references; "none" skips them
}

// DefaultConfig is a full run.
func DefaultConfig() *Config {
	return &Config{
		Judge:       adaptive.DefaultJudge,
		Rounds:      adaptive.Rounds{Start: 20, MaxRounds: 6, Restarts: 1, Budget: 3 * time.Second},
		Loads:       []string{"0", "half", "all"},
		Affinity:    []string{"off", "on"},
		Waiters:     []int{100, 200, 500, 1000},
		Chain:       15000,
		Batch:       200,
		MinBlock:    1 << 10,
		BlockFactor: 2,
		MemShare:    0.5,
		ThreadBlock: 256 << 20,
		NUMABlock:   256 << 20,
		Modes:       []string{"none", "scatter", "compact"},
		MsgSizes:    []int64{1 << 10, 128 << 20},
		Netns:       "auto",
		CC:          "cc",
	}
}

// quick is the short form: fewer settings, smaller blocks, a small budget.
func (c *Config) quick(set func(string) bool) {
	def := func(name string, f func()) {
		if !set(name) {
			f()
		}
	}
	def("budget", func() { c.Rounds.Budget = 250 * time.Millisecond })
	def("loads", func() { c.Loads = []string{"0", "all"} })
	def("affinity", func() { c.Affinity = []string{"off"} })
	def("waiters", func() { c.Waiters = []int{100} })
	def("chain", func() { c.Chain = 50 })
	def("batch", func() { c.Batch = 20 })
	def("max-block", func() { c.MaxBlock = 16 << 20 })
	def("block-factor", func() { c.BlockFactor = 4 })
	def("thread-block", func() { c.ThreadBlock = 16 << 20 })
	def("numa-block", func() { c.NUMABlock = 16 << 20 })
	def("msg-sizes", func() { c.MsgSizes = []int64{1 << 10, 16 << 20} })
}

// Flags adds the flags to fs; call finish after parsing, with the test names
// given as arguments.
func (c *Config) Flags(fs *pflag.FlagSet) (finish func(args []string) error) {
	fs.BoolVar(&c.Quick, "quick", false, "the short form (under a minute): fewer settings, 16 MiB blocks, a 250ms budget a row; flags given too win")
	fs.Var(&c.Format, "format", "output format: text, csv or json (csv and json: one row per measurement with provenance)")
	fs.StringVar(&c.PlotDir, "plot", "", "write SVG plots into this directory")
	fs.BoolVar(&c.Quiet, "quiet", false, "no progress line on stderr")
	fs.Float64Var(&c.Judge.Alpha, "alpha", c.Judge.Alpha, "significance of the chi-square test (criteria 1 and 3)")
	fs.Float64Var(&c.Judge.Spread, "spread", c.Judge.Spread, "criterion 2: standard deviation at most this share of the mean")
	fs.Float64Var(&c.Judge.Share, "share", c.Judge.Share, "criterion 3: the histogram interval holds at least this share")
	fs.IntVar(&c.Rounds.Start, "start", c.Rounds.Start, "measurements in the first round (doubled each round)")
	fs.IntVar(&c.Rounds.MaxRounds, "rounds", c.Rounds.MaxRounds, "rounds at most before starting over")
	fs.IntVar(&c.Rounds.Restarts, "restarts", c.Rounds.Restarts, "times to start over when no round is accepted")
	fs.DurationVar(&c.Rounds.Budget, "budget", c.Rounds.Budget, "wall time at most per row: no round starts after it (0: none)")
	fs.StringSliceVar(&c.Loads, "loads", c.Loads, "test 1: load levels: 0, half, all (cores kept busy)")
	fs.StringSliceVar(&c.Affinity, "affinity", c.Affinity, "test 1: off, on (threads pinned)")
	fs.IntSliceVar(&c.Waiters, "waiters", c.Waiters, "test 1: blocked waiters woken")
	fs.IntVar(&c.Chain, "chain", c.Chain, "test 1: threads in the create-and-join chain")
	fs.IntVar(&c.Batch, "batch", c.Batch, "test 1: operations timed together as one measurement")
	minB, maxB := params.Size(c.MinBlock), params.Size(c.MaxBlock)
	fs.Var(&minB, "min-block", "test 2: smallest block")
	fs.Var(&maxB, "max-block", "test 2: largest block (default: 4 × the last-level cache, at most --mem-share of available memory)")
	fs.Int64Var(&c.BlockFactor, "block-factor", c.BlockFactor, "test 2: each block is this many times the one before")
	fs.Float64Var(&c.MemShare, "mem-share", c.MemShare, "test 2: the largest block is at most this share of available memory")
	tb, nb := params.Size(c.ThreadBlock), params.Size(c.NUMABlock)
	fs.Var(&tb, "thread-block", "test 3: block each thread writes")
	fs.Var(&nb, "numa-block", "test 4: block copied between nodes")
	fs.StringSliceVar(&c.Modes, "modes", c.Modes, "test 3: placements: none, scatter (by socket), compact (by core)")
	sizes := params.Sizes(c.MsgSizes)
	fs.Var(&sizes, "msg-sizes", "test 5: message sizes")
	fs.StringVar(&c.Netns, "netns", c.Netns, "test 5: TCP between two network namespaces: auto (when allowed), on (required), off")
	fs.StringVar(&c.Shape, "shape", "", "test 5: limit the namespace link to this tc rate (say 1gbit)")
	fs.StringVar(&c.MsgChild, "msg-child", "", "internal: the job test 5 starts writes its rows here")
	fs.MarkHidden("msg-child")
	fs.StringVar(&c.Golaunch, "golaunch", "", "test 5: golaunch for the namespace job (default: the one running this job, else beside this program, else on PATH)")
	fs.StringVar(&c.CC, "cc", c.CC, "C compiler for the pthread and store-loop references; none to skip them")
	return func(args []string) error {
		c.MinBlock, c.MaxBlock = int64(minB), int64(maxB)
		c.ThreadBlock, c.NUMABlock = int64(tb), int64(nb)
		c.MsgSizes = []int64(sizes)
		if c.Quick {
			c.quick(func(name string) bool { return fs.Changed(name) })
		}
		return c.setTests(args)
	}
}

// setTests picks the tests named, "all" or none for all, in the seed's order.
func (c *Config) setTests(args []string) error {
	want := map[string]bool{}
	for _, a := range args {
		for _, n := range strings.Split(a, ",") {
			switch {
			case n == "all":
				for _, t := range Names() {
					want[t] = true
				}
			case slices.Contains(Names(), n):
				want[n] = true
			default:
				return fmt.Errorf("%w: unknown test %q: the tests are %s, or all", ErrParam, n, strings.Join(Names(), ", "))
			}
		}
	}
	c.Tests = nil
	for _, t := range Names() {
		if want[t] || len(want) == 0 {
			c.Tests = append(c.Tests, t)
		}
	}
	return nil
}

// Check validates every parameter against the machine before anything runs:
// avail is the memory available in bytes (0 when unknown).
func (c *Config) Check(t *hwtopo.Topology, avail int64) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrParam, fmt.Sprintf(format, a...))
	}
	if err := c.Judge.Check(); err != nil {
		return bad("%v", err)
	}
	if err := c.Rounds.Check(); err != nil {
		return bad("%v", err)
	}
	if len(c.Tests) == 0 {
		c.setTests(nil)
	}
	for _, l := range c.Loads {
		if !slices.Contains([]string{"0", "half", "all"}, l) {
			return bad("--loads %q: want 0, half or all", l)
		}
	}
	for _, a := range c.Affinity {
		if a != "off" && a != "on" {
			return bad("--affinity %q: want off or on", a)
		}
	}
	for _, m := range c.Modes {
		if !slices.Contains([]string{"none", "scatter", "compact"}, m) {
			return bad("--modes %q: want none, scatter or compact", m)
		}
	}
	for _, w := range c.Waiters {
		if w < 1 || w > 10000 {
			return bad("--waiters %d: want 1 to 10000", w)
		}
	}
	switch {
	case c.Chain < 2 || c.Chain > 100000:
		return bad("--chain %d: want 2 to 100000", c.Chain)
	case c.Batch < 1:
		return bad("--batch %d: want 1 or more", c.Batch)
	case c.MinBlock < 64:
		return bad("--min-block %s: want at least 64 bytes", params.FormatSize(c.MinBlock))
	case c.BlockFactor < 2:
		return bad("--block-factor %d: want 2 or more", c.BlockFactor)
	case c.MaxBlock != 0 && c.MaxBlock < c.MinBlock:
		return bad("--max-block %s is below --min-block %s", params.FormatSize(c.MaxBlock), params.FormatSize(c.MinBlock))
	case !(c.MemShare > 0 && c.MemShare <= 0.9):
		return bad("--mem-share %v: want more than 0 and at most 0.9", c.MemShare)
	case c.ThreadBlock < 4096:
		return bad("--thread-block %s: want at least 4K", params.FormatSize(c.ThreadBlock))
	case c.NUMABlock < 4096:
		return bad("--numa-block %s: want at least 4K", params.FormatSize(c.NUMABlock))
	case c.Netns != "auto" && c.Netns != "on" && c.Netns != "off":
		return bad("--netns %q: want auto, on or off", c.Netns)
	case len(c.MsgSizes) == 0:
		return bad("--msg-sizes: give at least one size")
	}
	if c.MaxBlock == 0 {
		c.MaxBlock = 4 * max(lastLevelCache(t), 1<<20)
		if avail > 0 {
			c.MaxBlock = min(c.MaxBlock, int64(c.MemShare*float64(avail)))
		}
	}
	// Memory the runs hold at once, against what the kernel says is free.
	if avail > 0 {
		limit := int64(c.MemShare * float64(avail))
		need := map[string]int64{
			"memwrite":   c.MaxBlock,
			"multiwrite": c.ThreadBlock * int64(t.NumCores()),
			"numa":       2 * c.NUMABlock,
			"msg":        4 * slices.Max(c.MsgSizes),
		}
		for _, name := range c.Tests {
			if n := need[name]; n > limit {
				return bad("%s needs %s of memory but --mem-share %g of the %s available is %s: lower the block sizes",
					name, humanSize(n), c.MemShare, humanSize(avail), humanSize(limit))
			}
		}
	}
	return nil
}

// lastLevelCache is the size of the largest cache, 0 when unknown.
func lastLevelCache(t *hwtopo.Topology) int64 {
	var n int64
	for _, c := range caches(t) {
		n = max(n, c.size)
	}
	return n
}

// humanSize writes a byte count in the largest binary unit, one decimal.
func humanSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
