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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/benches/internal/heatmap"
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
}

func (s sample) ratio() float64 {
	g, m := median(s.Gompi), median(s.MPI)
	if len(s.Gompi) == 0 || len(s.MPI) == 0 || m <= 0 {
		return math.NaN()
	}
	return g / m
}

// runSweep measures every point and writes the results into cfg.out.
func runSweep(cfg sweepConfig) error {
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	commit := gitCommit() // what the binaries are built from
	if err := build(cfg.dir, []string{"go", "c"}); err != nil {
		return err
	}
	start := time.Now()
	load0 := loadAverage()
	points := map[[3]int]*sample{} // (op index, n, size)
	var order [][3]int
	for oi, op := range cfg.ops {
		for _, n := range cfg.ns {
			args := []string{"--op", op, "--sizes", cfg.sizes, "--format", "json"}
			args = append(args, strings.Fields(cfg.osuArgs)...)
			if n >= 32 {
				args = append(args, strings.Fields(cfg.large)...)
			}
			t0 := time.Now()
			unlock, err := acquire(cfg.lockPath)
			if err != nil {
				return err
			}
			waited := time.Since(t0)
			// Interleaved: each repetition runs both programs, the one that
			// goes first alternating, so drift in the machine's load hits both.
			for r := 0; r < cfg.reps; r++ {
				sides := []string{"go", "c"}
				if r%2 == 1 {
					sides = []string{"c", "go"}
				}
				for _, sd := range sides {
					cmd := command(cfg.dir, cfg.mpirun, "osu", sd, n, args)
					pts, err := runTimed(cmd, cfg.timeout)
					if err != nil {
						fmt.Fprintf(os.Stderr, "sweep: %s: %v (the point stays unmeasured)\n", strings.Join(cmd, " "), err)
						continue
					}
					for _, p := range pts {
						k := [3]int{oi, p.N, p.Size}
						s := points[k]
						if s == nil {
							s = &sample{Op: op, N: p.N, Size: p.Size}
							points[k] = s
							order = append(order, k)
						}
						if sd == "go" {
							s.Gompi = append(s.Gompi, p.Avg)
						} else {
							s.MPI = append(s.MPI, p.Avg)
						}
					}
				}
			}
			unlock()
			fmt.Fprintf(os.Stderr, "sweep: %s n=%d: %.1f s (waited %.1f s for the lock)\n", op, n, time.Since(t0).Seconds()-waited.Seconds(), waited.Seconds())
			// Written after every chunk: an interrupted sweep leaves what
			// it measured (the points not reached show as unmeasured).
			samples := make([]sample, 0, len(order))
			for _, k := range order {
				samples = append(samples, *points[k])
			}
			meta := sweepMeta{
				Command: cfg.command, Start: start.UTC().Format("2006-01-02 15:04 UTC"),
				Minutes: time.Since(start).Minutes(), LoadStart: load0, LoadEnd: loadAverage(),
				Commit: commit, CPUs: cpus(), MPI: mpiVersion(),
			}
			if err := writeSweep(cfg, meta, samples); err != nil {
				return err
			}
		}
	}
	return nil
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
}

// writeSweep writes sweep.json (every repetition), sweep.md (the tables)
// and OP.svg (a heat map per operation) into cfg.out.
func writeSweep(cfg sweepConfig, meta sweepMeta, samples []sample) error {
	raw, err := json.MarshalIndent(struct {
		Meta    sweepMeta `json:"meta"`
		Samples []sample  `json:"samples"`
	}{meta, samples}, "", " ")
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
	if slowRanks := overSubscribed(cfg.ns, meta.CPUs); slowRanks != "" {
		fmt.Fprintf(&md, "**%s ranks are oversubscribed** (more ranks than the %d CPUs).", slowRanks, meta.CPUs)
	}
	md.WriteString("\n\n")
	writeSummary(&md, cfg.ops, samples)
	for _, op := range cfg.ops {
		fmt.Fprintf(&md, "## %s\n\n![%s: gompi / MPI](%s.svg)\n\n", op, op, op)
		md.WriteString("| n | size | gompi µs | MPI µs | gompi / MPI |\n| ---: | ---: | ---: | ---: | ---: |\n")
		for _, s := range samples {
			if s.Op != op {
				continue
			}
			r := s.ratio()
			rs := fmt.Sprintf("%.2f", r)
			switch {
			case math.IsNaN(r):
				rs = "—" // a run failed: see the sweep's stderr
			case r > 1:
				rs = "**" + rs + "**"
			}
			fmt.Fprintf(&md, "| %d | %s | %s | %s | %s |\n", s.N, size(s.Size), us(s.Gompi), us(s.MPI), rs)
		}
		md.WriteString("\n")
		if err := writeHeatmap(cfg, meta, op, samples); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(cfg.out, "sweep.md"), []byte(md.String()), 0o644)
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
// timeout.
func runTimed(cmd []string, timeout time.Duration) ([]point, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pts, err := runJSONContext(ctx, cmd)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("no result within %v", timeout)
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
