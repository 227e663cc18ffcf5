package main

// Tuning: every algorithm gompi registers for an operation, each forced in
// turn through GOMPI_COLL_<OP>, against gompi's default selection and the MPI
// library, at every rank count and size; a Markdown table says which wins
// where. The selection table (coll/table.go) is tuned from its output.

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gompi/gompi/coll"
	_ "github.com/gompi/gompi/gompi" // its init puts the runtime's shm algorithms into the table
)

// tableChoice is what the selection table (with the runtime's shm rules)
// names first for op at n ranks and an osu size: the algorithm "default"
// runs, unless it cannot run the call.
func tableChoice(op coll.Operation, n, osuSize int) string {
	bytes := osuSize
	if strings.HasPrefix(op.SizeMeaning(), "none") {
		bytes = 0
	}
	return coll.Select(op, n, bytes)
}

// tuneConfig is what a tuning run measures.
type tuneConfig struct {
	sweepConfig
	algs []string // "" for every registered one
	// stat summarizes a variant's repetitions: median, or min (on a
	// machine others load, interference only adds time, so the fastest
	// repetition is the steadier estimate of what the algorithm costs).
	stat string
}

// algorithmsOf lists the algorithms gompi registers for op, as the built
// benches binary reports them (the runtime's shm algorithms included).
func algorithmsOf(dir, op string) ([]string, error) {
	out, err := exec.Command(filepath.Join(dir, "benches"), "coll-algorithms", "--op", op, "--format", "csv").Output()
	if err != nil {
		return nil, fmt.Errorf("benches coll-algorithms --op %s: %w", op, err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil {
		return nil, err
	}
	var algs []string
	for _, r := range rows[1:] { // the header first
		algs = append(algs, r[1])
	}
	return algs, nil
}

// runTune measures and prints one table per operation to w.
func runTune(cfg tuneConfig, w io.Writer) error {
	if err := build(cfg.dir, []string{"go", "c"}); err != nil {
		return err
	}
	fmt.Fprintf(w, "```\n%s\n```\n\n", cfg.command)
	fmt.Fprintf(w, "Commit `%s`, %d CPUs, load average %s at the start. µs per call, OSU method, %s of %d interleaved repetitions; "+
		"`default` is gompi's own selection (`table picks`: the table's first choice there; the same algorithm forced should measure the same, so the two show the noise), `MPI` %s's; each other column forces one algorithm (GOMPI_COLL_<OP>). "+
		"**failed**: the forced algorithm could not run the call (or the run timed out).\n\n",
		gitCommit(), cpus(), loadAverage(), cfg.stat, cfg.reps, mpiVersion())
	for _, op := range cfg.ops {
		cop, err := coll.ParseOperation(op)
		if err != nil {
			return err
		}
		algs := cfg.algs
		if len(algs) == 0 {
			if algs, err = algorithmsOf(cfg.dir, op); err != nil {
				return err
			}
		}
		// The variants: "default", every algorithm, then the MPI library.
		variants := append(append([]string{"default"}, algs...), "MPI")
		type key struct{ n, size, v int }
		times := map[key][]float64{}
		failed := map[key]bool{}
		for _, n := range cfg.ns {
			args := cfg.osuCommand(op, n)
			t0 := time.Now()
			unlock, waited, err := acquireTimed(cfg.lockPath)
			if err != nil {
				return err
			}
			for r := 0; r < cfg.reps; r++ {
				for j := range variants {
					v := (j + r) % len(variants) // the order rotates per repetition
					side, env := "go", []string(nil)
					switch variants[v] {
					case "MPI":
						side = "c"
					case "default":
					default:
						env = []string{coll.EnvVar(cop) + "=" + variants[v]}
					}
					cmd := command(cfg.dir, cfg.mpirun, "osu", side, n, args)
					pts, err := runTimed(cmd, cfg.timeout, env)
					if err != nil {
						fmt.Fprintf(os.Stderr, "tune: %s %s: %v\n", strings.Join(env, " "), strings.Join(cmd, " "), firstLine(err.Error()))
						for _, size := range expectedSizes(op, cfg.sizes) {
							if !slices.ContainsFunc(pts, func(p point) bool { return p.Size == size }) {
								failed[key{n, size, v}] = true
							}
						}
					}
					for _, p := range pts {
						k := key{n, p.Size, v}
						times[k] = append(times[k], p.Avg)
					}
				}
			}
			unlock()
			fmt.Fprintf(os.Stderr, "tune: %s n=%d: %.1f s (waited %.1f s for the lock)\n", op, n, (time.Since(t0) - waited).Seconds(), waited.Seconds())
		}
		fmt.Fprintf(w, "Load average at the end: %s.\n\n", loadAverage())
		fmt.Fprintf(w, "### %s\n\n| n | size |", op)
		for _, v := range variants {
			fmt.Fprintf(w, " %s |", v)
		}
		fmt.Fprintf(w, " table picks | best | default / best | best / MPI |\n|%s\n", strings.Repeat(" ---: |", len(variants)+6))
		for _, n := range cfg.ns {
			for _, sz := range expectedSizes(op, cfg.sizes) {
				fmt.Fprintf(w, "| %d | %s |", n, size(sz))
				best, bestV := math.Inf(1), -1
				med := make([]float64, len(variants))
				for v := range variants {
					k := key{n, sz, v}
					med[v] = math.NaN()
					if ts := times[k]; len(ts) > 0 && !failed[k] {
						med[v] = median(ts)
						if cfg.stat == "min" {
							med[v] = slices.Min(ts)
						}
					}
					switch {
					case math.IsNaN(med[v]):
						fmt.Fprint(w, " **failed** |")
					default:
						fmt.Fprintf(w, " %s |", us([]float64{med[v]}))
					}
					if v > 0 && v < len(variants)-1 && med[v] < best {
						best, bestV = med[v], v
					}
				}
				fmt.Fprintf(w, " %s |", tableChoice(cop, n, sz))
				if bestV < 0 {
					fmt.Fprint(w, " — | — | — |\n")
					continue
				}
				fmt.Fprintf(w, " %s | %.2f | %.2f |\n", variants[bestV], med[0]/best, best/med[len(variants)-1])
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}
