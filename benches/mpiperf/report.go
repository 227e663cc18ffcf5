package mpiperf

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/plot"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/sync/clock"
	"github.com/gompi/gompi/sync/launch"
)

const us = 1e6 // seconds to microseconds

// column is one column of the main table.
type column struct {
	name string
	verb string        // text format, "" for the default
	prov bool          // provenance: only in CSV and JSON (the header says it for text)
	opt  bool          // optional: text leaves it out when it is empty in every row
	val  func(Row) any // nil or NaN: empty
}

func usec(v float64) any { return v * us }

func (r *runner) columns() []column {
	st := func(f func(launch.Stats) float64) func(Row) any {
		return func(w Row) any { return usec(f(w.Stats)) }
	}
	cnt := func(f func(launch.Stats) int) func(Row) any {
		return func(w Row) any {
			if w.Skipped != "" {
				return nil
			}
			return f(w.Stats)
		}
	}
	sync := r.cfg.Sync.Algorithm
	hosts := r.hostSummary()
	cmd := r.cfg.Command
	date := r.begin.UTC().Format(time.RFC3339)
	return []column{
		{name: "method", val: func(w Row) any { return string(w.Method) }},
		{name: "op", val: func(w Row) any { return w.Op }},
		{name: "alg", val: func(w Row) any {
			if w.Alg == "" {
				return "(default)"
			}
			return w.Alg
		}},
		{name: "n", val: func(w Row) any { return w.N }},
		{name: "size", val: func(w Row) any { return w.Size }},
		{name: "bytes", prov: true, val: func(w Row) any { return w.Bytes }},
		{name: "nt", val: cnt(func(s launch.Stats) int { return s.NT })},
		{name: "nc", val: cnt(func(s launch.Stats) int { return s.NC })},
		{name: "ns", val: cnt(func(s launch.Stats) int { return s.NS })},
		{name: "mean_us", verb: "%.3f", val: st(func(s launch.Stats) float64 { return s.Mean })},
		{name: "se_us", verb: "%.3f", val: st(func(s launch.Stats) float64 { return s.SE })},
		{name: "min_us", verb: "%.3f", val: st(func(s launch.Stats) float64 { return s.Min })},
		{name: "max_us", verb: "%.3f", val: st(func(s launch.Stats) float64 { return s.Max })},
		{name: "e_us", verb: "%.3f", val: st(func(s launch.Stats) float64 { return s.E })},
		{name: "ci_low_us", verb: "%.3f", val: st(func(s launch.Stats) float64 { return s.Lo })},
		{name: "ci_high_us", verb: "%.3f", val: st(func(s launch.Stats) float64 { return s.Hi })},
		{name: "late", val: func(w Row) any { return nilIf(w.Method != MethodSync || w.Skipped != "", w.Late) }},
		{name: "overrun", val: func(w Row) any { return nilIf(w.Method != MethodSync || w.Skipped != "", w.Overrun) }},
		{name: "mean_all_us", opt: true, verb: "%.3f", val: func(w Row) any { return usec(w.MeanAll) }},
		{name: "spread_us", opt: true, verb: "%.3f", val: func(w Row) any { return usec(w.Spread) }},
		{name: "ref_spread_us", opt: true, verb: "%.3f", val: func(w Row) any { return usec(w.RefSpread) }},
		{name: "overlap_pct", opt: true, verb: "%.1f", val: func(w Row) any { return w.Overlap }},
		{name: "t_overlap_us", opt: true, verb: "%.3f", val: func(w Row) any { return usec(w.TOverlap) }},
		{name: "delta_us", verb: "%.3f", prov: true, val: func(w Row) any { return usec(w.Delta) }},
		{name: "t_bcast_us", verb: "%.3f", prov: true, val: func(w Row) any { return usec(w.TBcast) }},
		{name: "stop", prov: true, val: func(w Row) any { return w.Stop }},
		{name: "skipped", opt: true, val: func(w Row) any { return nilIf(w.Skipped == "", w.Skipped) }},
		{name: "confidence", prov: true, val: func(Row) any { return r.cfg.Launch.Confidence }},
		{name: "timer", prov: true, val: func(Row) any { return r.cfg.Timer }},
		{name: "sync", prov: true, val: func(Row) any { return sync }},
		{name: "residual_max_us", prov: true, val: func(Row) any { return usec(r.resid.Max) }},
		{name: "residual_median_us", prov: true, val: func(Row) any { return usec(r.resid.Median) }},
		{name: "residual_bound_us", prov: true, val: func(Row) any { return usec(r.resid.MaxBound) }},
		{name: "residual_end_max_us", prov: true, val: func(Row) any { return usec(r.residEnd.Max) }},
		{name: "buffers", prov: true, val: func(Row) any { return r.cfg.Buffers.String() }},
		{name: "root", prov: true, val: func(Row) any { return r.cfg.Root }},
		{name: "ranks", prov: true, val: func(Row) any { return r.world.Size() }},
		{name: "hosts", prov: true, val: func(Row) any { return hosts }},
		{name: "oversubscribed", prov: true, val: func(Row) any { return r.over }},
		{name: "wait", prov: true, val: func(Row) any { return r.wait.String() }},
		{name: "date", prov: true, val: func(Row) any { return date }},
		{name: "cmd", prov: true, val: func(Row) any { return cmd }},
	}
}

func nilIf(cond bool, v any) any {
	if cond {
		return nil
	}
	return v
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case float64:
		return math.IsNaN(x)
	case string:
		return x == ""
	}
	return false
}

// table builds the main table; for text, provenance columns and optional
// columns empty in every row are left out.
func (r *runner) table(text bool) *report.Table {
	var cols []column
	for _, c := range r.columns() {
		if text && c.prov {
			continue
		}
		if text && c.opt {
			used := false
			for _, w := range r.rows {
				if !empty(c.val(w)) {
					used = true
					break
				}
			}
			if !used {
				continue
			}
		}
		cols = append(cols, c)
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	t := report.NewTable(names...)
	for _, c := range cols {
		if c.verb != "" {
			t.SetVerb(c.name, c.verb)
		}
	}
	for _, w := range r.rows {
		v := make([]any, len(cols))
		for i, c := range cols {
			v[i] = c.val(w)
		}
		t.Add(v...)
	}
	return t
}

// hostSummary is the rank→host map, compactly: "a:0-3 b:4-7".
func (r *runner) hostSummary() string {
	var order []string
	by := map[string][]int{}
	for i, h := range r.hosts {
		if _, ok := by[h]; !ok {
			order = append(order, h)
		}
		by[h] = append(by[h], i)
	}
	var parts []string
	for _, h := range order {
		parts = append(parts, fmt.Sprintf("%s:%s", h, jobenv.FormatInts(by[h])))
	}
	return strings.Join(parts, " ")
}

// header is what the report says before the table.
func (r *runner) header() []string {
	c := r.cfg
	p := c.Launch
	var h []string
	add := func(f string, a ...any) { h = append(h, fmt.Sprintf(f, a...)) }
	add("mpiperf: collectives timed by synchronized launch (spec/mpiperf.md); gompi, %s", r.begin.UTC().Format(time.RFC3339))
	add("command: %s", c.Command)
	add("ranks: %d; rank→host: %s; CPUs per host: %d", r.world.Size(), r.hostSummary(), r.cpus[0])
	if r.over {
		nt, bad := 0, 0
		for _, w := range r.rows {
			if w.Method == MethodSync && w.Skipped == "" {
				nt += w.Stats.NT
				bad += w.Stats.NT - w.Stats.NC
			}
		}
		add("OVERSUBSCRIBED: %s. Ranks that share CPUs cannot start simultaneously: the launches are NOT synchronized,", r.overNote)
		add("  and %d of %d launches were invalid (a rank started late or overran). T and its interval use valid launches only;", bad, nt)
		add("  mean_all_us, over all launches, is what ranks sharing CPUs took, not a synchronized measurement.")
	} else {
		add("one rank per CPU or fewer: ranks can start simultaneously")
	}
	add("timer: %s", r.timerNote)
	add("binding: %s", r.bindNote)
	if c.Method == MethodLateInit {
		add("method: lateinit: the first and the second call of each operation on a communicator of its own, rank 0's clock; ratio = first/second (the seed's table 1)")
		add("buffers: the second call uses another buffer of the same size")
		return h
	}
	info := r.g.Info()
	alg, _ := clock.Lookup(info.Algorithm)
	accept := "none (the spec's rule alone)"
	if c.Sync.MaxErr > 0 {
		accept = fmt.Sprintf("%.3f µs", c.Sync.MaxErr*us)
	}
	add("clock sync: %s (%s), d = %d, acceptance bound %s, at most %d exchanges per step; %d exchanges in %v; stated error bound: max %.3f µs (%s)",
		info.Algorithm, alg.Summary, c.Sync.StopAfter, accept, c.Sync.MaxExchanges, info.Exchanges, info.Duration.Round(time.Microsecond), info.MaxErr()*us, alg.Bound)
	if !math.IsNaN(info.RingClosure) {
		add("ring closure: %.3f µs (bound %.3f µs)", info.RingClosure*us, info.RingClosureErr*us)
	}
	add("residual offset vs rank 0 (independent check: one-way minima, %d rounds): after sync max %.3f µs, median %.3f µs (± %.3f µs); at the end max %.3f µs, median %.3f µs (± %.3f µs)",
		r.resid.Rounds, r.resid.Max*us, r.resid.Median*us, r.resid.MaxBound*us, r.residEnd.Max*us, r.residEnd.Median*us, r.residEnd.MaxBound*us)
	if bad := math.Max(info.MaxErr(), math.Max(r.resid.Max, r.residEnd.Max)); c.Sync.MaxErr > 0 && bad > c.Sync.MaxErr {
		add("WARNING: the clocks are synchronized only to %.3f µs, worse than the acceptance bound %.3f µs (the machine was busy during the sync):",
			bad*us, c.Sync.MaxErr*us)
		add("  ranks start up to that far apart in fact while the global clocks say they start together; see ref_spread_us of start_spread")
	}
	if r.refNote != "" {
		add("start spread reference: %s", r.refNote)
	}
	var tb []string
	for _, n := range r.rankCounts() {
		tb = append(tb, fmt.Sprintf("%.3f µs (n=%d)", r.tBcast[n]*us, n))
	}
	add("scheduler: k′ = %d, k = %d, g = %.0f %% (Δ correction), γ = %g, stop rule %s (max launches %d, max valid %d, RSE %.3g with ≥ %d valid), trim %.0f %% each side, p = %.2f, late slack %.3f µs, deadline %v, wait %s; t_bcast %s",
		p.InitLaunches, p.StageLaunches, p.WidenShare*100, p.Gamma, p.Stop, p.MaxLaunches, p.MaxValid, p.TargetRSE, p.MinValid,
		p.Trim*100, p.Confidence, p.LateSlack*us, p.Deadline, r.wait, strings.Join(tb, ", "))
	add("buffers: %s; root: %d; method: %s", r.pool.describe(), c.Root, c.Method)
	if c.Method != MethodSync {
		add("classic: one call, a barrier, %d calls back to back; rank 0's mean per call (IMB style): the columns other than mean_us do not apply", c.ClassicReps)
	}
	add("times in µs. nt launches, nc valid, ns kept after trimming; mean T of the kept; se σ/√nc; e = t_p·se; ci = T ± e;")
	add("min/max over valid launches; a launch's time is the largest over ranks of (end − scheduled start) on the global clock;")
	add("late/overrun: launches some rank started late / finished after its window; spread: median max−min start over ranks")
	return h
}

// write prints the report (rank 0); for CSV and JSON the header goes to
// errOut, so that the output stays machine-readable.
func (r *runner) write(out, errOut io.Writer) error {
	notes, prefix := out, "# "
	if r.cfg.Format != report.Text {
		notes, prefix = errOut, "mpiperf: "
	}
	for _, l := range r.header() {
		fmt.Fprintln(notes, prefix+l)
	}
	var err error
	if r.cfg.Method == MethodLateInit {
		err = r.lateTable(r.cfg.Format == report.Text).Write(out, r.cfg.Format)
	} else {
		err = r.table(r.cfg.Format == report.Text).Write(out, r.cfg.Format)
	}
	if err != nil {
		return err
	}
	if r.cfg.PerRank != "" {
		if err := r.writePerRank(); err != nil {
			return err
		}
	}
	if r.cfg.Plot != "" {
		if err := r.writePlot(); err != nil {
			return err
		}
	}
	if l := r.missingLine(); l != "" {
		fmt.Fprintln(errOut, l)
	}
	return nil
}

// missingLine is one line, for stderr, that says why figures are missing
// and what to do; "" when none is missing.
func (r *runner) missingLine() string {
	missing, points := 0, 0
	for _, w := range r.rows {
		if w.Method == MethodSync && w.Skipped == "" {
			points++
			if w.Stats.NC == 0 {
				missing++
			}
		}
	}
	if missing == 0 {
		return ""
	}
	if !r.over {
		return fmt.Sprintf("mpiperf: no figure at %d of %d points: every launch there had a rank start late or overrun, though each rank has a CPU; other work on the machine does that (see uptime): run again when it is quieter, or with more --max-launches",
			missing, points)
	}
	todo := "run at most one rank per CPU on each host"
	if hosts := len(slices.Compact(slices.Sorted(slices.Values(r.hosts)))); hosts == 1 {
		todo = fmt.Sprintf("run one rank per CPU (golaunch -n %d)", r.cpus[0])
	}
	return fmt.Sprintf("mpiperf: no figure at %d of %d points: %s, so they cannot start together and no launch was valid there; %s for synchronized figures (mean_all_us holds the unsynchronized times)",
		missing, points, r.overNote, todo)
}

// lateTable is the late-initialisation table; CSV and JSON add the
// provenance of each row.
func (r *runner) lateTable(text bool) *report.Table {
	cols := []string{"op", "size", "bytes", "first_us", "second_us", "ratio", "first_max_us", "second_max_us", "skipped"}
	if !text {
		cols = append(cols, "n", "timer", "hosts", "oversubscribed", "date", "cmd")
	}
	t := report.NewTable(cols...)
	for _, c := range []string{"first_us", "second_us", "first_max_us", "second_max_us"} {
		t.SetVerb(c, "%.3f")
	}
	t.SetVerb("ratio", "%.2f")
	for _, l := range r.late {
		v := []any{l.Op, l.Size, l.Bytes, usec(l.First), usec(l.Second), l.Ratio(), usec(l.FirstMax), usec(l.SecondMax), nilIf(l.Skipped == "", l.Skipped)}
		if !text {
			v = append(v, r.world.Size(), r.cfg.Timer, r.hostSummary(), r.over, r.begin.UTC().Format(time.RFC3339), r.cfg.Command)
		}
		t.Add(v...)
	}
	return t
}

func (r *runner) writePerRank() error {
	f, err := os.Create(r.cfg.PerRank)
	if err != nil {
		return err
	}
	t := report.NewTable("method", "op", "alg", "n", "size", "rank", "host", "nc", "ns", "mean_us", "se_us", "min_us", "max_us", "late", "overrun")
	for _, c := range []string{"mean_us", "se_us", "min_us", "max_us"} {
		t.SetVerb(c, "%.3f")
	}
	for _, w := range r.rows {
		for _, p := range w.PerRank {
			t.Add(string(w.Method), w.Op, w.Alg, w.N, w.Size, p.Rank, p.Host, p.Stats.NC, p.Stats.NS,
				usec(p.Stats.Mean), usec(p.Stats.SE), usec(p.Stats.Min), usec(p.Stats.Max), p.Late, p.Overrun)
		}
	}
	if r.cfg.Format == report.Text {
		fmt.Fprintln(f, "# each rank's own times (end − scheduled start, its global clock) over the launches valid on every rank")
	}
	if err := t.Write(f, r.cfg.Format); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writePlot draws time against size, or against ranks when the number of
// ranks varies and the size does not; one series per method, test and
// algorithm (and number of ranks, if both vary).
func (r *runner) writePlot() error {
	byRanks := len(r.rankCounts()) > 1 && len(r.cfg.Sizes) == 1
	ns := r.rankCounts()
	ranks := fmt.Sprintf("%d ranks", ns[0])
	if len(ns) > 1 {
		ranks = fmt.Sprintf("%d to %d ranks", slices.Min(ns), slices.Max(ns))
	}
	pl := &plot.Plot{Title: fmt.Sprintf("mpiperf, %s: time per launch (T; band: the confidence interval)", ranks), YLabel: "time (µs)", YScale: plot.Log}
	unsync := false
	if byRanks {
		pl.XLabel = "ranks"
	} else {
		pl.XLabel, pl.XScale, pl.XFormat = "message size (bytes)", plot.Log2, func(v float64) string { return params.FormatSize(int64(v)) }
	}
	idx := map[string]int{}
	for _, w := range r.rows {
		mean, lo, hi := w.Stats.Mean, w.Stats.Lo, w.Stats.Hi
		all := false
		if (math.IsNaN(mean) || mean <= 0) && r.over && w.MeanAll > 0 {
			// No valid launch, ranks sharing CPUs: what there is, marked.
			mean, lo, hi, all = w.MeanAll, math.NaN(), math.NaN(), true
		}
		if w.Skipped != "" || math.IsNaN(mean) || mean <= 0 {
			continue
		}
		name := fmt.Sprintf("%s %s", w.Op, w.Alg)
		if w.Alg == "" || w.Alg == "-" {
			name = w.Op
		}
		if all {
			name += " (all launches)"
			unsync = true
		}
		if r.cfg.Method == MethodBoth {
			name += " (" + string(w.Method) + ")"
		}
		x := float64(w.Size)
		if byRanks {
			x = float64(w.N)
		} else if len(r.rankCounts()) > 1 {
			name += fmt.Sprintf(" n=%d", w.N)
		}
		if !byRanks && x <= 0 {
			continue
		}
		i, ok := idx[name]
		if !ok {
			i = len(pl.Series)
			idx[name] = i
			pl.Series = append(pl.Series, plot.Series{Name: name})
		}
		s := &pl.Series[i]
		if math.IsNaN(lo) || lo <= 0 {
			lo, hi = mean, mean
		}
		s.X, s.Y = append(s.X, x), append(s.Y, mean*us)
		s.Lo, s.Hi = append(s.Lo, lo*us), append(s.Hi, hi*us)
	}
	if len(pl.Series) == 0 {
		return fmt.Errorf("--plot: no point to draw (every size 0 or no valid launch)")
	}
	if unsync {
		pl.Title = fmt.Sprintf("mpiperf, %s sharing CPUs: NOT synchronized (all launches: the mean over every launch)", ranks)
	}
	return pl.WriteFile(r.cfg.Plot)
}

func writeList(out io.Writer) error {
	w := tabwriter.NewWriter(out, 2, 8, 2, ' ', 0)
	fmt.Fprintln(w, "tests (--op):")
	for _, o := range Ops() {
		fmt.Fprintf(w, "  %s\t%s\n", o.Name, o.Summary)
	}
	fmt.Fprintf(w, "groups: %s\n\nclock synchronization (--sync):\n", strings.Join(groupNames(), ", "))
	for _, a := range clock.Algorithms() {
		fmt.Fprintf(w, "  %s\t%s; cost %s; error bound %s\n", a.Name, a.Summary, a.Cost, a.Bound)
	}
	fmt.Fprintln(w, "\ncollective algorithms (--alg): see `benches coll-algorithms`")
	return w.Flush()
}
