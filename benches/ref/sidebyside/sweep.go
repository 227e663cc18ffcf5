package main

// The sweep: every collective of MPI 2.2 (benches/osu's Ops) at every size
// and rank count, gompi's default selection against the MPI library's own
// (Open MPI: coll/tuned), written as one Markdown table and one SVG heat map
// per operation into a directory.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/benches/internal/heatmap"
	"github.com/gompi/gompi/benches/osu"
)

// sweepConfig is what a sweep measures and how.
type sweepConfig struct {
	ops      []string
	ns       []int
	sizes    string
	reps     int
	osuArgs  string // for both programs, every n
	large    string // for both programs at n >= 32
	lockPath string // held per chunk (one operation at one n); "" for none
	reasons  []reason
	resume   bool
	out      string
	dir      string
	mpirun   string
	timeout  time.Duration // per program run
	command  string        // the command line, for the record
}

// The sweep's two forms. Sizes run from 8 B to 1 MiB in powers of 8 (the
// full form) or of 128 (the quick form); iterations are OSU's defaults in the
// full form and a fifth of them in the quick one.
const (
	fullSizes  = "8,64,512,4096,32768,262144,1048576"
	quickSizes = "8,1024,131072,1048576"
	fullArgs   = "--iters 1000 --skip 200 --iters-large 100 --skip-large 10"
	quickArgs  = "--iters 200 --skip 40 --iters-large 20 --skip-large 4"
)

// sample is one measured point of one side: the per-repetition times.
type sample struct {
	Op    string    `json:"op"`
	N     int       `json:"n"`
	Size  int       `json:"size"`
	Gompi []float64 `json:"gompi_us"`
	MPI   []float64 `json:"mpi_us"`
	// GompiLoop and MPILoop are each repetition's whole loop per
	// iteration (loop_us: rank 0's wall time over the timed calls and the
	// barriers between them), absent from sweeps made before the osu
	// programs reported it. A call that is fast only because its wait moved
	// into the untimed barrier shows here.
	GompiLoop []float64 `json:"gompi_loop_us,omitempty"`
	MPILoop   []float64 `json:"mpi_loop_us,omitempty"`
	// Failed holds, per run that gave no figures, the side and why (a
	// program that outlived --timeout, a crash).
	Failed []string `json:"failed,omitempty"`
}

func (s sample) ratio() float64 { return medianRatio(s.Gompi, s.MPI) }

// loopRatio is the ratio of the whole loops' medians, NaN when either side
// has no loop figure.
func (s sample) loopRatio() float64 { return medianRatio(s.GompiLoop, s.MPILoop) }

func medianRatio(g, m []float64) float64 {
	if len(g) == 0 || len(m) == 0 || median(m) <= 0 {
		return math.NaN()
	}
	return median(g) / median(m)
}

// chunk is one program pair's share of the sweep: one operation at one
// rank count, every size.
func chunkName(op string, n int) string { return fmt.Sprintf("%s/%d", op, n) }

// runSweep measures every point and writes the results into cfg.out. With
// cfg.resume it keeps what an earlier run of the same form left in
// cfg.out/sweep.json and measures only the chunks it had not finished.
func runSweep(cfg sweepConfig) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	commit := gitCommit() // what the binaries are built from
	start := time.Now()
	load0 := loadAverage()
	points := map[[3]int]*sample{} // (op index, n, size)
	var order [][3]int
	done := map[string]bool{}
	var doneOrder []string
	before := 0.0 // minutes spent by the run resumed
	if cfg.resume {
		prev, err := readSweep(cfg.out)
		if err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		if err := prev.Meta.sameForm(cfg); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		for _, s := range prev.Samples {
			oi := slices.Index(cfg.ops, s.Op)
			if oi < 0 || !slices.Contains(prev.Meta.Done, chunkName(s.Op, s.N)) {
				continue // a chunk not finished is measured again
			}
			k := [3]int{oi, s.N, s.Size}
			s := s
			points[k] = &s
			order = append(order, k)
		}
		for _, c := range prev.Meta.Done {
			done[c] = true
			doneOrder = append(doneOrder, c)
		}
		before = prev.Meta.Minutes
		fmt.Fprintf(os.Stderr, "sweep: resuming: %d chunks done before\n", len(done))
	}
	if err := build(cfg.dir, []string{"go", "c"}); err != nil {
		return err
	}
	total := len(cfg.ops) * len(cfg.ns)
	measured, spent := 0, time.Duration(0)
	for oi, op := range cfg.ops {
		for _, n := range cfg.ns {
			if done[chunkName(op, n)] {
				continue
			}
			args := cfg.osuCommand(op, n)
			// Every expected point exists before the runs, so that a run
			// that fails shows as failed rather than missing.
			get := func(size int) *sample {
				k := [3]int{oi, n, size}
				s := points[k]
				if s == nil {
					s = &sample{Op: op, N: n, Size: size}
					points[k] = s
					order = append(order, k)
				}
				return s
			}
			for _, size := range expectedSizes(op, cfg.sizes) {
				get(size)
			}
			t0 := time.Now()
			unlock, waited, err := acquireTimed(cfg.lockPath)
			if err != nil {
				return err
			}
			// Interleaved: each repetition runs both programs, the one that
			// goes first alternating, so drift in the machine's load hits both.
			for r := 0; r < cfg.reps; r++ {
				sides := []string{"go", "c"}
				if r%2 == 1 {
					sides = []string{"c", "go"}
				}
				for _, sd := range sides {
					cmd := command(cfg.dir, cfg.mpirun, "osu", sd, n, args)
					pts, err := runTimed(cmd, cfg.timeout, nil)
					if err != nil {
						fmt.Fprintf(os.Stderr, "sweep: %s: %v (recorded as failed)\n", strings.Join(cmd, " "), err)
						for _, size := range expectedSizes(op, cfg.sizes) {
							if !slices.ContainsFunc(pts, func(p point) bool { return p.Size == size }) {
								s := get(size)
								s.Failed = append(s.Failed, sideNames[sd]+": "+firstLine(err.Error()))
							}
						}
					}
					for _, p := range pts {
						s := get(p.Size)
						if sd == "go" {
							s.Gompi = append(s.Gompi, p.Avg)
							if p.Loop > 0 {
								s.GompiLoop = append(s.GompiLoop, p.Loop)
							}
						} else {
							s.MPI = append(s.MPI, p.Avg)
							if p.Loop > 0 {
								s.MPILoop = append(s.MPILoop, p.Loop)
							}
						}
					}
				}
			}
			unlock()
			took := time.Since(t0) - waited
			measured++
			spent += took
			done[chunkName(op, n)] = true
			doneOrder = append(doneOrder, chunkName(op, n))
			left := time.Duration(float64(spent) / float64(measured) * float64(total-len(done)))
			fmt.Fprintf(os.Stderr, "sweep: [%d/%d] %s n=%d: %.1f s (waited %.1f s for the lock); about %.1f min left\n",
				len(done), total, op, n, took.Seconds(), waited.Seconds(), left.Minutes())
			// Written after every chunk: an interrupted sweep leaves what
			// it measured (the points not reached show as unmeasured), and
			// --resume goes on from there.
			samples := make([]sample, 0, len(order))
			for _, k := range order {
				samples = append(samples, *points[k])
			}
			meta := sweepMeta{
				Command: cfg.command, Start: start.UTC().Format("2006-01-02 15:04 UTC"),
				Minutes: before + time.Since(start).Minutes(), LoadStart: load0, LoadEnd: loadAverage(),
				Commit: commit, CPUs: cpus(), MPI: mpiVersion(),
				Ops: cfg.ops, Ns: cfg.ns, Sizes: cfg.sizes, OSUArgs: cfg.osuArgs, Large: cfg.large, Reps: cfg.reps,
				Done: doneOrder,
			}
			if err := writeSweep(cfg, meta, samples); err != nil {
				return err
			}
		}
	}
	return nil
}

// osuCommand is the arguments of both programs for op at n ranks.
func (cfg sweepConfig) osuCommand(op string, n int) []string {
	args := []string{"--op", op, "--sizes", cfg.sizes, "--format", "json"}
	args = append(args, strings.Fields(cfg.osuArgs)...)
	if n >= 32 {
		args = append(args, strings.Fields(cfg.large)...)
	}
	return args
}

// acquireTimed is acquire, and how long it waited for the lock.
func acquireTimed(path string) (func(), time.Duration, error) {
	t0 := time.Now()
	unlock, err := acquire(path)
	return unlock, time.Since(t0), err
}

// expectedSizes are the sizes a chunk reports: Barrier has none (0 B).
func expectedSizes(op, sizes string) []int {
	if op == "barrier" {
		return []int{0}
	}
	var out []int
	for _, f := range strings.Split(sizes, ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, v)
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// sweepFile is sweep.json.
type sweepFile struct {
	Meta    sweepMeta `json:"meta"`
	Samples []sample  `json:"samples"`
}

// readSweep reads dir/sweep.json.
func readSweep(dir string) (sweepFile, error) {
	var f sweepFile
	raw, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return f, fmt.Errorf("%s: %w", filepath.Join(dir, "sweep.json"), err)
	}
	return f, nil
}

// sameForm reports an error if a sweep recorded with m measured something
// else than cfg would: resuming it would mix two forms in one table.
func (m sweepMeta) sameForm(cfg sweepConfig) error {
	if m.Sizes != cfg.sizes || m.OSUArgs != cfg.osuArgs || m.Large != cfg.large || m.Reps != cfg.reps {
		return fmt.Errorf("the sweep in %s was taken with sizes %q, osu args %q, large args %q, %d repetitions; this one would take %q, %q, %q, %d: run it without --resume or with the same form",
			cfg.out, m.Sizes, m.OSUArgs, m.Large, m.Reps, cfg.sizes, cfg.osuArgs, cfg.large, cfg.reps)
	}
	return nil
}

// rewriteSweep writes sweep.md and the heat maps again from cfg.out's
// sweep.json and the reasons, measuring nothing: after a reason is added.
func rewriteSweep(cfg sweepConfig) error {
	f, err := readSweep(cfg.out)
	if err != nil {
		return fmt.Errorf("--rewrite: %w", err)
	}
	m := f.Meta
	if len(m.Ops) == 0 { // written before the form was recorded
		for _, op := range osu.Ops {
			if slices.ContainsFunc(f.Samples, func(s sample) bool { return s.Op == op }) {
				m.Ops = append(m.Ops, op)
			}
		}
		for _, s := range f.Samples {
			if !slices.Contains(m.Ns, s.N) {
				m.Ns = append(m.Ns, s.N)
			}
			m.Reps = max(m.Reps, len(s.Gompi), len(s.MPI))
		}
		slices.Sort(m.Ns)
	}
	cfg.ops, cfg.ns, cfg.reps = m.Ops, m.Ns, m.Reps
	return writeSweep(cfg, m, f.Samples)
}

// sweepMeta says how and when the figures were taken.
type sweepMeta struct {
	Command   string  `json:"command"`
	Start     string  `json:"start"`
	Minutes   float64 `json:"minutes"`
	LoadStart string  `json:"load_start"`
	LoadEnd   string  `json:"load_end"`
	Commit    string  `json:"commit"`
	CPUs      int     `json:"cpus"`
	MPI       string  `json:"mpi"`
	// The form, so that --resume and --rewrite know what was measured.
	Ops     []string `json:"ops,omitempty"`
	Ns      []int    `json:"ns,omitempty"`
	Sizes   string   `json:"sizes,omitempty"`
	OSUArgs string   `json:"osu_args,omitempty"`
	Large   string   `json:"large_args,omitempty"`
	Reps    int      `json:"reps,omitempty"`
	Done    []string `json:"done,omitempty"` // chunks finished, "op/n"
}

// writeSweep writes sweep.json (every repetition), sweep.md (the tables)
// and OP.svg (a heat map per operation) into cfg.out.
func writeSweep(cfg sweepConfig, meta sweepMeta, samples []sample) error {
	raw, err := json.MarshalIndent(sweepFile{meta, samples}, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.out, "sweep.json"), raw, 0o644); err != nil {
		return err
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# Collectives sweep: gompi against %s\n\n", meta.MPI)
	fmt.Fprintf(&md, "```\n%s\n```\n\n", meta.Command)
	fmt.Fprintf(&md, "Started %s, %.0f minutes, commit `%s`, %d CPUs; load average (1, 5, 15 min) %s at the start, %s at the end. ",
		meta.Start, meta.Minutes, meta.Commit, meta.CPUs, meta.LoadStart, meta.LoadEnd)
	fmt.Fprintf(&md, "Times in µs, timed the OSU way (barrier between calls, mean over ranks of each rank's mean), median of %d interleaved repetitions; ", cfg.reps)
	md.WriteString("ratio = gompi / MPI (below 1: gompi faster), above 1 in bold. ")
	md.WriteString("The loop ratio compares the whole loop instead (rank 0's wall time per iteration, the call and the barrier after it, median of the repetitions): a call that looks fast only because its waits moved into the untimed barrier is not fast there. ")
	if slowRanks := overSubscribed(cfg.ns, meta.CPUs); slowRanks != "" {
		fmt.Fprintf(&md, "**%s ranks are oversubscribed** (more ranks than the %d CPUs).", slowRanks, meta.CPUs)
	}
	md.WriteString("\n\n")
	writeSummary(&md, cfg.ops, samples)
	writeUnexplained(&md, cfg.reasons, samples)
	for _, op := range cfg.ops {
		fmt.Fprintf(&md, "## %s\n\n![%s: gompi / MPI](%s.svg)\n\n", op, op, op)
		md.WriteString("| n | size | gompi µs | MPI µs | gompi / MPI | loop gompi / MPI | reason |\n| ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
		for _, s := range samples {
			if s.Op != op {
				continue
			}
			r := s.ratio()
			rs, why := fmt.Sprintf("%.2f", r), ""
			switch {
			case math.IsNaN(r) && len(s.Failed) > 0:
				rs = "**failed**" // the runs' errors are listed under "Failed runs"
			case math.IsNaN(r):
				rs = "—" // not reached (an interrupted sweep)
			case r > 1:
				rs = "**" + rs + "**"
				why = "unexplained"
				if rsn := reasonFor(cfg.reasons, s); rsn != nil {
					why = "[" + rsn.ID + "](#" + rsn.ID + ")"
				}
			}
			fmt.Fprintf(&md, "| %d | %s | %s | %s | %s | %s | %s |\n", s.N, size(s.Size), us(s.Gompi), us(s.MPI), rs, ratioText(s.loopRatio()), why)
		}
		md.WriteString("\n")
		if err := writeHeatmap(cfg, meta, op, samples); err != nil {
			return err
		}
	}
	writeReasons(&md, cfg.reasons, samples)
	writeFailed(&md, samples)
	return os.WriteFile(filepath.Join(cfg.out, "sweep.md"), []byte(md.String()), 0o644)
}

// writeUnexplained counts the points above 1.0 with and without a reason and
// lists those without.
func writeUnexplained(md *strings.Builder, rs []reason, samples []sample) {
	var above int
	var none []sample
	for _, s := range samples {
		if r := s.ratio(); math.IsNaN(r) || r <= 1 {
			continue
		}
		above++
		if reasonFor(rs, s) == nil {
			none = append(none, s)
		}
	}
	fmt.Fprintf(md, "**Points above 1.0: %d; with a measured reason: %d; unexplained: %d.** ", above, above-len(none), len(none))
	var loops, loopAbove, bothAbove int
	for _, s := range samples {
		l := s.loopRatio()
		if math.IsNaN(l) {
			continue
		}
		loops++
		if l > 1 {
			loopAbove++
			if r := s.ratio(); !math.IsNaN(r) && r > 1 {
				bothAbove++
			}
		}
	}
	if loops > 0 {
		fmt.Fprintf(md, "By the whole loop: %d of %d points above 1.0, %d of them above by the call's figure too. ", loopAbove, loops, bothAbove)
	}
	md.WriteString("Reasons come from the hand-written reasons file (`--reasons`; the format is in `benches/ref/sidebyside/reasons.go` and docs/PERFORMANCE.md), listed under [Reasons](#reasons).\n\n")
	if len(none) == 0 {
		return
	}
	md.WriteString("Unexplained (op, n, size: ratio): ")
	for i, s := range none {
		if i > 0 {
			md.WriteString("; ")
		}
		fmt.Fprintf(md, "%s %d %s: %.2f", s.Op, s.N, size(s.Size), s.ratio())
	}
	md.WriteString(".\n\n")
}

// ratioText is a ratio with two decimals, above 1 in bold, "—" for NaN.
func ratioText(r float64) string {
	switch {
	case math.IsNaN(r):
		return "—"
	case r > 1:
		return fmt.Sprintf("**%.2f**", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// writeReasons lists every reason with its evidence and how many of the
// sweep's points above 1.0 it explains.
func writeReasons(md *strings.Builder, rs []reason, samples []sample) {
	md.WriteString("## Reasons\n\n")
	if len(rs) == 0 {
		md.WriteString("No reasons file was given.\n\n")
		return
	}
	for i := range rs {
		r := &rs[i]
		var used int
		for _, s := range samples {
			if x := s.ratio(); !math.IsNaN(x) && x > 1 && reasonFor(rs, s) == r {
				used++
			}
		}
		ns := "every n"
		if len(r.N) > 0 {
			ns = "n = " + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(r.N)), ", "), "[]")
		}
		hi := "∞"
		if r.MaxBytes > 0 {
			hi = size(r.MaxBytes)
		}
		fmt.Fprintf(md, "<a id=\"%s\"></a>**%s** (%s; %s; %s..%s; explains %d points here). %s Evidence: %s\n\n",
			r.ID, r.ID, strings.Join(r.Ops, ", "), ns, size(r.MinBytes), hi, used, r.Reason, r.Evidence)
	}
}

// writeFailed lists the runs that gave no figures.
func writeFailed(md *strings.Builder, samples []sample) {
	var lines []string
	for _, s := range samples {
		for _, f := range s.Failed {
			lines = append(lines, fmt.Sprintf("- %s n = %d %s: %s", s.Op, s.N, size(s.Size), f))
		}
	}
	if len(lines) == 0 {
		return
	}
	md.WriteString("## Failed runs\n\n")
	md.WriteString(strings.Join(lines, "\n"))
	md.WriteString("\n\n")
}

// writeSummary writes one line per operation: how many points are above 1.0
// and the worst.
func writeSummary(md *strings.Builder, ops []string, samples []sample) {
	md.WriteString("| op | points | above 1.0 | best | worst (n, size) |\n| --- | ---: | ---: | ---: | --- |\n")
	for _, op := range ops {
		var pts, above int
		best, worst := math.Inf(1), math.Inf(-1)
		var at sample
		for _, s := range samples {
			r := s.ratio()
			if s.Op != op || math.IsNaN(r) {
				continue
			}
			pts++
			if r > 1 {
				above++
			}
			best = min(best, r)
			if r > worst {
				worst, at = r, s
			}
		}
		if pts == 0 {
			fmt.Fprintf(md, "| %s | 0 | — | — | — |\n", op)
			continue
		}
		fmt.Fprintf(md, "| %s | %d | %d | %.2f | %.2f (%d, %s) |\n", op, pts, above, best, worst, at.N, size(at.Size))
	}
	md.WriteString("\n")
}

func writeHeatmap(cfg sweepConfig, meta sweepMeta, op string, samples []sample) error {
	var sizes []int
	for _, s := range samples {
		if s.Op == op && !containsInt(sizes, s.Size) {
			sizes = append(sizes, s.Size)
		}
	}
	m := heatmap.Map{
		Title:    fmt.Sprintf("%s: gompi / %s, time per call", op, meta.MPI),
		Subtitle: fmt.Sprintf("median of %d interleaved runs, OSU method; %s, commit %s; %d CPUs (n > %d oversubscribed)", cfg.reps, meta.Start, meta.Commit, meta.CPUs, meta.CPUs),
		RowTitle: "ranks", ColTitle: "message size", Legend: "gompi / MPI time",
	}
	for _, sz := range sizes {
		m.Cols = append(m.Cols, size(sz))
	}
	for _, n := range cfg.ns {
		row := make([]float64, len(sizes))
		for j, sz := range sizes {
			row[j] = math.NaN()
			for _, s := range samples {
				if s.Op == op && s.N == n && s.Size == sz {
					row[j] = s.ratio()
				}
			}
		}
		m.Rows = append(m.Rows, strconv.Itoa(n))
		m.Ratios = append(m.Ratios, row)
	}
	f, err := os.Create(filepath.Join(cfg.out, op+".svg"))
	if err != nil {
		return err
	}
	if err := m.WriteSVG(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// acquire takes an exclusive flock on path (created if missing) and returns
// its release; with path "" it takes nothing.
func acquire(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("--lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("--lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil // closing the last descriptor releases the lock
}

// runTimed runs one program and parses its JSON lines, killing it after
// timeout; on an error it returns the points printed before it.
func runTimed(cmd []string, timeout time.Duration, env []string) ([]point, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pts, err := runJSONContext(ctx, cmd, env)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return pts, fmt.Errorf("no result within %v", timeout)
	}
	return pts, err
}

func us(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	v := median(xs)
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// overSubscribed lists the rank counts above the CPU count ("4 and 8").
func overSubscribed(ns []int, cpus int) string {
	var over []string
	for _, n := range ns {
		if n > cpus {
			over = append(over, strconv.Itoa(n))
		}
	}
	switch len(over) {
	case 0:
		return ""
	case 1:
		return over[0]
	}
	return strings.Join(over[:len(over)-1], ", ") + " and " + over[len(over)-1]
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "?"
	}
	s := strings.TrimSpace(string(out))
	if st, _ := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); len(st) > 0 {
		s += "+changes"
	}
	return s
}

func cpus() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

// mpiVersion names the MPI library the C reference runs on ("Open MPI 4.1.4").
func mpiVersion() string {
	out, err := exec.Command("mpirun", "--version").Output()
	if err != nil {
		return "MPI"
	}
	line := strings.SplitN(string(out), "\n", 2)[0] // "mpirun (Open MPI) 4.1.4"
	if i := strings.Index(line, "("); i >= 0 {
		if j := strings.Index(line[i:], ")"); j > 0 {
			return line[i+1:i+j] + " " + strings.TrimSpace(line[i+j+1:])
		}
	}
	return "MPI"
}
