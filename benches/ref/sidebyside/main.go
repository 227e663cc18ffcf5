// Command sidebyside runs the same collective measurements over gompi and
// over an MPI library, alternating them for every point so that the
// machine's slow drift in load hits all alike, and prints the medians of
// the repetitions with their ratio as a Markdown table.
//
//	go run ./benches/ref/sidebyside --ops barrier,bcast --n 2,4,8 --sizes 8,1024
//	go run ./benches/ref/sidebyside --sides go,mpi,c --bench pingpong --sizes 0,8,1024,65536,1048576
//
// The sides: go is benches (or examples/pingpong) over the pure-Go runtime,
// under golaunch; mpi is the same Go program built with -tags mpi (gompi's
// cgo backend over the MPI library), under mpirun; c is the reference C
// program over the same library (benches/ref/osu_coll.c, pingpong.c), under
// mpirun. Ratios are to the last side. With --loop the table also shows
// each side's whole loop per iteration (loop_us: rank 0's wall time over
// the timed calls and the barriers between them) and its ratios, since the
// OSU figure times the call alone. It builds what it needs into --dir
// (mpicc and, for the mpi side, the library's headers).
//
// With --sweep it measures every collective of MPI 2.2 at 2, 4 and 8 ranks
// (--n64 adds 64) and sizes from 8 B to 1 MiB, gompi's default selection
// against the library's, and writes sweep.md (tables), sweep.json (every
// repetition) and one heat map per operation (OP.svg) into --out. --quick is
// a shorter form; --lock FILE holds an flock on FILE while each operation at
// each rank count is measured, and only then, so others can take turns:
//
//	go run ./benches/ref/sidebyside --sweep --quick --out /tmp/sweep --lock /work/measure.lock
//
// Every point above 1.0 gets its reason from OUT/reasons.json (reasons.go)
// or is listed as unexplained; --rewrite writes sweep.md again from
// sweep.json after a reason is added, --resume continues an interrupted
// sweep. With --tune it times every algorithm gompi registers for --ops,
// each forced with GOMPI_COLL_<OP>, against the default selection and the
// MPI library (tune.go), to tune coll/table.go from:
//
//	go run ./benches/ref/sidebyside --tune --ops alltoall --algs pairwise,linear --reps 5 --stat min --quick
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gompi/gompi/benches/osu"
	"github.com/spf13/pflag"
)

// point is one line of either program's JSON output: a collective time
// (osu) or a one-way latency (pingpong).
type point struct {
	Op      string  `json:"op"`
	N       int     `json:"n"`
	Size    int     `json:"size"`
	Avg     float64 `json:"avg_us"`
	Latency float64 `json:"latency_us"`
	// Loop is the osu programs' whole-loop figure: rank 0's wall time per
	// timed iteration, the barrier between calls included (0 from a
	// program that does not report it).
	Loop float64 `json:"loop_us"`
}

func main() {
	ops := pflag.StringSlice("ops", []string{"barrier", "bcast", "allreduce", "allgather", "alltoall"}, "operations")
	ns := pflag.IntSlice("n", []int{2, 4, 8, 16, 64}, "rank counts")
	sizes := pflag.String("sizes", "8,1024,65536,1048576", "sizes in bytes, comma-separated")
	reps := pflag.Int("reps", 3, "repetitions of each point (the median is reported)")
	dir := pflag.String("dir", "/tmp/sidebyside", "where the binaries are built")
	mpirun := pflag.String("mpirun", "mpirun --allow-run-as-root --oversubscribe", "how to start the MPI program")
	extra := pflag.String("osu-args", "", "extra arguments for both programs (e.g. --iters 200)")
	warmup := pflag.Float64("warmup-ms", 50, "collectives: both programs make untimed calls of the first size for this many milliseconds before timing (a Go process's first milliseconds are noisier than its steady state: docs/PERFORMANCE.md); 0 for OSU's skipped calls only")
	large := pflag.String("large-args", "--iters-large 20 --skip-large 2", "arguments for both programs at n >= 32")
	sides := pflag.StringSlice("sides", []string{"go", "c"}, "what to run: go (pure-Go runtime), mpi (gompi over MPI, -tags mpi), c (the C reference), base (benches and golaunch prebuilt in --base-dir: an earlier commit, for before/after)")
	golaunchArgs := pflag.String("golaunch-args", "", "extra arguments for golaunch (e.g. --bind-to core)")
	baseDir := pflag.String("base-dir", "", "for the side base: a directory holding benches, golaunch and pingpong built from another commit")
	cArgs := pflag.String("c-args", "", "extra arguments for the C programs only (e.g. --thread multiple)")
	bench := pflag.String("bench", "osu", "osu (collectives: benches osu, osu_coll.c) or pingpong (examples/pingpong, pingpong.c; --ops and --n ignored)")
	sweep := pflag.Bool("sweep", false, "measure every MPI-2.2 collective at every size and rank count and write tables and heat maps into --out")
	quick := pflag.Bool("quick", false, "sweep: fewer sizes ("+quickSizes+") and calls ("+quickArgs+")")
	n64 := pflag.Bool("n64", false, "sweep: add 64 ranks")
	out := pflag.String("out", "sweep", "sweep: the directory for sweep.md, sweep.json and the heat maps")
	lockPath := pflag.String("lock", "", "sweep: hold an flock on this file while each operation at each rank count is measured (e.g. /work/measure.lock)")
	timeout := pflag.Duration("timeout", 5*time.Minute, "sweep, tune: longest run of one program before its points are recorded as failed")
	reasonsPath := pflag.String("reasons", "", "sweep: the hand-written file of measured reasons for points above 1.0 (default OUT/reasons.json if it exists)")
	resume := pflag.Bool("resume", false, "sweep: keep the chunks an interrupted sweep of the same form finished in OUT/sweep.json and measure the rest")
	rewrite := pflag.Bool("rewrite", false, "sweep: measure nothing; write sweep.md and the heat maps again from OUT/sweep.json and the reasons")
	tune := pflag.Bool("tune", false, "time every algorithm gompi registers for each of --ops (forced with GOMPI_COLL_<OP>) against the default selection and MPI, at n 2,4,8 and the sweep's sizes, and print which wins where")
	algs := pflag.StringSlice("algs", nil, "tune: only these algorithms (default: every one registered)")
	stat := pflag.String("stat", "median", "tune: median or min of the repetitions")
	loop := pflag.Bool("loop", false, "osu: also show each side's whole-loop time per iteration (rank 0's wall time over the timed calls and the barriers between them) and the loop ratios, next to the OSU figure (which times the call alone)")
	pflag.Parse()
	launchArgs = strings.Fields(*golaunchArgs)
	if *sweep || *tune {
		cfg := sweepConfig{
			ops: osu.Ops, ns: []int{2, 4, 8}, sizes: fullSizes, osuArgs: fullArgs, reps: *reps,
			large: *large, lockPath: *lockPath, out: *out, dir: *dir, mpirun: *mpirun, timeout: *timeout,
			command: "go run ./benches/ref/sidebyside " + shellJoin(os.Args[1:]),
		}
		if *quick {
			cfg.sizes, cfg.osuArgs = quickSizes, quickArgs
		}
		if *n64 {
			cfg.ns = append(cfg.ns, 64)
		}
		changed := func(name string) bool { return pflag.CommandLine.Changed(name) }
		if changed("ops") {
			cfg.ops = *ops
		}
		if changed("n") {
			cfg.ns = *ns
		}
		if changed("sizes") {
			cfg.sizes = *sizes
		}
		if changed("osu-args") {
			cfg.osuArgs = *extra
		}
		cfg.osuArgs += warmupArgs(*warmup)
		if *tune {
			if !changed("ops") {
				log.Fatal("--tune: name the operations to tune with --ops")
			}
			if *stat != "median" && *stat != "min" {
				log.Fatalf("--stat %q: median or min", *stat)
			}
			if err := runTune(tuneConfig{cfg, *algs, *stat}, os.Stdout); err != nil {
				log.Fatal(err)
			}
			return
		}
		if *reasonsPath == "" {
			if _, err := os.Stat(filepath.Join(*out, "reasons.json")); err == nil {
				*reasonsPath = filepath.Join(*out, "reasons.json")
			}
		}
		var err error
		if cfg.reasons, err = loadReasons(*reasonsPath); err != nil {
			log.Fatal(err)
		}
		cfg.resume = *resume
		if *rewrite {
			err = rewriteSweep(cfg)
		} else {
			err = runSweep(cfg)
		}
		if err != nil {
			log.Fatal(err)
		}
		return
	}
	for _, sd := range *sides {
		if _, ok := sideNames[sd]; !ok {
			log.Fatalf("--sides: unknown side %q (go, mpi, c)", sd)
		}
	}
	if slices.Contains(*sides, "base") {
		if *baseDir == "" {
			log.Fatal("--sides base needs --base-dir")
		}
		sideDirs["base"] = *baseDir
	}
	if *bench != "osu" && *bench != "pingpong" {
		log.Fatalf("--bench %q: osu or pingpong", *bench)
	}
	if err := build(*dir, *sides); err != nil {
		log.Fatal(err)
	}
	type key struct {
		op      string
		n, size int
	}
	results := map[key][][]float64{}
	loops := map[key][][]float64{}
	var order []key
	if *bench == "pingpong" {
		*ops, *ns = []string{"pingpong"}, []int{2}
	}
	for _, op := range *ops {
		for _, n := range *ns {
			args := []string{"--op", op, "--sizes", *sizes, "--format", "json"}
			args = append(args, strings.Fields(*extra+warmupArgs(*warmup))...)
			if n >= 32 {
				args = append(args, strings.Fields(*large)...)
			}
			for r := 0; r < *reps; r++ {
				for i, sd := range *sides {
					a := args
					if *bench == "pingpong" {
						a = pingpongArgs(*sizes, *extra)
					}
					if sd == "c" {
						a = append(slices.Clone(a), strings.Fields(*cArgs)...)
					}
					cmd := command(*dir, *mpirun, *bench, sd, n, a)
					pts, err := runJSON(cmd)
					if err != nil {
						log.Fatalf("%s: %v", strings.Join(cmd, " "), err)
					}
					for _, p := range pts {
						k := key{p.Op, p.N, p.Size}
						if *bench == "pingpong" {
							k, p.Avg = key{"pingpong", 2, p.Size}, p.Latency
						}
						v, seen := results[k]
						if !seen {
							order = append(order, k)
							v = make([][]float64, len(*sides))
							loops[k] = make([][]float64, len(*sides))
						}
						v[i] = append(v[i], p.Avg)
						results[k] = v
						loops[k][i] = append(loops[k][i], p.Loop)
					}
				}
			}
			fmt.Fprintf(os.Stderr, "done %s n=%d\n", op, n)
		}
	}
	// The table: one column per side, then each side's ratio to the last.
	last := len(*sides) - 1
	head, rule := "| op | n | size |", "| --- | --- | --- |"
	for _, sd := range *sides {
		head += " " + sideNames[sd] + " µs |"
		rule += " --- |"
	}
	for _, sd := range (*sides)[:last] {
		head += " " + sideNames[sd] + " / " + sideNames[(*sides)[last]] + " |"
		rule += " --- |"
	}
	if *loop {
		for _, sd := range *sides {
			head += " " + sideNames[sd] + " loop µs |"
			rule += " --- |"
		}
		for _, sd := range (*sides)[:last] {
			head += " " + sideNames[sd] + " / " + sideNames[(*sides)[last]] + " loop |"
			rule += " --- |"
		}
	}
	fmt.Println(head)
	fmt.Println(rule)
	for _, k := range order {
		row := fmt.Sprintf("| %s | %d | %s |", k.op, k.n, size(k.size)) + ratioCells(results[k])
		if *loop {
			row += ratioCells(loops[k])
		}
		fmt.Println(row)
	}
}

// ratioCells is a row's cells for one figure: each side's median, then each
// side's ratio to the last side's.
func ratioCells(v [][]float64) string {
	var row string
	last := len(v) - 1
	for i := range v {
		row += fmt.Sprintf(" %.2f |", median(v[i]))
	}
	for i := range v[:last] {
		row += fmt.Sprintf(" %.2f |", median(v[i])/median(v[last]))
	}
	return row
}

// sideNames are the column titles of the sides.
var sideNames = map[string]string{"go": "gompi", "mpi": "gompi over MPI", "c": "MPI", "base": "gompi before"}

// warmupArgs is the osu programs' warm-up flag for ms milliseconds, with a
// leading space, or "" for none.
func warmupArgs(ms float64) string {
	if ms <= 0 {
		return ""
	}
	return " --warmup-ms " + strconv.FormatFloat(ms, 'g', -1, 64)
}

// launchArgs are extra arguments for golaunch.
var launchArgs []string

// sideDirs holds, for a side whose programs are built elsewhere, where.
var sideDirs = map[string]string{}

// command is the command line of one side's program for n ranks.
func command(dir, mpirun, bench, side string, n int, args []string) []string {
	prog := map[string]map[string][]string{
		"osu":      {"go": {"benches", "osu"}, "base": {"benches", "osu"}, "mpi": {"benches-mpi", "osu"}, "c": {"osu_coll"}},
		"pingpong": {"go": {"pingpong"}, "base": {"pingpong"}, "mpi": {"pingpong-mpi"}, "c": {"pingpong_c"}},
	}[bench][side]
	prog = slices.Clone(prog)
	if d, ok := sideDirs[side]; ok {
		dir = d
	}
	prog[0] = filepath.Join(dir, prog[0])
	if side == "go" || side == "base" {
		launch := append([]string{filepath.Join(dir, "golaunch"), "-n", strconv.Itoa(n)}, launchArgs...)
		return append(append(launch, prog...), args...)
	}
	return append(append(append(strings.Fields(mpirun), "-n", strconv.Itoa(n)), prog...), args...)
}

// pingpongArgs runs the ping-pong programs over the smallest to the largest
// of sizes (they measure 0 and every power of two in between).
func pingpongArgs(sizes, extra string) []string {
	lo, hi := -1, 0
	for _, f := range strings.Split(sizes, ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			if lo < 0 || v < lo {
				lo = v
			}
			hi = max(hi, v)
		}
	}
	return append([]string{"--format", "json", "--min", strconv.Itoa(max(lo, 0)), "--max", strconv.Itoa(hi)}, strings.Fields(extra)...)
}

func runJSON(cmd []string) ([]point, error) {
	return runJSONContext(context.Background(), cmd, nil)
}

// runJSONContext runs cmd, with env added to this process's environment, and
// parses the JSON lines of its output.
func runJSONContext(ctx context.Context, cmd []string, env []string) ([]point, error) {
	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	if len(env) > 0 {
		c.Env = append(os.Environ(), env...)
	}
	// A program given up on goes with all its ranks: its own process group.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	runErr := c.Run()
	// The points printed before a failure are kept: the sizes after it
	// show as failed.
	pts, err := parsePoints(&out)
	if err != nil {
		return pts, err
	}
	if runErr != nil {
		return pts, fmt.Errorf("%v: %s", runErr, errb.String())
	}
	return pts, nil
}

// parsePoints reads the JSON lines of a program's output (osu, osu_coll.c,
// the ping-pongs), skipping the lines that are not JSON objects.
func parsePoints(r io.Reader) ([]point, error) {
	var pts []point
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var p point
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return pts, err
		}
		pts = append(pts, p)
	}
	return pts, sc.Err()
}

func build(dir string, sides []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	steps := [][]string{
		{"go", "build", "-o", filepath.Join(dir, "golaunch"), "./launcher/golaunch"},
		{"go", "build", "-o", filepath.Join(dir, "benches"), "./benches"},
		{"go", "build", "-o", filepath.Join(dir, "pingpong"), "./examples/pingpong"},
		{"mpicc", "-O2", "-o", filepath.Join(dir, "osu_coll"), "benches/ref/osu_coll.c"},
		{"mpicc", "-O2", "-o", filepath.Join(dir, "pingpong_c"), "benches/ref/pingpong.c"},
	}
	if slices.Contains(sides, "mpi") {
		steps = append(steps,
			[]string{"go", "build", "-tags", "mpi", "-o", filepath.Join(dir, "benches-mpi"), "./benches"},
			[]string{"go", "build", "-tags", "mpi", "-o", filepath.Join(dir, "pingpong-mpi"), "./examples/pingpong"})
	}
	for _, step := range steps {
		// Builds run at the lowest priority: others may be measuring.
		if _, err := exec.LookPath("nice"); err == nil {
			step = append([]string{"nice", "-n", "19"}, step...)
		}
		c := exec.Command(step[0], step[1:]...)
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(step, " "), err, out)
		}
	}
	return nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func size(b int) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

// shellJoin writes args as a shell would need them (quoting those with spaces).
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if strings.ContainsAny(a, " \t\"'$") {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
