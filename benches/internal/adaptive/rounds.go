package adaptive

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Rounds says how many measurements a round takes and how often it may try.
// A round takes Start·2^(r-1) samples in round r (r = 1..MaxRounds); when no
// round is accepted the procedure starts over, at most Restarts more times.
// Budget, when positive, bounds the wall time of the whole procedure: no
// measurement starts once it is spent (beyond the first), and the result is
// then "not accepted".
type Rounds struct {
	Start     int
	MaxRounds int
	Restarts  int
	Budget    time.Duration
}

// DefaultRounds is the seed's procedure: six doubling rounds, starting over
// once.
var DefaultRounds = Rounds{Start: 20, MaxRounds: 6, Restarts: 1}

// Check validates the procedure's parameters.
func (r Rounds) Check() error {
	switch {
	case r.Start < 2:
		return fmt.Errorf("start count %d: a round needs at least 2 measurements", r.Start)
	case r.MaxRounds < 1 || r.MaxRounds > 20:
		return fmt.Errorf("rounds %d: want 1 to 20 (the seed uses 6)", r.MaxRounds)
	case r.Restarts < 0:
		return fmt.Errorf("restarts %d: want 0 or more", r.Restarts)
	case r.Budget < 0:
		return fmt.Errorf("budget %v: want 0 (none) or a positive duration", r.Budget)
	}
	return nil
}

// Result is the outcome of Measure.
type Result struct {
	Verdict               // of the last round taken
	Value       float64   // the mean of the accepted round (the seed's result); the last round's mean if none was accepted
	Round       int       // 1-based round of the verdict
	Attempt     int       // 1-based attempt (1 + restarts used)
	Samples     []float64 // the last round's measurements, for histograms
	Total       int       // measurements taken in all rounds
	OutOfBudget bool      // stopped because Budget was spent
}

// OK reports whether a criterion accepted the result.
func (r Result) OK() bool { return r.Accepted != None }

// Status is the word for the report: the accepting criterion, or
// "NOT accepted" with why.
func (r Result) Status() string {
	switch {
	case r.Accepted != None:
		return r.Accepted.String()
	case r.OutOfBudget:
		return "NOT accepted (time budget)"
	}
	return "NOT accepted"
}

// ErrSample wraps an error returned by the measured function.
var ErrSample = errors.New("measurement failed")

// Measure runs rounds of sample until the judge accepts one: sample returns
// one measurement (say, seconds per operation). It returns the result even
// when no round is accepted — check OK — and an error only when
// sample fails.
func Measure(j Judge, r Rounds, sample func() (float64, error)) (Result, error) {
	return MeasureRounds(j, r, PerSample(sample))
}

// A Source takes a round: up to n measurements, fewer only when the
// deadline (zero: none) passes first.
type Source func(n int, deadline time.Time) ([]float64, error)

// PerSample makes a Source out of one call of sample per measurement; it
// stops taking measurements once the deadline has passed.
func PerSample(sample func() (float64, error)) Source {
	return func(n int, deadline time.Time) ([]float64, error) {
		x := make([]float64, 0, n)
		for range n {
			if !deadline.IsZero() && len(x) > 0 && time.Now().After(deadline) {
				break
			}
			v, err := sample()
			if err != nil {
				return nil, err
			}
			x = append(x, v)
		}
		return x, nil
	}
}

// MeasureRounds is Measure for a Source, which may take a whole round at
// once (say, in another process). With a Budget, a round cut short by it is
// never accepted: the result says "NOT accepted (time budget)" and describes
// the measurements taken.
func MeasureRounds(j Judge, r Rounds, take Source) (Result, error) {
	var res Result
	var deadline time.Time
	if r.Budget > 0 {
		deadline = time.Now().Add(r.Budget)
	}
	for attempt := 1; attempt <= 1+r.Restarts; attempt++ {
		n := r.Start
		for round := 1; round <= r.MaxRounds; round++ {
			if !deadline.IsZero() && res.Total > 0 && time.Now().After(deadline) {
				res.OutOfBudget = true
				return res, nil
			}
			x, err := take(n, deadline)
			if err == nil && (len(x) > n || len(x) == 0) {
				err = fmt.Errorf("a round of %d gave %d measurements", n, len(x))
			}
			if err != nil {
				return res, fmt.Errorf("%w: %w", ErrSample, err)
			}
			res.Total += len(x)
			res.Verdict = j.Judge(x)
			res.Value, res.Round, res.Attempt, res.Samples = res.Mean, round, attempt, x
			if len(x) < n {
				res.Accepted = None // a round cut short is not a round
				res.OutOfBudget = true
				return res, nil
			}
			if res.OK() {
				return res, nil
			}
			if n > math.MaxInt32/2 {
				break
			}
			n *= 2
		}
	}
	return res, nil
}
