package gompi

import (
	"sync"
	"testing"
	"time"

	"github.com/gompi/gompi/rdtsc"
)

// interpSlack is how far an interpolated reading may be from the monotonic
// clock read around it: the rate error over a window (nanoseconds) and the
// CPUs' counters' disagreement (tens of ns where they agree), with room.
const interpSlack = 5 * time.Microsecond

// checkInterp reads c between two readings of the monotonic clock, n times
// with pause between, and fails if a reading falls outside them.
func checkInterp(t *testing.T, c *interpClock, n int, pause time.Duration) {
	t.Helper()
	for i := 0; i < n; i++ {
		m0 := int64(time.Since(c.base))
		v := c.now()
		m1 := int64(time.Since(c.base))
		if v < m0-int64(interpSlack) || v > m1+int64(interpSlack) {
			t.Errorf("reading %d: %d ns, the monotonic clock read %d before and %d after", i, v, m0, m1)
			return
		}
		if pause > 0 {
			time.Sleep(pause)
		}
	}
}

func newTestInterp(t *testing.T) *interpClock {
	if !rdtsc.CheckTrust(0).Invariant {
		t.Skip("no invariant counter")
	}
	c := newInterpClock(time.Now())
	if c == nil {
		t.Skip("no counter to read")
	}
	return c
}

// TestInterpClock: readings through the TSC stay with the monotonic clock,
// back to back (within one anchor's window), across windows, and after the
// counter jumps either way (a wrong anchor stands for the jump).
func TestInterpClock(t *testing.T) {
	c := newTestInterp(t)
	checkInterp(t, c, 10000, 0)
	checkInterp(t, c, 20, 70*time.Microsecond)
	for _, jump := range []int64{1 << 40, -(1 << 40), int64(c.window) - 1} {
		c.tsc.Store(uint64(int64(rdtsc.Read()) + jump))
		c.mono.Store(-1 << 50)
		checkInterp(t, c, 1, 0)
	}
}

// TestInterpClockConcurrent: goroutines reading and re-anchoring at once
// (the race detector checks the sequence lock).
func TestInterpClockConcurrent(t *testing.T) {
	c := newTestInterp(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checkInterp(t, c, 2000, 0)
			checkInterp(t, c, 10, 60*time.Microsecond)
		}()
	}
	wg.Wait()
}
