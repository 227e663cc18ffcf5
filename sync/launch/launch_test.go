package launch_test

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/rdtsc"
	"github.com/gompi/gompi/sync/clock"
	"github.com/gompi/gompi/sync/launch"
)

// The tests follow the sentences of spec/mpiperf.md, "The method", as
// raft_paper_test.go follows the Raft paper. Ranks are goroutines (gompi.Run),
// so they wait by yielding; no test asserts anything about how long
// something took, only about what the scheduler did with the times it saw.

func params() launch.Params {
	p := launch.DefaultParams()
	p.Wait = launch.WaitYield
	p.BcastReps = 3
	return p
}

// busy waits d on the real clock.
func busy(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
	}
}

// measureAll runs Measure on n in-process ranks whose clocks are skewed and
// synchronized, with fn(rank, call) as the measured function, and returns
// every rank's Result.
func measureAll(t *testing.T, n int, p launch.Params, fn func(rank, call int) error) []*launch.Result {
	return measureShifted(t, n, p, nil, fn)
}

// shifted is a global clock moved by shift after the fact.
type shifted struct {
	g     clock.Source
	shift float64
}

func (s *shifted) Now() float64 { return s.g.Now() + s.shift }

// measureShifted is measureAll with each rank's global clock moved, after
// t_bcast is measured, by shift(rank, t_bcast) (nil: not moved).
func measureShifted(t *testing.T, n int, p launch.Params, shift func(rank int, tBcast float64) float64, fn func(rank, call int) error) []*launch.Result {
	t.Helper()
	res := make([]*launch.Result, n)
	var mu sync.Mutex
	err := gompi.Run(n, func(c *gompi.Comm) error {
		local := clock.Skewed{Base: rdtsc.Monotonic(), Offset: 50 * float64(c.Rank()), Drift: 1e-5 * float64(c.Rank())}
		g, err := clock.Sync(c, local, clock.Options{StopAfter: 20})
		if err != nil {
			return err
		}
		sg := &shifted{g: g}
		s, err := launch.New(c, sg, p)
		if err != nil {
			return err
		}
		defer s.Close()
		if shift != nil {
			sg.shift = shift(c.Rank(), s.TBcast())
		}
		call := 0
		r, err := s.Measure(func() error { call++; return fn(c.Rank(), call-1) })
		mu.Lock()
		res[c.Rank()] = r
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func null(int, int) error { return nil }

// "Stage 0 initialises the operation: k′ launches with Δ_0 = 0; its results
// are discarded; its duration sets the first interval Δ_1 = γ·(t_0 − τ_0)/k′."
func TestStageZeroIsDiscarded(t *testing.T) {
	p := params()
	p.InitLaunches = 3
	const slowFirst = 5 * time.Millisecond
	calls := make([]int, 3)
	res := measureAll(t, 3, p, func(rank, call int) error {
		calls[rank]++
		if call == 0 {
			busy(slowFirst) // late initialisation: the first call is slow
		}
		return nil
	})
	r := res[0]
	s0 := r.Stages[0]
	if !s0.Discarded || s0.Delta != 0 || s0.Launches != 3 {
		t.Errorf("stage 0 = %+v, want 3 discarded launches with Δ = 0", s0)
	}
	if calls[0] != 3+len(r.Launches) {
		t.Errorf("%d calls, %d launches reported: stage 0's %d launches must be run but not reported", calls[0], len(r.Launches), 3)
	}
	for _, l := range r.Launches {
		if l.Stage == 0 || l.At < s0.End {
			t.Fatalf("launch %+v: stage 0 (τ_0 %g, t_0 %g) is in the results", l, s0.Tau, s0.End)
		}
	}
	want := p.Gamma * (s0.End - s0.Tau) / float64(p.InitLaunches)
	if got := r.Stages[1].Delta; got != want {
		t.Errorf("Δ_1 = %g, want γ·(t_0 − τ_0)/k′ = %g", got, want)
	}
	if r.Stages[1].Delta < slowFirst.Seconds()*p.Gamma/3 {
		t.Errorf("Δ_1 = %g does not include stage 0's slow call", r.Stages[1].Delta)
	}
}

// "launch l = 0..k-1 starts at global time τ_jl = τ_j + l·Δ_j and must finish
// before τ_j + (l+1)·Δ_j"; "the time of launch l is the maximum over ranks of
// the per-rank times".
func TestScheduleAndMaxOverRanks(t *testing.T) {
	p := params()
	res := measureAll(t, 3, p, func(rank, call int) error {
		busy(time.Duration(rank+1) * 20 * time.Microsecond)
		return nil
	})
	r := res[0]
	for i, l := range r.Launches {
		st := r.Stages[l.Stage]
		if l.At != st.Tau+float64(l.Index)*st.Delta || l.Until != st.Tau+float64(l.Index+1)*st.Delta {
			t.Fatalf("launch %d: at %g until %g, stage τ %g Δ %g", i, l.At, l.Until, st.Tau, st.Delta)
		}
		max := math.Inf(-1)
		for rank, rr := range res {
			own := rr.Own[i]
			if own.At != l.At {
				t.Fatalf("rank %d launch %d scheduled at %g, rank 0 at %g", rank, i, own.At, l.At)
			}
			max = math.Max(max, own.Time())
		}
		if l.Time != max {
			t.Fatalf("launch %d: time %g, want the maximum over ranks %g", i, l.Time, max)
		}
		if l.Time < 60e-6 {
			t.Fatalf("launch %d: time %g below rank 2's busy wait of 60 µs", i, l.Time)
		}
	}
	for rank, rr := range res {
		if len(rr.Launches) != len(r.Launches) || fmt.Sprint(rr.Stats) != fmt.Sprint(r.Stats) {
			t.Errorf("rank %d has another result than rank 0: %+v, %+v", rank, rr.Stats, r.Stats)
		}
	}
}

// "A launch that a rank starts late (after τ_jl) or finishes after
// τ_j + (l+1)·Δ_j is invalid": rank 1 overruns one launch of every stage,
// which makes the next one late; both are invalid and left out.
func TestLateAndOverrunAreInvalid(t *testing.T) {
	p := params()
	p.StageLaunches = 8
	const stall = 40 * time.Millisecond
	res := measureAll(t, 2, p, func(rank, call int) error {
		// Calls 0..3 are stage 0; then launch 3 of each stage of 8.
		if rank == 1 && call >= 4 && (call-4)%8 == 3 {
			time.Sleep(stall)
		}
		busy(50 * time.Microsecond)
		return nil
	})
	r, r1 := res[0], res[1]
	checked := 0
	for i, l := range r.Launches {
		if l.Index != 3 || i+1 >= len(r.Launches) || r.Stages[l.Stage].Delta >= stall.Seconds()/2 {
			continue
		}
		next := r.Launches[i+1]
		if l.Overrun < 1 || l.Valid() || !r1.Own[i].Overrun {
			t.Errorf("stage %d launch 3 (rank 1 stalled %v, Δ %g): %+v, want overrun by rank 1",
				l.Stage, stall, r.Stages[l.Stage].Delta, l)
		}
		if next.Late < 1 || next.Valid() || !r1.Own[i+1].Late {
			t.Errorf("stage %d launch 4 after the stall: %+v, want late on rank 1", l.Stage, next)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no stage with a stalled launch to check")
	}
	valid := r.ValidTimes()
	if r.Stats.NC != len(valid) || r.Stats.NC > r.Stats.NT-2*checked {
		t.Errorf("stats %+v count invalid launches as valid", r.Stats)
	}
	for _, l := range r.Launches {
		if l.Valid() && l.Time > l.Until-l.At {
			t.Errorf("launch %+v is valid but took longer than its window", l)
		}
	}
}

// A rank whose global clock is ahead of the others' (an offset error larger
// than t_bcast, which arose after t_bcast was measured) receives each stage's
// start τ_j when its clock already shows a later time: it starts late, and
// the scheduler rejects those launches.
func TestClockAheadStartsLate(t *testing.T) {
	res := measureShifted(t, 2, params(), func(rank int, tBcast float64) float64 {
		if rank == 1 {
			return tBcast + 5e-3 // 5 ms ahead, whatever t_bcast is
		}
		return 0
	}, null)
	r := res[0]
	for i, l := range r.Launches {
		if l.Index == 0 && (l.Late < 1 || l.Valid() || !res[1].Own[i].Late) {
			t.Errorf("stage %d launch 0: %+v, want rank 1 late", l.Stage, l)
		}
	}
	late, _ := r.Counts()
	if late < len(r.Stages)-1 || r.Stats.NC > r.Stats.NT-late {
		t.Errorf("%d late launches in %d stages; stats %+v", late, len(r.Stages)-1, r.Stats)
	}
}

// "If more than g % of the stage's launches are invalid, widen the interval:
// Δ_{j+1} = γ·(t_j − τ_j)/k".
func TestWidening(t *testing.T) {
	p := params()
	p.MaxValid = 1000 // run to the launch limit
	p.MaxLaunches = 60
	res := measureAll(t, 2, p, func(rank, call int) error {
		// Every other launch of rank 1 takes long: half are invalid at first.
		if rank == 1 && call%2 == 0 {
			busy(200 * time.Microsecond)
		}
		return nil
	})
	r := res[0]
	widened := 0
	for j := 1; j+1 < len(r.Stages); j++ {
		st, next := r.Stages[j], r.Stages[j+1]
		want := st.Delta
		if float64(st.Invalid) > p.WidenShare*float64(st.Launches) {
			want = p.Gamma * (st.End - st.Tau) / float64(st.Launches)
			widened++
			if !st.Widened {
				t.Errorf("stage %d: %d of %d invalid but not marked widened", j, st.Invalid, st.Launches)
			}
		}
		if next.Delta != want {
			t.Errorf("stage %d (%d invalid of %d): Δ_%d = %g, want %g", j, st.Invalid, st.Launches, j+1, next.Delta, want)
		}
	}
	if widened == 0 {
		t.Error("no stage had more than g invalid launches; the test did not exercise widening")
	}
}

// "stop when the standard error of the mean reached the target, or the number
// of launches exceeded the maximum"; variant 1: more than 100 launches or more
// than 30 valid; variant 2: RSE ≤ 0.05 and at least 10 valid.
func TestStopRules(t *testing.T) {
	for _, rule := range []launch.StopRule{launch.Rule1, launch.Rule2, launch.Either} {
		t.Run(rule.String(), func(t *testing.T) {
			p := params()
			p.Stop = rule
			r := measureAll(t, 2, p, func(int, int) error { busy(30 * time.Microsecond); return nil })[0]
			st, k := r.Stats, p.StageLaunches
			switch r.Stop {
			case launch.StopMaxLaunches:
				if st.NT <= p.MaxLaunches || st.NT-k > p.MaxLaunches {
					t.Errorf("stopped for max launches at NT %d", st.NT)
				}
			case launch.StopMaxValid:
				if rule == launch.Rule2 || st.NC <= p.MaxValid || st.NC-k > p.MaxValid {
					t.Errorf("rule %v stopped for max valid at NC %d", rule, st.NC)
				}
			case launch.StopRSE:
				if rule == launch.Rule1 || st.NC < p.MinValid || st.RSE > p.TargetRSE {
					t.Errorf("rule %v stopped for the RSE with %+v", rule, st)
				}
			default:
				t.Errorf("stop reason %q", r.Stop)
			}
			if st.NT != len(r.Launches) || st.NT != k*(len(r.Stages)-1) {
				t.Errorf("NT %d, %d launches in %d stages", st.NT, len(r.Launches), len(r.Stages)-1)
			}
		})
	}
	p := params()
	p.Deadline = time.Nanosecond
	r := measureAll(t, 2, p, null)[0]
	if r.Stop != launch.StopDeadline || len(r.Stages) != 2 {
		t.Errorf("deadline: stop %q after %d stages", r.Stop, len(r.Stages))
	}
}

// Step 4: "remove the g % smallest and the g % largest; T is the mean of the
// rest"; SE = σ/√nc; E = t_p·SE.
func TestSummarize(t *testing.T) {
	v := []float64{9, 1, 2, 3, 4, 5, 6, 7, 8, 100, 0, 10} // 12 values
	s := launch.Summarize(v, 20, 0.25, 0.95)
	// Trimming 3 each side keeps 3..8.
	if s.NT != 20 || s.NC != 12 || s.NS != 6 || s.Mean != 5.5 || s.Min != 0 || s.Max != 100 {
		t.Fatalf("%+v", s)
	}
	sd := math.Sqrt(17.5 / 5) // of 3..8
	if math.Abs(s.SE-sd/math.Sqrt(12)) > 1e-12 || math.Abs(s.E-2.5706*s.SE) > 1e-3*s.SE ||
		s.Lo != s.Mean-s.E || s.Hi != s.Mean+s.E || s.RSE != s.SE/s.Mean {
		t.Errorf("%+v, σ %g", s, sd)
	}
	e90, e99 := launch.Summarize(v, 20, 0.25, 0.90).E, launch.Summarize(v, 20, 0.25, 0.99).E
	if !(e90 < s.E && s.E < e99) {
		t.Errorf("E at 0.90, 0.95, 0.99: %g %g %g", e90, s.E, e99)
	}
	if z := launch.Summarize(nil, 8, 0.25, 0.95); z.NC != 0 || !math.IsNaN(z.Mean) || !math.IsNaN(z.Hi) {
		t.Errorf("no valid launch: %+v", z)
	}
	if one := launch.Summarize([]float64{3}, 8, 0.25, 0.95); one.Mean != 3 || !math.IsNaN(one.SE) {
		t.Errorf("one valid launch: %+v", one)
	}
}

// Schedule is usable on its own: any start times, per-rank and per-launch
// results on every rank, and the start spread on a reference clock.
func TestSchedule(t *testing.T) {
	n := 3
	var got [3]launch.Batch
	var mu sync.Mutex
	err := gompi.Run(n, func(c *gompi.Comm) error {
		g := rdtsc.Monotonic() // one clock for all: already synchronized
		p := params()
		p.Reference = g
		s, err := launch.New(c, g, p)
		if err != nil {
			return err
		}
		defer s.Close()
		at0 := make([]float64, 1)
		if c.Rank() == 0 {
			at0[0] = g.Now() + 0.005
		}
		if err := gompi.Bcast(c, at0, 0); err != nil {
			return err
		}
		at := []float64{at0[0], at0[0] + 0.002, at0[0] + 0.003}
		until := []float64{at[1], at[2], at[2] + 1e-9}
		b, err := s.Schedule(func() error {
			if c.Rank() == 2 {
				busy(100 * time.Microsecond)
			}
			return nil
		}, at, until)
		mu.Lock()
		got[c.Rank()] = b
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range n {
		b := got[r]
		if len(b.Own) != 3 || len(b.Launches) != 3 {
			t.Fatalf("rank %d: %+v", r, b)
		}
		if b.Launches[2].Valid() || b.Launches[2].Overrun < 1 {
			t.Errorf("rank %d: launch 2 with a 1 ns window is %+v, want overrun", r, b.Launches[2])
		}
		if sp := b.Launches[0]; math.IsNaN(sp.RefSpread) || sp.RefSpread < 0 || math.Abs(sp.RefSpread-sp.Spread) > 1e-4 {
			t.Errorf("rank %d: spread %g on the global clock, %g on the reference (the same clock here)", r, sp.Spread, sp.RefSpread)
		}
	}
	if !got[2].Own[2].Overrun || got[2].Launches[0].Time < 100e-6 {
		t.Errorf("rank 2: %+v", got[2])
	}
}

func TestParams(t *testing.T) {
	p := launch.DefaultParams()
	want := launch.Params{InitLaunches: 4, StageLaunches: 8, WidenShare: 0.25, Gamma: 1.1, Stop: launch.Rule1,
		MaxLaunches: 100, MaxValid: 30, TargetRSE: 0.05, MinValid: 10, Trim: 0.25, Confidence: 0.95,
		LateSlack: 1e-6, BcastReps: 20}
	if fmt.Sprint(p) != fmt.Sprint(want) {
		t.Errorf("defaults %+v, want the spec's table %+v", p, want)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	p.Gamma, p.Trim, p.InitLaunches = 1, 0.5, 0
	if err := p.Validate(); err == nil {
		t.Error("γ = 1, trim 0.5, k′ = 0 accepted")
	}
	var r launch.StopRule
	var w launch.WaitMode
	if r.Set("2") != nil || r != launch.Rule2 || r.Set("x") == nil || w.Set("sleep") != nil || w != launch.WaitSleep || w.Set("x") == nil {
		t.Error("Set")
	}
	err := gompi.Run(2, func(c *gompi.Comm) error {
		_, err := launch.New(c, rdtsc.Monotonic(), p)
		return err
	})
	if err == nil || errors.Is(err, gompi.ErrPeerLost) {
		t.Errorf("New with bad parameters: %v", err)
	}
}
