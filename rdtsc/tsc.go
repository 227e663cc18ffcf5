package rdtsc

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/gompi/gompi/internal/stats"
)

// Calibration defaults: ByName("tsc") and TSC() spend about this long.
const (
	DefaultCalibrationSpan    = 100 * time.Millisecond
	DefaultCalibrationSamples = 21
)

// Calibration says how counter ticks convert to seconds and how well that is
// known.
type Calibration struct {
	// Rate is the rate in use, ticks per second: the rate the processor
	// states (Source) where it states one, else Measured.
	Rate   float64
	Source string // "CPUID leaf 0x15", "CNTFRQ_EL0" or "regression vs CLOCK_MONOTONIC_RAW"

	// Measured is the least-squares slope of ticks against
	// CLOCK_MONOTONIC_RAW nanoseconds, in ticks per second.
	Measured float64
	// ErrPPM is the half-width of the 95 % confidence interval of Measured,
	// relative, in parts per million (from the regression's standard error).
	ErrPPM float64
	// BoundPPM is a worst-case bound on the error of Measured, in ppm, if
	// every reference read was off by up to half the widest bracket around it
	// in the worst pattern; it does not assume the errors are random.
	BoundPPM float64
	// StatedDiffPPM is (Measured - stated rate) / stated rate in ppm where the
	// processor states a rate, 0 otherwise.
	StatedDiffPPM float64

	Samples    int
	Span       time.Duration // time between the first and last sample
	ResidualNs float64       // standard deviation of the fit's residuals, in ns
	BracketNs  float64       // median width of a reference read bracketed by two counter reads, ns
}

// TSCClock is the calibrated hardware counter (the TSC on amd64, CNTVCT_EL0
// on arm64). Its methods are small enough to be inlined around the assembly
// read, so a *TSCClock held as a concrete type is the cheapest clock there is.
type TSCClock struct {
	base       uint64  // counter value where Now is 0
	secPerTick float64 // 1/cal.Rate
	cal        Calibration
}

// NewTSC returns a counter clock that converts with cal, with Now counting
// from the moment of the call.
func NewTSC(cal Calibration) *TSCClock {
	return &TSCClock{base: Start(), secPerTick: 1 / cal.Rate, cal: cal}
}

var (
	tscOnce  sync.Once
	tscClock *TSCClock
	tscErr   error
)

// TSC returns the counter clock, calibrated once per process with the
// default span and number of samples. It returns an error wrapping
// ErrNotSupported where the architecture has no counter.
func TSC() (*TSCClock, error) {
	tscOnce.Do(func() {
		cal, err := Calibrate(DefaultCalibrationSpan, DefaultCalibrationSamples)
		if err != nil {
			tscErr = err
			return
		}
		tscClock = NewTSC(cal)
	})
	return tscClock, tscErr
}

func (*TSCClock) Name() string { return "tsc" }

// Ticks reads the counter with the start-of-interval fence (Start).
func (*TSCClock) Ticks() int64 { return int64(Start()) }

// Now returns seconds since the clock was made.
func (c *TSCClock) Now() float64 { return float64(Start()-c.base) * c.secPerTick }

// Rate is the counter's rate in ticks per second.
func (c *TSCClock) Rate() float64 { return c.cal.Rate }

// Resolution is one tick in seconds.
func (c *TSCClock) Resolution() float64 { return c.secPerTick }

// Seconds converts a difference of ticks to seconds.
func (c *TSCClock) Seconds(ticks int64) float64 { return float64(ticks) * c.secPerTick }

// Calibration returns how the clock was calibrated.
func (c *TSCClock) Calibration() Calibration { return c.cal }

// NanoScale converts counter readings to nanoseconds since the clock was
// made with one integer multiply and shift (no float conversion), for code
// that stamps many events: Nanos(Read()) is the cheapest reading of the
// clock in nanoseconds.
type NanoScale struct {
	base uint64 // counter value at nanosecond 0
	mult uint64 // nanoseconds per tick × 2^nanoShift
}

// nanoShift is the fixed point of NanoScale.mult: for counters from 1 MHz
// (2^58 in mult) to 10 GHz (a rounding error of 4·10^-14, 0.15 ns an hour).
const nanoShift = 48

// NanoScale returns the clock's conversion to nanoseconds: Nanos(t) equals
// Now()·1e9 for a reading t, to within a nanosecond.
func (c *TSCClock) NanoScale() NanoScale {
	return NanoScale{base: c.base, mult: uint64(math.Round(c.secPerTick * 1e9 * (1 << nanoShift)))}
}

// Nanos converts the counter reading t to nanoseconds since the clock was
// made (negative for a reading before it).
func (s NanoScale) Nanos(t uint64) int64 {
	d := t - s.base
	if int64(d) < 0 {
		return -s.scale(s.base - t)
	}
	return s.scale(d)
}

// Span converts a span of d ticks to nanoseconds.
func (s NanoScale) Span(d uint64) int64 { return s.scale(d) }

// scale converts d ticks to nanoseconds.
func (s NanoScale) scale(d uint64) int64 {
	hi, lo := bits.Mul64(d, s.mult)
	return int64(hi<<(64-nanoShift) | lo>>nanoShift)
}

// Calibrate measures the counter's rate against CLOCK_MONOTONIC_RAW (the
// kernel's clock without NTP slewing) by a least-squares fit of ticks on
// nanoseconds over samples points spread evenly across span. Each point reads
// the reference clock between two counter reads and takes the midpoint of the
// narrowest of several tries, so a preemption in the middle of a read does
// not spoil it. The fit's confidence interval and the bracket bound both go
// into the result.
//
// Where the processor states its rate (CPUID leaf 0x15, CNTFRQ_EL0), that rate
// is used and the measurement checks it. Calibrate sleeps between samples.
func Calibrate(span time.Duration, samples int) (Calibration, error) {
	if counterName == "" {
		return Calibration{}, fmt.Errorf("rdtsc: no cycle counter on this architecture: %w", ErrNotSupported)
	}
	if samples < 3 {
		return Calibration{}, fmt.Errorf("rdtsc: Calibrate needs at least 3 samples, got %d", samples)
	}
	tick := func() float64 { return float64(Start()) }
	ps := samplePairs(tick, rawNanos, samples, span)
	line, err := stats.FitLine(ps.inner, ps.outer) // ticks = a + b·ns
	if err != nil {
		return Calibration{}, fmt.Errorf("rdtsc: calibration fit: %w", err)
	}
	spanNs := ps.inner[len(ps.inner)-1] - ps.inner[0]
	cal := Calibration{
		Measured:   line.Slope * 1e9,
		ErrPPM:     line.SlopeCI(0.95) / line.Slope * 1e6,
		BoundPPM:   slopeBound(ps.inner, ps.maxHalfWidth) / line.Slope * 1e6,
		Samples:    samples,
		Span:       time.Duration(spanNs),
		ResidualNs: line.ResidualStd / line.Slope,
		BracketNs:  ps.medianWidth / line.Slope,
	}
	cal.Rate, cal.Source = cal.Measured, "regression vs CLOCK_MONOTONIC_RAW"
	if r, src := knownRate(); r > 0 {
		cal.Rate, cal.Source = r, src
		cal.StatedDiffPPM = (cal.Measured - r) / r * 1e6
	}
	return cal, nil
}

// pairs holds samples of two clocks read together: inner read once between
// two reads of outer, whose midpoint is kept.
type pairs struct {
	outer, inner []float64
	maxHalfWidth float64 // widest kept bracket / 2, in outer units
	medianWidth  float64 // median kept bracket, in outer units
}

// samplePairs takes n samples spread evenly across span. For each it reads
// outer, inner, outer several times and keeps the try with the narrowest
// outer bracket, recording the bracket midpoint against the inner value.
func samplePairs(outer, inner func() float64, n int, span time.Duration) pairs {
	const tries = 7
	ps := pairs{outer: make([]float64, n), inner: make([]float64, n)}
	widths := make([]float64, n)
	start := time.Now()
	for i := range n {
		if i > 0 {
			time.Sleep(time.Until(start.Add(span * time.Duration(i) / time.Duration(n-1))))
		}
		for t := range tries {
			o0 := outer()
			v := inner()
			o1 := outer()
			if w := o1 - o0; t == 0 || w < widths[i] {
				widths[i], ps.outer[i], ps.inner[i] = w, o0+w/2, v
			}
		}
	}
	ps.maxHalfWidth = slices.Max(widths) / 2
	ps.medianWidth = stats.Median(widths)
	return ps
}

// slopeBound is the largest change in a least-squares slope over x when each
// y moves by at most h: h·Σ|x-x̄| / Σ(x-x̄)².
func slopeBound(x []float64, h float64) float64 {
	m := stats.Mean(x)
	var sa, sxx float64
	for _, v := range x {
		sa += math.Abs(v - m)
		sxx += (v - m) * (v - m)
	}
	return h * sa / sxx
}
