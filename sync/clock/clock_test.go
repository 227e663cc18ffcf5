package clock_test

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
)

// skew is the injected clock of rank r: offsets of seconds (as between
// processes that started at different times) and rates that differ by tens of
// ppm (as between hosts), alternating in sign.
func skew(r int) clock.Skewed {
	sign := float64(1 - 2*(r%2))
	return clock.Skewed{
		Base:   rdtsc.Monotonic(),
		Offset: 1000 + 1.234567*float64(r) + 1e-4*sign*float64(r),
		Drift:  sign * 7e-6 * float64(r%4),
	}
}

// trueOffset is what rank r's model should say at its local time l: the
// reading of rank 0's clock at the same real moment, minus l.
func trueOffset(r int, l float64) float64 {
	s, s0 := skew(r), skew(0)
	t := (l - s.Offset) / (1 + s.Drift)
	return t*(1+s0.Drift) + s0.Offset - l
}

// driftAllowance is how far the true offsets can move while an algorithm
// chains steps taken at different moments: the largest rate difference times
// the duration, per hop.
func driftAllowance(n int, d time.Duration) float64 {
	maxDrift := 0.0
	for r := 0; r < n; r++ {
		maxDrift = math.Max(maxDrift, math.Abs(skew(r).Drift-skew(0).Drift))
	}
	return maxDrift*d.Seconds()*float64(n) + 1e-9
}

// syncAll runs Sync on n in-process ranks with skewed clocks and returns
// every rank's global clock.
func syncAll(t *testing.T, n int, o clock.Options, then func(c *gompi.Comm, g *clock.Global) error) []*clock.Global {
	t.Helper()
	gs := make([]*clock.Global, n)
	var mu sync.Mutex
	err := gompi.Run(n, func(c *gompi.Comm) error {
		g, err := clock.Sync(c, skew(c.Rank()), o)
		if err != nil {
			return err
		}
		mu.Lock()
		gs[c.Rank()] = g
		mu.Unlock()
		if then != nil {
			return then(c, g)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// Spec, "The method" 1: each rank i estimates the offset o_i with
// T_0 = T_i + o_i; the linear, ring (and our tree and drift) algorithms
// recover injected offsets within the error each states.
func TestAlgorithmsRecoverInjectedOffsets(t *testing.T) {
	for _, alg := range clock.Algorithms() {
		for _, n := range []int{2, 3, 5, 8} {
			t.Run(fmt.Sprintf("%s/n=%d", alg.Name, n), func(t *testing.T) {
				o := clock.Options{Algorithm: alg.Name, StopAfter: 30, Epochs: 3, EpochGap: 5 * time.Millisecond}
				gs := syncAll(t, n, o, nil)
				info := gs[0].Info()
				for r := 1; r < n; r++ {
					m := gs[r].Model()
					if im := info.Models[r]; im.Offset != m.Offset || im.Err != m.Err || im.Drift != m.Drift || im.Ref != m.Ref {
						t.Errorf("rank %d: Info.Models[%d] = %+v, own model %+v", r, r, info.Models[r], m)
					}
					got, want := m.Offset, trueOffset(r, m.Ref)
					t.Logf("rank %d: error %.3g s, stated bound %.3g s", r, got-want, m.Err)
					// The stated bound is a bound: drift while a chain's steps
					// happened is in it, not allowed for by the test.
					if e := math.Abs(got - want); e > m.Err {
						t.Errorf("rank %d: offset %.9f, injected %.9f: error %.3g s beyond the stated %.3g s",
							r, got, want, e, m.Err)
					}
					// A second later the clocks have drifted apart by up to
					// 42 ppm: ErrAt must say so.
					later := m.Ref + 1
					if e := math.Abs(m.Global(later) - later - trueOffset(r, later)); e > m.ErrAt(later) {
						t.Errorf("rank %d: 1 s after the sync the offset is off by %.3g s, beyond ErrAt %.3g s", r, e, m.ErrAt(later))
					}
					if m.Err <= 0 || m.Err > 0.1 {
						t.Errorf("rank %d: implausible bound %g", r, m.Err)
					}
				}
				if info.Exchanges < n-1 || info.Algorithm != alg.Name || info.Ranks != n {
					t.Errorf("info %+v", info)
				}
				if alg.Name == "ring" {
					if math.Abs(info.RingClosure) > info.RingClosureErr {
						t.Errorf("ring closure %.3g beyond its bound %.3g", info.RingClosure, info.RingClosureErr)
					}
				} else if !math.IsNaN(info.RingClosure) {
					t.Errorf("%s: ring closure %g, want NaN", alg.Name, info.RingClosure)
				}
			})
		}
	}
}

// The drift model holds beyond the moment of synchronization: rates that
// differ by up to 21 ppm are fitted, and the offset read off the line later
// stays within ErrAt.
func TestDriftModelExtrapolates(t *testing.T) {
	n := 4
	o := clock.Options{Algorithm: "drift", StopAfter: 30, Epochs: 4, EpochGap: 10 * time.Millisecond}
	gs := syncAll(t, n, o, nil)
	time.Sleep(20 * time.Millisecond)
	for r := 1; r < n; r++ {
		m := gs[r].Model()
		if len(m.Epochs) != 4 {
			t.Fatalf("rank %d: %d epochs, want 4", r, len(m.Epochs))
		}
		// Read the local clock once and convert that reading: reading it
		// again through gs[r].Now() would add whatever time passed between
		// the two reads (a descheduled goroutine: tens of µs) to the error.
		l := gs[r].Local().Now()
		got := m.Global(l) - l
		want := trueOffset(r, l)
		// Now is the model applied to a reading taken during the call.
		before := gs[r].Local().Now()
		now := gs[r].Now()
		after := gs[r].Local().Now()
		if now < m.Global(before) || now > m.Global(after) {
			t.Errorf("rank %d: Now() = %.9f outside [%.9f, %.9f], the model applied to the local readings around it", r, now, m.Global(before), m.Global(after))
		}
		if e := math.Abs(got - want); e > m.ErrAt(l)+1e-9 {
			t.Errorf("rank %d: 20 ms after the fit the offset is off by %.3g s, beyond ErrAt %.3g s", r, e, m.ErrAt(l))
		}
		if m.ErrAt(l) < m.Err {
			t.Errorf("rank %d: ErrAt after the epochs (%g) below the bound at Ref (%g)", r, m.ErrAt(l), m.Err)
		}
	}
}

// The independent check brackets the true residual of every rank, and sees
// an offset error that the synchronization did not (a model set wrong by
// hand).
func TestCheckSeesResiduals(t *testing.T) {
	const wrong = 50e-6
	n := 3
	var res clock.Residuals
	var models [3]clock.Model
	var after [3]float64 // each rank's local time after the check
	var mu sync.Mutex
	begin := time.Now()
	err := gompi.Run(n, func(c *gompi.Comm) error {
		g, err := clock.Sync(c, skew(c.Rank()), clock.Options{StopAfter: 30})
		if err != nil {
			return err
		}
		m := g.Model()
		if c.Rank() == 2 {
			m.Offset += wrong
		}
		bad := clock.NewGlobal(g.Local(), m)
		r, err := clock.Check(c, bad, clock.Options{StopAfter: 30})
		mu.Lock()
		defer mu.Unlock()
		models[c.Rank()] = m
		after[c.Rank()] = g.Local().Now()
		if c.Rank() == 0 {
			res = r
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offsets) != n || res.Rounds < 2*31 {
		t.Fatalf("residuals %+v", res)
	}
	allow := driftAllowance(n, time.Since(begin))
	for r := 1; r < n; r++ {
		// True residual: rank r's global reading minus rank 0's at one moment.
		l := after[r]
		truth := models[r].Global(l) - (l + trueOffset(r, l))
		if e := math.Abs(res.Offsets[r] - truth); e > res.Bounds[r]+allow {
			t.Errorf("rank %d: check says %.3g s, truth %.3g s (bound %.3g)", r, res.Offsets[r], truth, res.Bounds[r])
		}
	}
	if math.Abs(res.Offsets[2]-wrong) > res.Bounds[2]+models[2].Err+allow {
		t.Errorf("the check missed the wrong offset: %.3g s, want %.3g s ± %.3g", res.Offsets[2], wrong, res.Bounds[2])
	}
	if res.Max < math.Abs(res.Offsets[2]) || res.Median > res.Max || res.MaxBound <= 0 {
		t.Errorf("summary %+v", res)
	}
}

// scripted is a client clock whose round trips shrink for the first `better`
// exchanges and then stay the same.
type scripted struct {
	calls  int
	better int
}

func (s *scripted) Now() float64 {
	ex, second := s.calls/2, s.calls%2 == 1
	s.calls++
	base := float64(ex) * 1000
	if !second {
		return base
	}
	if ex < s.better {
		return base + float64(100-ex)
	}
	return base + 100
}

// Spec: "keep the sample with the minimum RTT; stop when the minimum has not
// changed for the last d iterations". With an acceptance bound (MaxErr) the
// step goes on until the minimum is good enough, or the limit.
func TestStopRule(t *testing.T) {
	for _, tc := range []struct {
		better, d, max int
		maxErr         float64
		want           int
	}{
		{better: 5, d: 10, max: 1000, want: 5 + 10},
		{better: 0, d: 7, max: 1000, want: 1 + 7},
		{better: 50, d: 100, max: 60, want: 60},
		{better: 5, d: 10, max: 40, maxErr: 48, want: 5 + 10}, // bound 96/2 accepted
		{better: 5, d: 10, max: 40, maxErr: 47, want: 40},     // never accepted
	} {
		var smp clock.Sample
		err := gompi.Run(2, func(c *gompi.Comm) error {
			if c.Rank() == 1 {
				_, err := clock.Pairwise(c, 0, false, rdtsc.Monotonic(), clock.Options{})
				return err
			}
			var err error
			o := clock.Options{StopAfter: tc.d, MaxExchanges: tc.max, MaxErr: tc.maxErr}
			smp, err = clock.Pairwise(c, 1, true, &scripted{better: tc.better}, o)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if smp.Exchanges != tc.want {
			t.Errorf("%+v: %d exchanges, want %d", tc, smp.Exchanges, tc.want)
		}
		wantRTT := 100 - float64(max(tc.better-1, 0))
		if smp.RTT != wantRTT || smp.Err != wantRTT/2 {
			t.Errorf("%+v: RTT %g, err %g; want the minimum %g", tc, smp.RTT, smp.Err, wantRTT)
		}
	}
}

func TestModel(t *testing.T) {
	m := clock.Model{Offset: 3, Drift: 1e-5, Ref: 10}
	for _, l := range []float64{0, 10, 1e4} {
		if g := m.Global(l); math.Abs(m.Local(g)-l) > 1e-9 {
			t.Errorf("Local(Global(%g)) = %g", l, m.Local(g))
		}
	}
	if m.Global(10) != 13 {
		t.Errorf("Global(Ref) = %g, want Ref+Offset", m.Global(10))
	}
	if m.ErrAt(100) != m.Err {
		t.Error("ErrAt of a model without epochs nor rate bound is not Err")
	}
	m.Err, m.RateBound = 1e-6, 1e-4
	if got := m.ErrAt(12); math.Abs(got-(1e-6+2e-4)) > 1e-15 {
		t.Errorf("ErrAt 2 s after Ref with a rate bound of 100 ppm: %g, want 201 µs", got)
	}
}

func TestLookup(t *testing.T) {
	for _, a := range clock.Algorithms() {
		if got, err := clock.Lookup(a.Name); err != nil || got.Name != a.Name || got.Summary == "" || got.Bound == "" {
			t.Errorf("Lookup(%q) = %+v, %v", a.Name, got, err)
		}
	}
	if _, err := clock.Lookup("nosuch"); !errors.Is(err, clock.ErrUnknownAlgorithm) {
		t.Errorf("Lookup(nosuch): %v", err)
	}
	err := gompi.Run(2, func(c *gompi.Comm) error {
		_, err := clock.Sync(c, rdtsc.Monotonic(), clock.Options{Algorithm: "nosuch"})
		return err
	})
	if !errors.Is(err, clock.ErrUnknownAlgorithm) {
		t.Errorf("Sync with an unknown algorithm: %v", err)
	}
}

// One rank has nothing to synchronize: its clock is the global time.
func TestSingleRank(t *testing.T) {
	err := gompi.Run(1, func(c *gompi.Comm) error {
		g, err := clock.Sync(c, skew(3), clock.Options{Algorithm: "ring"})
		if err != nil {
			return err
		}
		if g.Model().Offset != 0 || len(g.Info().Models) != 1 {
			return fmt.Errorf("model %+v", g.Model())
		}
		r, err := clock.Check(c, g, clock.Options{})
		if err != nil || r.Max != 0 || len(r.Offsets) != 1 {
			return fmt.Errorf("check %+v, %v", r, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
