package gompi

import (
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/rdtsc"
)

// interpClock is the monotonic clock read through the TSC, for the trace's
// timestamps where the TSC is not trusted as a clock of its own (a virtual
// machine whose kernel keeps kvm-clock, as the development VM): a reading
// is the last anchor, a pair of the monotonic clock and the TSC read
// together, plus the TSC's ticks since, scaled. A reading more than window
// ticks after its anchor (or before it: the counter went back, or this CPU's
// counter is behind the anchor's) reads the monotonic clock and makes a new
// anchor. So the TSC is only trusted over spans shorter than window (50 µs):
// its rate error (a calibration of 20 ms, within tens of ppm) moves a
// timestamp by a nanosecond at most, a jump of the counter (a virtual
// machine restored from a snapshot) is caught, and the time is the
// monotonic clock's on every anchor. What it assumes is that the CPUs'
// counters agree: a CPU whose counter is ahead of the anchor's by x gives
// times late by x, until the next anchor (on the development VM the counters
// of the two vCPUs agree within their ±60 ns uncertainty, `benches timers`).
//
// A reading costs an unfenced RDTSC and a few loads (about 13 ns on the
// development VM, where the kvm-clock vDSO costs 30); an anchor costs two
// RDTSC and a monotonic read.
type interpClock struct {
	base   time.Time // the monotonic clock's zero, as the recorder's
	scale  rdtsc.NanoScale
	window uint64 // ticks
	// goodGap bounds the ticks between the two TSC readings of an anchor:
	// one and a half times the narrowest seen at the start. Within it the
	// monotonic clock's own reading of the counter falls at about the same
	// place between the two, so successive anchors agree to a few ns.
	goodGap uint64
	// The anchor, under a sequence lock: seq is odd while it is written.
	seq  atomic.Uint64
	tsc  atomic.Uint64
	mono atomic.Int64
}

// interpWindow is how long the TSC alone times after an anchor.
const interpWindow = 50 * time.Microsecond

// newInterpClock calibrates the counter briefly (20 ms: the rate need only
// hold over a window) and returns the clock, or nil where there is no
// counter to read.
func newInterpClock(base time.Time) *interpClock {
	cal, err := rdtsc.Calibrate(20*time.Millisecond, 5)
	if err != nil || cal.Rate <= 0 {
		return nil
	}
	c := &interpClock{base: base, scale: rdtsc.NewTSC(cal).NanoScale(), window: uint64(cal.Rate * interpWindow.Seconds())}
	narrowest := c.window
	for range 200 {
		if _, t0, t1 := c.read(); t1-t0 < narrowest {
			narrowest = t1 - t0
		}
	}
	c.goodGap = narrowest + narrowest/2
	c.anchor()
	return c
}

// read reads the monotonic clock between two readings of the TSC.
func (c *interpClock) read() (m int64, t0, t1 uint64) {
	t0 = rdtsc.Read()
	m = int64(time.Since(c.base))
	t1 = rdtsc.Read()
	return m, t0, t1
}

// now returns nanoseconds of the monotonic clock since base.
func (c *interpClock) now() int64 {
	t := rdtsc.Read()
	s := c.seq.Load()
	at, am := c.tsc.Load(), c.mono.Load()
	if s&1 == 0 && c.seq.Load() == s {
		if d := t - at; d < c.window {
			return am + c.scale.Span(d)
		}
	}
	return c.anchor()
}

// anchor reads the monotonic clock between two TSC readings, up to three
// times until the two are close enough (goodGap: not interrupted), keeps
// that pair as the anchor (unless another goroutine is writing one) and
// returns the monotonic reading.
func (c *interpClock) anchor() int64 {
	var m int64
	for range 3 {
		var t0, t1 uint64
		m, t0, t1 = c.read()
		if t1-t0 > c.goodGap {
			continue
		}
		if s := c.seq.Load(); s&1 == 0 && c.seq.CompareAndSwap(s, s+1) {
			c.tsc.Store(t0 + (t1-t0)/2)
			c.mono.Store(m)
			c.seq.Store(s + 2)
		}
		break
	}
	return m
}
