package launch

import (
	"fmt"
	"strings"
	"time"

	"github.com/gompi/gompi/sync/clock"
)

// StopRule says when a measurement ends (spec, step 3.4).
type StopRule int

// The stop rules. Every rule also ends a measurement past Params.Deadline.
const (
	// Rule1: more than MaxLaunches launches, or more than MaxValid valid ones.
	Rule1 StopRule = 1
	// Rule2: relative standard error of the mean at most TargetRSE with at
	// least MinValid valid launches, or more than MaxLaunches launches.
	Rule2 StopRule = 2
	// Either: whichever of Rule1 and Rule2 is met first.
	Either StopRule = 3
)

func (r StopRule) String() string {
	switch r {
	case Rule1:
		return "1"
	case Rule2:
		return "2"
	case Either:
		return "either"
	}
	return fmt.Sprintf("StopRule(%d)", int(r))
}

// Set parses "1", "2" or "either"; with String and Type, *StopRule is a
// pflag.Value.
func (r *StopRule) Set(s string) error {
	switch strings.ToLower(s) {
	case "1":
		*r = Rule1
	case "2":
		*r = Rule2
	case "either", "any", "3":
		*r = Either
	default:
		return fmt.Errorf("stop rule %q: use 1, 2 or either", s)
	}
	return nil
}

// Type names the value in pflag's help.
func (*StopRule) Type() string { return "rule" }

// WaitMode is how a rank waits for the start moment of a launch.
type WaitMode int

// Wait modes.
const (
	// WaitAuto: WaitSleep when golaunch says ranks outnumber the host's CPUs
	// (GOMPI_OVERSUBSCRIBED), WaitSpin otherwise.
	WaitAuto WaitMode = iota
	// WaitSpin reads the clock in a tight loop: the most precise start when
	// every rank has a CPU of its own.
	WaitSpin
	// WaitYield reads the clock and lets other goroutines run between reads:
	// for ranks that are goroutines of one process (gompi.Run).
	WaitYield
	// WaitSleep sleeps until about a millisecond before the start, then
	// gives the CPU away between reads (sched_yield): ranks that share CPUs
	// leave them to each other, at the cost of starting late.
	WaitSleep
)

var waitNames = []string{"auto", "spin", "yield", "sleep"}

func (w WaitMode) String() string {
	if w >= 0 && int(w) < len(waitNames) {
		return waitNames[w]
	}
	return fmt.Sprintf("WaitMode(%d)", int(w))
}

// Set parses a mode name; *WaitMode is a pflag.Value.
func (w *WaitMode) Set(s string) error {
	for i, n := range waitNames {
		if strings.EqualFold(s, n) {
			*w = WaitMode(i)
			return nil
		}
	}
	return fmt.Errorf("wait mode %q: use one of %s", s, strings.Join(waitNames, ", "))
}

// Type names the value in pflag's help.
func (*WaitMode) Type() string { return "mode" }

// Params are the parameters of the method. DefaultParams gives the spec's
// table; every field can be changed.
type Params struct {
	InitLaunches  int     // k′: launches of stage 0, whose results are discarded (4)
	StageLaunches int     // k: launches per stage (8)
	WidenShare    float64 // g: Δ is corrected when more than this share of a stage's launches is invalid (0.25)
	Gamma         float64 // γ: Δ_{j+1} = γ·(t_j − τ_j)/k (1.1)

	Stop        StopRule
	MaxLaunches int     // rule 1 and 2: stop after more than this many launches (100)
	MaxValid    int     // rule 1: stop after more than this many valid launches (30)
	TargetRSE   float64 // rule 2: stop when SE/T is at most this … (0.05)
	MinValid    int     // rule 2: … with at least this many valid launches (10)

	Trim       float64 // share of the valid launch times dropped at each end (0.25)
	Confidence float64 // p of the interval T ± E (0.95; the spec names 0.90, 0.95, 0.99)

	// LateSlack is how long after its start moment a rank may begin a launch
	// and still be on time: the wait ends with the first clock reading at or
	// after the moment, so some slack is always needed (1 µs).
	LateSlack float64
	// BcastReps is the number of broadcasts New times to bound t_bcast (20).
	BcastReps int
	// Deadline, if positive, ends a measurement after this much time even if
	// its stop rule is not met (the Result says so).
	Deadline time.Duration
	// Wait is how ranks wait for a start moment.
	Wait WaitMode
	// Reference, if set, is read at every start as well: a clock that all
	// ranks share without synchronization (the host's counter), on which
	// the start spread is measured independently of the clock offsets.
	Reference clock.Source `json:"-"`
}

// DefaultParams returns the defaults of the spec's table.
func DefaultParams() Params {
	return Params{
		InitLaunches: 4, StageLaunches: 8, WidenShare: 0.25, Gamma: 1.1,
		Stop: Rule1, MaxLaunches: 100, MaxValid: 30, TargetRSE: 0.05, MinValid: 10,
		Trim: 0.25, Confidence: 0.95,
		LateSlack: 1e-6, BcastReps: 20,
	}
}

// Validate says what is wrong with p, if anything.
func (p Params) Validate() error {
	var bad []string
	check := func(ok bool, f string, a ...any) {
		if !ok {
			bad = append(bad, fmt.Sprintf(f, a...))
		}
	}
	check(p.InitLaunches >= 1, "k′ (init launches) %d < 1", p.InitLaunches)
	check(p.StageLaunches >= 1, "k (launches per stage) %d < 1", p.StageLaunches)
	check(p.WidenShare >= 0 && p.WidenShare < 1, "g (invalid share that widens Δ) %g outside [0, 1)", p.WidenShare)
	check(p.Gamma > 1, "γ %g must exceed 1 (the spec suggests 1.1 to 2)", p.Gamma)
	check(p.Stop == Rule1 || p.Stop == Rule2 || p.Stop == Either, "unknown stop rule %d", int(p.Stop))
	check(p.MaxLaunches >= 1, "max launches %d < 1", p.MaxLaunches)
	check(p.MaxValid >= 1, "max valid launches %d < 1", p.MaxValid)
	check(p.TargetRSE > 0, "target RSE %g must be positive", p.TargetRSE)
	check(p.MinValid >= 2, "min valid launches %d < 2", p.MinValid)
	check(p.Trim >= 0 && p.Trim < 0.5, "trimmed share %g outside [0, 0.5)", p.Trim)
	check(p.Confidence > 0 && p.Confidence < 1, "confidence %g outside (0, 1)", p.Confidence)
	check(p.LateSlack >= 0, "late slack %g < 0", p.LateSlack)
	check(p.BcastReps >= 1, "bcast repetitions %d < 1", p.BcastReps)
	if len(bad) > 0 {
		return fmt.Errorf("launch parameters: %s", strings.Join(bad, "; "))
	}
	return nil
}
