package rdtsc

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// trustedCounter skips a test that needs a counter that agrees across CPUs.
func trustedCounter(t *testing.T) {
	t.Helper()
	if counterName == "" {
		t.Skip("no cycle counter on this architecture")
	}
	if tr := CheckTrust(500); !tr.OK() {
		t.Skipf("counter not trusted on this machine: %v", tr.Problems)
	}
}

func TestStartEndOrdered(t *testing.T) {
	trustedCounter(t)
	prev := Start()
	for i := range 100000 {
		s := Start()
		e := End()
		if s < prev || e < s {
			t.Fatalf("read %d: previous %d, Start %d, End %d: counter went backwards", i, prev, s, e)
		}
		prev = e
	}
}

// Physical bounds for any counter rate: 10 MHz .. 10 GHz.
const minRate, maxRate = 10e6, 10e9

func TestCalibrate(t *testing.T) {
	if counterName == "" {
		if _, err := Calibrate(10*time.Millisecond, 5); !errors.Is(err, ErrNotSupported) {
			t.Fatalf("Calibrate without a counter: %v, want ErrNotSupported", err)
		}
		return
	}
	cal, err := Calibrate(40*time.Millisecond, 9)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("calibration: %+v", cal)
	if !(cal.Rate > minRate && cal.Rate < maxRate) || !(cal.Measured > minRate && cal.Measured < maxRate) {
		t.Errorf("rate %g Hz, measured %g Hz: outside 10 MHz..10 GHz", cal.Rate, cal.Measured)
	}
	if !(cal.ErrPPM >= 0) || !(cal.BoundPPM >= 0) || math.IsInf(cal.ErrPPM, 0) {
		t.Errorf("error estimates ErrPPM=%v BoundPPM=%v: want finite, non-negative", cal.ErrPPM, cal.BoundPPM)
	}
	if cal.Samples != 9 || cal.Span < 30*time.Millisecond || cal.Source == "" {
		t.Errorf("samples %d, span %v, source %q", cal.Samples, cal.Span, cal.Source)
	}
	if _, err := Calibrate(time.Millisecond, 2); err == nil {
		t.Error("Calibrate with 2 samples: no error")
	}
}

func TestTSCClock(t *testing.T) {
	trustedCounter(t)
	c, err := TSC()
	if err != nil {
		t.Fatal(err)
	}
	if c2, _ := TSC(); c2 != c {
		t.Error("TSC() calibrated twice")
	}
	if c.Name() != "tsc" || c.Rate() != c.Calibration().Rate || c.Resolution() != 1/c.Rate() {
		t.Errorf("name %q rate %g resolution %g", c.Name(), c.Rate(), c.Resolution())
	}
	// Over 50 ms the counter and the monotonic clock agree to a few percent
	// even with a preemption between the reads (a sanity bound, not a timing).
	mono := Monotonic()
	m0, n0, k0 := mono.Now(), c.Now(), c.Ticks()
	time.Sleep(50 * time.Millisecond)
	m1, n1, k1 := mono.Now(), c.Now(), c.Ticks()
	dm, dn, dk := m1-m0, n1-n0, c.Seconds(k1-k0)
	if math.Abs(dn/dm-1) > 0.05 || math.Abs(dk/dm-1) > 0.05 || math.Abs(Seconds(c, k1-k0)/dk-1) > 1e-12 {
		t.Errorf("over %.4f s of the monotonic clock the TSC clock's Now advanced %.4f s and its ticks %.4f s", dm, dn, dk)
	}
	if n0 < 0 {
		t.Errorf("Now = %v < 0", n0)
	}
}

func TestByName(t *testing.T) {
	for _, name := range Names() {
		c, err := ByName(name)
		if err != nil {
			t.Errorf("ByName(%q): %v", name, err)
			continue
		}
		if c.Name() != name {
			t.Errorf("ByName(%q).Name() = %q", name, c.Name())
		}
		r, res := c.Rate(), c.Resolution()
		if !(r > 0) || !(res > 0 && res < 1e-3) {
			t.Errorf("%s: rate %g, resolution %g", name, r, res)
		}
		a := c.Now()
		b := c.Now()
		if b < a {
			t.Errorf("%s: Now went from %v to %v", name, a, b)
		}
	}
	if !slices.Contains(Names(), "monotonic") || !slices.Contains(Names(), "realtime") {
		t.Errorf("Names() = %v", Names())
	}
	if (counterName != "") != slices.Contains(Names(), "tsc") {
		t.Errorf("Names() = %v with counter %q", Names(), counterName)
	}
	_, err := ByName("mpi")
	if !errors.Is(err, ErrUnknownClock) || !strings.Contains(err.Error(), "-tags mpi") {
		t.Errorf("ByName(mpi) = %v: want ErrUnknownClock with a hint", err)
	}
	rt, _ := ByName("realtime")
	if d := rt.Now() - float64(time.Now().UnixNano())/1e9; math.Abs(d) > 1 {
		t.Errorf("realtime is %v s away from time.Now", d)
	}
}

type fakeClock struct{ name string }

func (f fakeClock) Name() string      { return f.name }
func (fakeClock) Now() float64        { return 1 }
func (fakeClock) Ticks() int64        { return 1 }
func (fakeClock) Rate() float64       { return 1 }
func (fakeClock) Resolution() float64 { return 1 }

func TestRegister(t *testing.T) {
	name := "fake-for-test"
	if err := Register(fakeClock{name}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		regMu.Lock()
		delete(registered, name)
		regMu.Unlock()
	}()
	if c, err := ByName(name); err != nil || c.Now() != 1 {
		t.Errorf("ByName(%q) = %v, %v", name, c, err)
	}
	if !slices.Contains(Names(), name) {
		t.Errorf("Names() = %v, missing %q", Names(), name)
	}
	for _, bad := range []string{name, "tsc", "monotonic", ""} {
		if err := Register(fakeClock{bad}); err == nil {
			t.Errorf("Register(%q) succeeded", bad)
		}
	}
}

func TestCheckTrust(t *testing.T) {
	tr := CheckTrust(200)
	t.Logf("trust: %+v", tr)
	if tr.Counter != counterName {
		t.Errorf("Counter = %q, want %q", tr.Counter, counterName)
	}
	if counterName == "" {
		if tr.OK() {
			t.Error("no counter, yet trusted")
		}
		return
	}
	if !tr.Invariant && tr.OK() {
		t.Error("a counter that is not invariant is trusted")
	}
	if tr.CrossCore == nil {
		t.Skipf("cross-core check not done: %v", tr.Notes)
	}
	cc := tr.CrossCore
	if len(cc.CPUs) == 0 || cc.CPUs[0].CPU != cc.Reference || cc.Rounds != 200 {
		t.Errorf("cross-core: %+v", cc)
	}
	for _, o := range cc.CPUs[1:] {
		// Half the sum of the two minimal one-way differences is the
		// one-way latency: it cannot be negative.
		if o.Uncertainty < 0 {
			t.Errorf("CPU %d: uncertainty %v < 0", o.CPU, o.Uncertainty)
		}
		t.Logf("CPU %d vs %d: offset %.0f ± %.0f ticks, %d warps", o.CPU, cc.Reference, o.Offset, o.Uncertainty, o.Warps)
	}
}

func TestValidate(t *testing.T) {
	mono := Monotonic()
	v := Validate(mono, mono, 0, 3, 10000)
	if v.Verdict != "ok" || v.DriftPPM != 0 || v.Backward != 0 || !(v.Overhead > 0) || !(v.Observed > 0) {
		t.Errorf("monotonic against itself: %+v", v)
	}
	trustedCounter(t)
	tsc, err := TSC()
	if err != nil {
		t.Fatal(err)
	}
	v = Validate(tsc, mono, 30*time.Millisecond, 5, 10000)
	t.Logf("tsc against monotonic: %+v", v)
	// A sanity bound: no kernel clock is slewed by more than 500 ppm.
	if math.Abs(v.DriftPPM) > 1000 || v.Backward != 0 || !(v.Observed > 0) {
		t.Errorf("tsc against monotonic: %+v", v)
	}
}

func TestVerdict(t *testing.T) {
	cases := []struct {
		v    Validation
		want string
	}{
		{Validation{Observed: 1e-9}, "ok"},
		{Validation{Observed: 1e-9, DriftPPM: 150, DriftErrPPM: 60}, "ok"},
		{Validation{Observed: 1e-9, DriftPPM: -150, DriftErrPPM: 10}, "drifts -150 ppm"},
		{Validation{Observed: 1e-9, Backward: 3}, "went backwards 3 times"},
		{Validation{Observed: 1e-3, DriftPPM: math.NaN()}, "drift unknown; coarse (0.001 s steps)"},
	}
	for _, c := range cases {
		if got := c.v.verdict(); got != c.want {
			t.Errorf("verdict(%+v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestSlopeBound(t *testing.T) {
	// x = 0, 1, 2: Σ|x-x̄| = 2, Σ(x-x̄)² = 2, so the bound is h.
	if got := slopeBound([]float64{0, 1, 2}, 3); got != 3 {
		t.Errorf("slopeBound = %v, want 3", got)
	}
}

func TestReadCPU(t *testing.T) {
	if counterName != "TSC" {
		t.Skip("only RDTSCP names the CPU")
	}
	_, cpu := readCPU()
	if cpu < 0 || cpu > 4095 {
		t.Errorf("readCPU CPU = %d", cpu)
	}
}

// TestNanoScale: the integer conversion agrees with the float one (Now) to
// within a nanosecond, for counters from 1 MHz to 10 GHz, before and after
// the clock's base, far from it too.
func TestNanoScale(t *testing.T) {
	for _, rate := range []float64{1e6, 24e6, 1e9, 2096.028e6, 2596.151835e6, 10e9} {
		c := &TSCClock{base: 1 << 40, secPerTick: 1 / rate, cal: Calibration{Rate: rate}}
		s := c.NanoScale()
		for _, d := range []int64{0, 1, -1, 7, 1000, -1000, 123456789, -123456789, 1 << 40, 3600 * int64(rate)} {
			tk := uint64(int64(c.base) + d)
			want := float64(d) / rate * 1e9
			if got := s.Nanos(tk); math.Abs(float64(got)-want) > 1 {
				t.Errorf("rate %g Hz, %d ticks from the base: %d ns, want %.1f", rate, d, got, want)
			}
		}
	}
}

// TestRead: the unfenced read counts on with the fenced ones.
func TestRead(t *testing.T) {
	trustedCounter(t)
	a := Start()
	b := Read()
	time.Sleep(time.Millisecond)
	if c := Read(); !(a <= b+1000 && b < c) {
		t.Errorf("Start %d, Read %d, Read 1 ms later %d: not counting on", a, b, c)
	}
}
