package rdtsc

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gompi/gompi/internal/stats"
)

// MeasureOverhead returns the cost of one c.Now() call through the Clock
// interface, in seconds: the median over five batches of n/5 calls of the
// batch's mean, after a warm-up batch, each timed with Go's monotonic clock.
// The median keeps one preempted batch from counting.
func MeasureOverhead(c Clock, n int) float64 {
	const batches = 5
	per := max(n/batches, 1)
	means := make([]float64, 0, batches)
	for b := range batches + 1 {
		t0 := time.Now()
		for range per {
			_ = c.Now() // an interface call: the compiler cannot drop it
		}
		if b > 0 {
			means = append(means, time.Since(t0).Seconds()/float64(per))
		}
	}
	return stats.Median(means)
}

// Validation is one clock checked against a reference clock.
type Validation struct {
	Source     string
	Resolution float64 // the clock's stated resolution, seconds
	// Observed is the smallest nonzero step between consecutive Ticks reads,
	// in seconds: the resolution in practice (never below the read cost for a
	// fine clock).
	Observed float64
	Overhead float64 // seconds per Now call (MeasureOverhead)
	Reads    int     // consecutive reads checked for monotonicity
	Backward int     // of those, how many went backwards
	// DriftPPM is (rate of the clock / rate of the reference − 1) in parts
	// per million over Interval, from a least-squares fit; DriftErrPPM is its
	// 95 % confidence half-width. Both are 0 for the reference itself.
	DriftPPM, DriftErrPPM float64
	Reference             string
	Interval              time.Duration
	Verdict               string // "ok", or what is wrong
}

// Tolerances behind Validation.Verdict.
const (
	// MaxDriftPPM is the drift against the reference beyond which a clock is
	// called drifting: NTP never slews the kernel clocks by more than 500
	// ppm, and good crystals stay within 100.
	MaxDriftPPM = 100
	// MaxObserved is the coarsest observed step for a clock fit to time
	// microsecond events.
	MaxObserved = 1e-6
)

// Validate checks c against ref: the observed resolution and monotonicity over
// reads consecutive reads, the overhead of Now, and the drift between the two
// over interval, fitted over samples points (at least 3). It sleeps for most
// of interval.
func Validate(c, ref Clock, interval time.Duration, samples, reads int) Validation {
	v := Validation{
		Source:     c.Name(),
		Resolution: c.Resolution(),
		Reference:  ref.Name(),
		Interval:   interval,
		Reads:      reads,
	}
	minStep := int64(math.MaxInt64)
	prev := c.Ticks()
	for range reads {
		t := c.Ticks()
		if d := t - prev; d < 0 {
			v.Backward++
		} else if d > 0 {
			minStep = min(minStep, d)
		}
		prev = t
	}
	v.Observed = math.Inf(1)
	if minStep != math.MaxInt64 {
		v.Observed = Seconds(c, minStep)
	}
	v.Overhead = MeasureOverhead(c, reads)
	if c.Name() != ref.Name() {
		ps := samplePairs(ref.Now, c.Now, max(samples, 3), interval)
		if line, err := stats.FitLine(ps.outer, ps.inner); err == nil {
			v.DriftPPM = (line.Slope - 1) * 1e6
			v.DriftErrPPM = line.SlopeCI(0.95) * 1e6
		} else {
			v.DriftPPM, v.DriftErrPPM = math.NaN(), math.NaN()
		}
	}
	v.Verdict = v.verdict()
	return v
}

func (v Validation) verdict() string {
	var bad []string
	if v.Backward > 0 {
		bad = append(bad, fmt.Sprintf("went backwards %d times", v.Backward))
	}
	if math.IsNaN(v.DriftPPM) {
		bad = append(bad, "drift unknown")
	} else if math.Abs(v.DriftPPM)-v.DriftErrPPM > MaxDriftPPM {
		bad = append(bad, fmt.Sprintf("drifts %.0f ppm", v.DriftPPM))
	}
	if v.Observed > MaxObserved {
		bad = append(bad, fmt.Sprintf("coarse (%.3g s steps)", v.Observed))
	}
	if len(bad) == 0 {
		return "ok"
	}
	return strings.Join(bad, "; ")
}
