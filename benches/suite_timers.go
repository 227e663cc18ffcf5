package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/rdtsc"
)

func init() {
	register("timers", "validate the clocks: resolution, read overhead, drift, TSC trust and calibration", runTimers)
}

func runTimers(args []string) error {
	fs := newFlags("timers", "[flags]")
	format := report.Text
	fs.Var(&format, "format", "output format: text, csv or json (csv and json print the checks on stderr)")
	sources := fs.StringSlice("sources", rdtsc.Names(), "clocks to validate")
	interval := fs.Duration("interval", time.Second, "time over which drift against the monotonic clock is fitted")
	samples := fs.Int("samples", 11, "points of the drift fit")
	reads := fs.Int("reads", 1_000_000, "consecutive reads for resolution, monotonicity and overhead")
	span := fs.Duration("calibrate", 200*time.Millisecond, "span of the TSC calibration")
	calSamples := fs.Int("calibration-samples", 21, "points of the TSC calibration fit")
	rounds := fs.Int("rounds", 2000, "round trips per CPU in the cross-core TSC check (0: skip)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}

	// The checks go to stdout as comment lines for text, to stderr otherwise,
	// so that CSV and JSON stay machine-readable.
	notes := io.Writer(os.Stdout)
	prefix := "# "
	if format != report.Text {
		notes, prefix = os.Stderr, ""
	}
	say := func(f string, a ...any) { fmt.Fprintf(notes, prefix+f+"\n", a...) }

	trust := rdtsc.CheckTrust(*rounds)
	var tsc *rdtsc.TSCClock
	if trust.Counter != "" {
		cal, err := rdtsc.Calibrate(*span, *calSamples)
		if err != nil {
			return err
		}
		tsc = rdtsc.NewTSC(cal)
		describeTrust(say, trust, cal)
	} else {
		say("no cycle counter on this architecture: the tsc clock is not available")
	}

	mono := rdtsc.Monotonic()
	t := report.NewTable("source", "resolution_ns", "observed_ns", "overhead_ns", "drift_ppm", "drift_err_ppm", "monotonic", "verdict")
	t.SetVerb("resolution_ns", "%.3g").SetVerb("observed_ns", "%.3g").SetVerb("overhead_ns", "%.1f").
		SetVerb("drift_ppm", "%.3f").SetVerb("drift_err_ppm", "%.3f")
	for _, name := range *sources {
		var c rdtsc.Clock
		var err error
		if name == "tsc" && tsc != nil {
			c = tsc
		} else if c, err = rdtsc.ByName(name); err != nil {
			return err
		}
		v := rdtsc.Validate(c, mono, *interval, *samples, *reads)
		verdict := v.Verdict
		if name == "tsc" && !trust.OK() {
			verdict = "untrusted: " + strings.Join(trust.Problems, "; ")
			if v.Verdict != "ok" {
				verdict += "; " + v.Verdict
			}
		}
		monotonic := "yes"
		if v.Backward > 0 {
			monotonic = fmt.Sprintf("no (%d back)", v.Backward)
		}
		drift, driftErr := any(v.DriftPPM), any(v.DriftErrPPM)
		if name == mono.Name() {
			drift, driftErr, verdict = nil, nil, verdict+" (reference)"
		}
		t.Add(name, v.Resolution*1e9, v.Observed*1e9, v.Overhead*1e9, drift, driftErr, monotonic, verdict)
	}
	say("clocks over %d reads each; drift fitted over %v at %d points against %s, ± is the 95 %% interval",
		*reads, *interval, *samples, mono.Name())
	return t.Write(os.Stdout, format)
}

// describeTrust prints the TSC checks and the calibration.
func describeTrust(say func(string, ...any), tr rdtsc.Trust, cal rdtsc.Calibration) {
	yes := map[bool]string{true: "yes", false: "no"}
	hv := tr.Hypervisor
	if hv == "" {
		hv = "none"
	}
	cs := tr.ClockSource
	if cs == "" {
		cs = "unknown"
	}
	say("counter: %s; invariant: %s; hypervisor: %s; kernel clock source: %s (available: %s)",
		tr.Counter, yes[tr.Invariant], hv, cs, strings.Join(tr.Available, " "))
	if cc := tr.CrossCore; cc != nil {
		for _, o := range cc.CPUs[1:] {
			say("cross-core: CPU %d vs CPU %d: offset %.0f ± %.0f ticks, %d warps in %d round trips",
				o.CPU, cc.Reference, o.Offset, o.Uncertainty, o.Warps, cc.Rounds)
		}
	}
	if tr.OK() {
		say("trust: ok")
	}
	for _, p := range tr.Problems {
		say("trust problem: %s", p)
	}
	for _, n := range tr.Notes {
		say("note: %s", n)
	}
	say("calibration: %.6f MHz (%s); measured %.6f MHz ± %.3f ppm (95 %%), worst case ± %.2f ppm; "+
		"%d samples over %v, residual %.1f ns, reference read bracket %.0f ns",
		cal.Rate/1e6, cal.Source, cal.Measured/1e6, cal.ErrPPM, cal.BoundPPM,
		cal.Samples, cal.Span.Round(time.Millisecond), cal.ResidualNs, cal.BracketNs)
	if cal.StatedDiffPPM != 0 {
		say("calibration: the measured rate differs from the stated one by %.2f ppm", cal.StatedDiffPPM)
	}
}
