// Package adaptive is the statistics block of the system test complex
// (shared/spec/system-tests.md): it judges whether a round of measurements can
// be believed by three criteria, and runs rounds of doubling size until one
// accepts. Any suite can time a function with Measure.
//
// The three criteria, in the seed's order:
//
//  1. Pearson: the sample fits a normal law (Pearson's chi-square goodness of
//     fit, mean and deviation estimated from the sample, equiprobable bins).
//  2. Spread: the sample's spread — its standard deviation — is at most a
//     share (2 %) of its mean: a random error of unknown law.
//  3. Interval: an interval of the sample's histogram holds at least a share
//     (80 %) of the measurements, and those pass criterion 1: a random
//     systematic part (outliers, a second mode) beside a normal core.
package adaptive

import (
	"fmt"
	"math"
	"slices"

	"github.com/gompi/gompi/internal/stats"
)

// Criterion names what accepted a round.
type Criterion int

// The criteria; None means the round was not accepted.
const (
	None Criterion = iota
	Pearson
	Spread
	Interval
)

var criterionNames = []string{"not accepted", "pearson", "spread", "interval"}

func (c Criterion) String() string {
	if c >= 0 && int(c) < len(criterionNames) {
		return criterionNames[c]
	}
	return fmt.Sprintf("Criterion(%d)", int(c))
}

// Judge holds the thresholds of the three criteria.
type Judge struct {
	Alpha  float64 // significance of the chi-square test: reject normality when p < Alpha
	Spread float64 // criterion 2: standard deviation at most this share of the mean
	Share  float64 // criterion 3: the interval holds at least this share of the sample
}

// DefaultJudge is the seed's thresholds with the usual 5 % significance.
var DefaultJudge = Judge{Alpha: 0.05, Spread: 0.02, Share: 0.80}

// Check validates the thresholds.
func (j Judge) Check() error {
	switch {
	case !(j.Alpha > 0 && j.Alpha < 1):
		return fmt.Errorf("significance %v: want a number between 0 and 1, such as 0.05", j.Alpha)
	case !(j.Spread > 0):
		return fmt.Errorf("spread %v: want a positive share of the mean, such as 0.02", j.Spread)
	case !(j.Share > 0.5 && j.Share <= 1):
		return fmt.Errorf("interval share %v: want more than 0.5 and at most 1, such as 0.8", j.Share)
	}
	return nil
}

// Verdict is what the criteria say of one sample.
type Verdict struct {
	Accepted Criterion // the first criterion, in the seed's order, that accepts; None if none does
	N        int
	Mean     float64
	RelSD    float64 // standard deviation / mean (criterion 2)
	PValue   float64 // of the chi-square test on the whole sample; NaN when too small to test
	// The interval of criterion 3 when it was found: [Lo, Hi] holding
	// InShare of the sample, whose chi-square p-value is InP and mean InMean.
	Lo, Hi, InShare, InP, InMean float64
}

// MinPearson is the smallest sample the chi-square test is run on: four
// bins of at least five expected values each, leaving one degree of freedom
// after the mean and deviation are estimated.
const MinPearson = 20

// Judge applies the three criteria to sample x.
func (j Judge) Judge(x []float64) Verdict {
	s := stats.Sorted(x)
	v := Verdict{N: len(s), Mean: stats.Mean(s), PValue: math.NaN(), Lo: math.NaN(), Hi: math.NaN(),
		InShare: math.NaN(), InP: math.NaN(), InMean: math.NaN()}
	if len(s) == 0 {
		return v
	}
	v.RelSD = relSD(s)
	v.PValue = PearsonNormal(s)
	switch {
	case v.PValue >= j.Alpha:
		v.Accepted = Pearson
	case len(s) >= 2 && v.RelSD <= j.Spread:
		v.Accepted = Spread
	}
	// The interval is looked for even when an earlier criterion accepted,
	// so that the report can show it; it accepts only as the third.
	if lo, hi, ok := j.interval(s); ok {
		in := s[lo:hi]
		v.Lo, v.Hi = in[0], in[len(in)-1]
		v.InShare = float64(len(in)) / float64(len(s))
		v.InP = PearsonNormal(in)
		v.InMean = stats.Mean(in)
		if v.Accepted == None {
			v.Accepted = Interval
		}
	}
	return v
}

func relSD(s []float64) float64 {
	m := stats.Mean(s)
	if len(s) < 2 {
		return math.NaN()
	}
	if m == 0 {
		return math.Inf(1)
	}
	return math.Abs(stats.StdDev(s) / m)
}

// PearsonNormal returns the p-value of Pearson's chi-square test of the
// sorted sample s against a normal law with its own mean and standard
// deviation: k equiprobable bins (k = 2·n^0.4, at least 4, at most n/5 so
// that every bin expects five values), k-3 degrees of freedom. It returns
// NaN below MinPearson values, 0 for a sample without spread.
func PearsonNormal(s []float64) float64 {
	n := len(s)
	if n < MinPearson {
		return math.NaN()
	}
	m, sd := stats.Mean(s), stats.StdDev(s)
	if !(sd > 0) {
		return 0
	}
	k := int(math.Ceil(2 * math.Pow(float64(n), 0.4)))
	k = max(4, min(k, n/5))
	expect := float64(n) / float64(k)
	chi, below := 0.0, 0
	for i := 1; i <= k; i++ {
		upTo := n // the last bin is open above
		if i < k {
			edge := stats.NormalQuantile(float64(i)/float64(k), m, sd)
			upTo, _ = slices.BinarySearch(s, edge)
			// BinarySearch gives the first index >= edge; values equal to
			// the edge belong to the bin above, as for a continuous law.
		}
		o := float64(upTo - below)
		chi += (o - expect) * (o - expect) / expect
		below = upTo
	}
	return stats.ChiSquareSF(chi, float64(k-3))
}

// interval looks for the histogram interval of criterion 3 in the sorted
// sample s: the widest run s[lo:hi] holding at least Share of the values
// that passes PearsonNormal. Runs are tried from the most values down, and
// among equal ones from the lowest; start and end move in steps of about 1 %
// of n so that the search stays near O(n) chi-square tests.
func (j Judge) interval(s []float64) (lo, hi int, ok bool) {
	n := len(s)
	need := int(math.Ceil(j.Share * float64(n)))
	if need < MinPearson || need > n {
		return 0, 0, false
	}
	step := max(1, n/100)
	for size := n; size >= need; size -= step {
		for lo := 0; lo+size <= n; lo += step {
			if PearsonNormal(s[lo:lo+size]) >= j.Alpha {
				return lo, lo + size, true
			}
		}
		if size > need && size-step < need {
			size = need + step // try exactly need last
		}
	}
	return 0, 0, false
}
