// Command conformance runs gompi's API conformance suite
// (test/conformance/suite) on the world communicator of a real job: over MPI
// when built with -tags mpi and started by mpirun, over the pure-Go runtime's
// processes when started by golaunch.
//
//	go build -tags mpi -o conformance ./test/conformance
//	mpirun -n 8 ./conformance [--run REGEXP] [--timeout 2m] [--short] [-v]
//	golaunch -n 8 ./test/conformance
//
// Each case runs once for each communicator size it asks for that the job
// has: the first size ranks run it on a fresh communicator of their own
// (split or duplicated from the world) while the others wait, then every
// rank learns the outcome. Rank 0 prints a line per run and the exit status is 1
// if any failed; a failing rank prints its error on stderr. A run that does
// not end within --timeout aborts the job: over MPI a rank cannot learn that
// a peer gave up, so a failure can otherwise turn into a hang.
package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/spf13/pflag"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/test/conformance/suite"
)

func main() {
	pattern := pflag.String("run", "", "run only the cases whose name matches this regular expression")
	timeout := pflag.Duration("timeout", 2*time.Minute, "abort the job when one run takes longer")
	short := pflag.Bool("short", false, "trim the largest sizes (as go test -short)")
	verbose := pflag.BoolP("verbose", "v", false, "print passing runs too")
	pflag.Parse()
	re, err := regexp.Compile(*pattern)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance: --run:", err)
		os.Exit(2)
	}
	if err := gompi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
	world := gompi.World()
	me, n := world.Rank(), world.Size()
	say := func(format string, args ...any) {
		if me == 0 {
			fmt.Printf(format, args...)
		}
	}
	say("# conformance over the %s backend, %d ranks\n", gompi.Backend(), n)
	var passed, failed, skipped int
	start := time.Now()
	for _, tc := range suite.Cases(suite.Options{Short: *short}) {
		if !re.MatchString(tc.Name) {
			continue
		}
		for _, p := range tc.Ranks {
			name := tc.Name
			if len(tc.Ranks) > 1 {
				name = fmt.Sprintf("%s/%d", tc.Name, p)
			}
			if p > n {
				skipped++
				if *verbose {
					say("skip  %s (needs %d ranks)\n", name, p)
				}
				continue
			}
			t := time.Now()
			err := runCase(world, tc, p, name, *timeout)
			// Every rank learns the outcome: 2 if any failed, else 1 if any
			// skipped.
			outcome := []int32{0}
			switch {
			case errors.Is(err, suite.ErrSkip):
				outcome[0] = 1
			case err != nil:
				outcome[0] = 2
				fmt.Fprintf(os.Stderr, "rank %d: %s: %v\n", me, name, err)
			}
			if aerr := gompi.Allreduce(world, gompi.InPlace[int32](), outcome, gompi.Max[int32]()); aerr != nil {
				fmt.Fprintf(os.Stderr, "rank %d: agreeing on %s: %v\n", me, name, aerr)
				gompi.Abort(1)
			}
			switch outcome[0] {
			case 2:
				failed++
				say("FAIL  %s (%.2fs)\n", name, time.Since(t).Seconds())
			case 1:
				skipped++
				if *verbose {
					say("skip  %s (%v)\n", name, err)
				}
			default:
				passed++
				if *verbose {
					say("ok    %s (%.2fs)\n", name, time.Since(t).Seconds())
				}
			}
		}
	}
	status := "ok"
	if failed > 0 {
		status = "FAIL"
	}
	say("%s: %d passed, %d failed, %d skipped (more ranks needed, or not applicable) in %.1fs\n", status, passed, failed, skipped,
		time.Since(start).Seconds())
	gompi.Finalize()
	if failed > 0 {
		os.Exit(1)
	}
}

// runCase runs tc on the first p ranks of world; the others only wait.
func runCase(world *gompi.Comm, tc suite.Case, p int, name string, timeout time.Duration) error {
	watchdog := time.AfterFunc(timeout, func() {
		fmt.Fprintf(os.Stderr, "rank %d: %s did not finish within %v: aborting the job\n", world.Rank(), name, timeout)
		gompi.Abort(3)
	})
	defer watchdog.Stop()
	// A fresh communicator for every run, so that nothing one case leaves
	// (messages, algorithm choices) reaches the next.
	var c *gompi.Comm
	var err error
	if p == world.Size() {
		c, err = world.Dup()
	} else {
		color := gompi.Undefined
		if world.Rank() < p {
			color = 0
		}
		c, err = world.Split(color, world.Rank())
	}
	if err != nil {
		return fmt.Errorf("making the %d-rank communicator: %w", p, err)
	}
	if c == nil {
		return nil // not one of the first p ranks
	}
	defer c.Free()
	return tc.Run(c)
}
