// Package systest is the system test complex of shared/spec/system-tests.md
// (the seed dvo-system-tests.ru.txt): five tests of the architecture features
// that shape parallel programs — threads under load, single-thread memory
// writes, multi-thread writes under three placements, the NUMA write matrix,
// and messages inside versus across hosts — each measured by the adaptive
// statistics of benches/internal/adaptive, which say for every row whether
// and by which criterion the number can be believed.
package systest

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gompi/gompi/benches/internal/adaptive"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/hwtopo"
	"github.com/gompi/gompi/internal/stats"
)

// ErrParam marks a bad parameter, found before anything runs.
var ErrParam = errors.New("bad parameter")

// A test is one of the five.
type test struct {
	name  string
	title string
	run   func(e *env) error
}

// tests in the seed's order; msg is the only one that needs two ranks.
var tests = []test{
	{"threads", "1. threads under load", runThreads},
	{"memwrite", "2. single-thread memory write", runMemWrite},
	{"multiwrite", "3. multi-thread memory write", runMultiWrite},
	{"numa", "4. NUMA write matrix", runNUMA},
	{"msg", "5. messages inside vs across hosts", runMsg},
}

// Names lists the tests in order.
func Names() []string {
	var n []string
	for _, t := range tests {
		n = append(n, t.name)
	}
	return n
}

// Row is one measured quantity.
type Row struct {
	Test    string  // threads, memwrite, …
	Case    string  // create, block 4K, …
	Impl    string  // goroutine, os-thread, c-pthread, go-loop, c-store …
	Setting string  // load and affinity, placement, pair of nodes, channel …
	Bytes   float64 // bytes per operation, 0 when a rate makes no sense
	Res     adaptive.Result
	Note    string
}

// Seconds is the accepted mean time of one operation.
func (r Row) Seconds() float64 { return r.Res.Value }

// Median is the median time of the last round: not the seed's result, but
// on a busy machine a steadier one to compare.
func (r Row) Median() float64 { return stats.Median(r.Res.Samples) }

// GBps is the rate in 10^9 bytes per second, NaN without Bytes.
func (r Row) GBps() float64 { return r.rate(r.Res.Value) }

func (r Row) rate(seconds float64) float64 {
	if r.Bytes == 0 || !(seconds > 0) {
		return math.NaN()
	}
	return r.Bytes / seconds / 1e9
}

// env is what a running test sees.
type env struct {
	cfg    *Config
	topo   *hwtopo.Topology
	out    io.Writer // the text sections of the report (stdout in text format)
	prog   *progress
	rows   []Row
	notes  []string // said once under the tables
	world  Comm     // nil when run outside a job of two ranks
	plots  []string // SVG files written
	cbuild *cBuild
}

// measure runs the adaptive procedure on sample and records a row.
func (e *env) measure(r Row, sample func() (float64, error)) (Row, error) {
	return e.measureRounds(r, adaptive.PerSample(sample))
}

// measureRounds is measure for a source that gives a whole round at once.
func (e *env) measureRounds(r Row, take adaptive.Source) (Row, error) {
	e.prog.step(r)
	res, err := adaptive.MeasureRounds(e.cfg.Judge, e.cfg.Rounds, take)
	if err != nil {
		return r, fmt.Errorf("%s %s %s %s: %w", r.Test, r.Case, r.Impl, r.Setting, err)
	}
	r.Res = res
	e.rows = append(e.rows, r)
	return r, nil
}

func (e *env) note(format string, a ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, a...))
}

// Comm is the part of a communicator the msg test needs; *gompi.Comm has it.
type Comm interface {
	Rank() int
	Size() int
	Send(buf []byte, dest, tag int) error
	Recv(buf []byte, src, tag int) error
	Transport(r int) string
}

// Run runs the chosen tests and writes the report: tables on stdout (text,
// CSV or JSON), progress on stderr when it is a terminal. world is the job's
// communicator (nil outside a job); with two ranks rank 1 takes part only in
// msg and returns after it.
func Run(cfg *Config, world Comm, stdout, stderr io.Writer) error {
	topo, err := hwtopo.Discover()
	if err != nil {
		return fmt.Errorf("systest: reading the machine's topology: %w", err)
	}
	if err := cfg.Check(topo, memAvailable()); err != nil {
		return err
	}
	rank := 0
	if world != nil {
		rank = world.Rank()
	}
	e := &env{cfg: cfg, topo: topo, world: world, prog: newProgress(stderr, rank == 0 && !cfg.Quiet)}
	e.out = io.Discard
	if cfg.Format == report.Text {
		e.out = stdout
	}
	// Rank 1 only answers the message test; it must not load a core while
	// rank 0 runs the others, so msg runs first and rank 1 then leaves.
	if rank != 0 {
		if rank == 1 && slices.Contains(cfg.Tests, "msg") {
			return msgPeer(e)
		}
		return nil // ranks beyond 1 have nothing to do
	}
	begin := time.Now()
	defer func() { e.cbuild.close() }() // the C references, built by the first test that needs them
	fmt.Fprintf(e.out, "benches systest: %s; %s\n", strings.Join(cfg.Tests, ", "), machineLine(topo))
	fmt.Fprintf(e.out, "statistics: chi-square at %g, spread <= %g%%, interval >= %g%%; rounds from %d doubling, at most %d, %d restart(s); budget %v a row\n",
		cfg.Judge.Alpha, 100*cfg.Judge.Spread, 100*cfg.Judge.Share, cfg.Rounds.Start, cfg.Rounds.MaxRounds, cfg.Rounds.Restarts, cfg.Rounds.Budget)
	if l := loadLine(); l != "" {
		fmt.Fprintf(e.out, "%s\n", l)
	}
	order := slices.Clone(cfg.Tests)
	if i := slices.Index(order, "msg"); i > 0 {
		order = append([]string{"msg"}, slices.Delete(order, i, i+1)...)
	}
	sections := map[string]string{}
	for _, name := range order {
		t := tests[slices.IndexFunc(tests, func(t test) bool { return t.name == name })]
		var sec strings.Builder
		out := e.out
		if e.out != io.Discard {
			e.out = &sec
		}
		fmt.Fprintf(e.out, "\n== %s ==\n", t.title)
		first := len(e.rows)
		t0 := time.Now()
		err := t.run(e)
		e.out = out
		took := time.Since(t0).Round(100 * time.Millisecond)
		if err != nil {
			e.prog.clear()
			return fmt.Errorf("%s: %w", name, err)
		}
		e.writeRows(&sec, e.rows[first:])
		fmt.Fprintf(&sec, "(%s: %v)\n", name, took)
		sections[name] = sec.String()
	}
	e.prog.clear()
	for _, name := range cfg.Tests {
		io.WriteString(e.out, sections[name])
	}
	if cfg.Format != report.Text {
		return e.table(false).Write(stdout, cfg.Format)
	}
	accepted := 0
	for _, r := range e.rows {
		if r.Res.OK() {
			accepted++
		}
	}
	fmt.Fprintf(e.out, "\n%d rows, %d accepted, %d not accepted; %v\n", len(e.rows), accepted, len(e.rows)-accepted, time.Since(begin).Round(100*time.Millisecond))
	for _, n := range e.notes {
		fmt.Fprintf(e.out, "note: %s\n", n)
	}
	for _, p := range e.plots {
		fmt.Fprintf(e.out, "plot: %s\n", p)
	}
	return nil
}

// writeRows prints a test's rows as an aligned table (text format only).
func (e *env) writeRows(w io.Writer, rows []Row) {
	if e.cfg.Format != report.Text || len(rows) == 0 {
		return
	}
	saved := e.rows
	e.rows = rows
	t := e.table(true)
	e.rows = saved
	io.WriteString(w, "\n")
	t.Write(w, report.Text)
}

// table builds the rows' table; CSV and JSON add the samples' details and
// the provenance of each row.
func (e *env) table(text bool) *report.Table {
	cols := []string{"test", "case", "impl", "setting", "seconds", "GB/s", "accepted", "round", "n", "rsd%", "ci95%", "median_s", "note"}
	if !text {
		cols = append(cols, "attempt", "total", "p_value", "interval_lo", "interval_hi", "interval_share",
			"host", "cpu", "cores", "go", "date", "cmd", "load")
	}
	t := report.NewTable(cols...)
	t.SetVerb("seconds", "%.3g").SetVerb("GB/s", "%.3g").SetVerb("rsd%", "%.1f").SetVerb("ci95%", "%.1f").SetVerb("median_s", "%.3g")
	prov := e.provenance()
	for _, r := range e.rows {
		v := []any{r.Test, r.Case, r.Impl, r.Setting, r.Seconds(), r.GBps(), r.Res.Status(), r.Res.Round, r.Res.N, 100 * r.Res.RelSD, 100 * ci95(r.Res), r.Median(), r.Note}
		if !text {
			v = append(v, r.Res.Attempt, r.Res.Total, r.Res.PValue, r.Res.Lo, r.Res.Hi, r.Res.InShare)
			v = append(v, prov...)
		}
		t.Add(v...)
	}
	return t
}

// ci95 is the half-width of the 95 % confidence interval of the mean of
// the last round, as a share of the mean: how far the reported value may be
// from the true mean when the round's law is near normal.
func ci95(r adaptive.Result) float64 {
	if r.N < 2 || !(r.Mean != 0) {
		return math.NaN()
	}
	return stats.TCritical(0.95, float64(r.N-1)) * r.RelSD / math.Sqrt(float64(r.N))
}

func (e *env) provenance() []any {
	host, _ := os.Hostname()
	return []any{host, e.topo.Model, e.topo.NumCores(), runtime.Version(), time.Now().UTC().Format(time.RFC3339), e.cfg.Command, loadLine()}
}

func machineLine(t *hwtopo.Topology) string {
	return fmt.Sprintf("%s, %d cores in %d package(s), %d NUMA node(s), %s, %s", t.Model, t.NumCores(), len(t.Packages), max(1, len(t.Nodes)), runtime.Version(), runtime.GOARCH)
}

// loadLine says how busy the machine was when the run began, from
// /proc/loadavg: figures from a shared machine are compared side by side.
func loadLine() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return fmt.Sprintf("load average at start %s %s %s on %d CPUs (other jobs share the machine: compare rows of one run)", f[0], f[1], f[2], runtime.NumCPU())
}

// memAvailable returns the bytes of memory the kernel says are available
// (MemAvailable, capped by a cgroup limit), 0 when unknown.
func memAvailable() int64 {
	var avail int64
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
				var kb int64
				fmt.Sscan(rest, &kb)
				avail = kb << 10
			}
		}
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		var lim int64
		if _, err := fmt.Sscan(string(b), &lim); err == nil && lim > 0 && (avail == 0 || lim < avail) {
			avail = lim
		}
	}
	return avail
}
