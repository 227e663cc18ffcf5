package osu

import (
	"math"
	"slices"
)

// Dist is one rank's distribution of its timed calls at one size: what the
// mean the OSU method reports hides (a few slow calls can move a mean of a
// thousand). benches osu --dist writes one per rank and size;
// benches/ref/osu_coll.c --dist writes the same fields.
type Dist struct {
	Op     string       `json:"op"`
	N      int          `json:"n"`
	Size   int          `json:"size"`
	Rank   int          `json:"rank"`
	Iters  int          `json:"iters"`
	Mean   float64      `json:"mean_us"`
	P50    float64      `json:"p50_us"`
	P90    float64      `json:"p90_us"`
	P99    float64      `json:"p99_us"`
	P999   float64      `json:"p999_us"`
	Max    float64      `json:"max_us"`
	Over5  int          `json:"over5"`          // calls over 5 µs
	Over20 int          `json:"over20"`         // calls over 20 µs
	Excess float64      `json:"excess_us"`      // µs per call the calls over 5 µs add above the median: what the tail costs the mean
	Slow   [][2]float64 `json:"slow,omitempty"` // the calls over SlowUs: [start on the caller's clock (s), µs]
	// Threads are the process's threads that ran or switched during the
	// size (skipped calls included), from /proc/self/task/*/schedstat and
	// status: what else the rank ran, and how long its threads waited
	// runnable for a CPU.
	Threads []ThreadStat `json:"threads,omitempty"`
	// BeginMs is when the size began (its first skipped call) and InitMs
	// how long Init took, in ms from the process's start (Go side only).
	BeginMs float64 `json:"begin_ms,omitempty"`
	InitMs  float64 `json:"init_ms,omitempty"`
}

// ThreadStat is what one thread did over an interval.
type ThreadStat struct {
	TID    int     `json:"tid"`
	Comm   string  `json:"comm"`
	RunUs  float64 `json:"run_us"`  // on a CPU
	WaitUs float64 `json:"wait_us"` // runnable, waiting for a CPU
	Slices int64   `json:"slices"`  // times it was put on a CPU
	Vcsw   int64   `json:"vcsw"`    // voluntary context switches (it blocked or yielded)
	Ivcsw  int64   `json:"ivcsw"`   // involuntary ones (it was preempted)
}

// Recorder gets a rank's timed calls: Begin before a size's first call
// (skipped ones included), End after its last.
type Recorder interface {
	Begin(size int)
	End(size int, s *Samples) error
}

// Samples are one rank's timed calls at one size: when each began (seconds
// on gompi.Wtime's clock) and how long it took (µs).
type Samples struct {
	Start []float64
	Us    []float64
}

func (s *Samples) reset(n int) {
	if cap(s.Us) < n {
		s.Start, s.Us = make([]float64, 0, n), make([]float64, 0, n)
	}
	s.Start, s.Us = s.Start[:0], s.Us[:0]
}

// add records one call; it does not allocate while len < the reset's n.
func (s *Samples) add(start, us float64) {
	s.Start = append(s.Start, start)
	s.Us = append(s.Us, us)
}

// quantile is the q-quantile of sorted xs (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Summarize makes the Dist of s; calls slower than slowUs are listed in
// Slow (at most maxSlow of them, the first ones).
func (s *Samples) Summarize(slowUs float64, maxSlow int) Dist {
	d := Dist{Iters: len(s.Us)}
	if len(s.Us) == 0 {
		return d
	}
	sorted := slices.Clone(s.Us)
	slices.Sort(sorted)
	var sum float64
	for _, v := range sorted {
		sum += v
	}
	d.Mean = sum / float64(len(sorted))
	d.P50, d.P90, d.P99, d.P999 = quantile(sorted, 0.5), quantile(sorted, 0.9), quantile(sorted, 0.99), quantile(sorted, 0.999)
	d.Max = sorted[len(sorted)-1]
	var excess float64
	for i, v := range s.Us {
		if v > 5 {
			d.Over5++
			excess += v - d.P50
		}
		if v > 20 {
			d.Over20++
		}
		if v > slowUs && len(d.Slow) < maxSlow {
			d.Slow = append(d.Slow, [2]float64{s.Start[i], v})
		}
	}
	d.Excess = excess / float64(len(s.Us))
	return d
}
