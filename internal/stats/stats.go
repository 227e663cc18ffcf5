// Package stats holds the descriptive statistics, Student-t critical values and
// least-squares line fit that the benchmarks and the timer calibration share.
//
// Functions take samples as []float64 and never modify them; those that need
// order sort a copy. An empty sample gives NaN (or, for Summarize and FitLine,
// an error), never a panic.
package stats

import (
	"errors"
	"math"
	"slices"
)

// ErrTooFew is returned when a sample is too small for the statistic asked.
var ErrTooFew = errors.New("stats: too few samples")

// Mean returns the arithmetic mean of x, NaN for an empty sample.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Variance returns the unbiased sample variance (divisor n-1), NaN when n < 2.
// It uses two passes over the data for accuracy.
func Variance(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	m := Mean(x)
	s, c := 0.0, 0.0
	for _, v := range x {
		d := v - m
		s += d * d
		c += d
	}
	n := float64(len(x))
	return (s - c*c/n) / (n - 1)
}

// StdDev returns the unbiased sample standard deviation sqrt(Variance(x)).
func StdDev(x []float64) float64 { return math.Sqrt(Variance(x)) }

// StdErr returns the standard error of the mean, StdDev(x)/sqrt(n).
func StdErr(x []float64) float64 { return StdDev(x) / math.Sqrt(float64(len(x))) }

// MinMax returns the smallest and largest value of x, NaNs for an empty sample.
func MinMax(x []float64) (lo, hi float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Min(x), slices.Max(x)
}

// Sorted returns a sorted copy of x.
func Sorted(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// Median returns the middle value of x (the mean of the two middle values for
// an even n), NaN for an empty sample.
func Median(x []float64) float64 { return Quantile(x, 0.5) }

// Quantile returns the q-quantile of x (0 <= q <= 1) by linear interpolation
// between order statistics (definition 7 of Hyndman and Fan, the default of R
// and NumPy). NaN for an empty sample or q outside [0, 1].
func Quantile(x []float64, q float64) float64 {
	return quantileSorted(Sorted(x), q)
}

// Quantiles returns the quantiles of x for each q in qs, sorting x once.
func Quantiles(x []float64, qs ...float64) []float64 {
	s := Sorted(x)
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = quantileSorted(s, q)
	}
	return out
}

func quantileSorted(s []float64, q float64) float64 {
	if len(s) == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	h := q * float64(len(s)-1)
	i := int(h)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// Trimmed returns a sorted copy of x without the floor(frac*n) smallest and the
// floor(frac*n) largest values: Trimmed(x, 0.1) drops 10 % on each side.
// frac is clamped to [0, 0.5); at least one value is kept when x is not empty.
func Trimmed(x []float64, frac float64) []float64 {
	s := Sorted(x)
	if !(frac > 0) {
		return s
	}
	k := int(math.Floor(min(frac, 0.5) * float64(len(s))))
	if 2*k >= len(s) {
		k = (len(s) - 1) / 2
	}
	return s[k : len(s)-k]
}

// Summary is the usual description of one sample.
type Summary struct {
	N            int
	Min, Max     float64
	Mean, Median float64
	StdDev       float64 // unbiased; NaN when N < 2
	StdErr       float64 // of the mean; NaN when N < 2
	CI95         float64 // half-width of the 95 % confidence interval of the mean; NaN when N < 2
	Q1, Q3       float64 // quartiles
}

// Summarize describes x in one pass over a sorted copy. It returns ErrTooFew
// for an empty sample.
func Summarize(x []float64) (Summary, error) {
	if len(x) == 0 {
		return Summary{}, ErrTooFew
	}
	s := Sorted(x)
	sum := Summary{
		N:      len(s),
		Min:    s[0],
		Max:    s[len(s)-1],
		Mean:   Mean(s),
		Median: quantileSorted(s, 0.5),
		StdDev: StdDev(s),
		Q1:     quantileSorted(s, 0.25),
		Q3:     quantileSorted(s, 0.75),
	}
	sum.StdErr = sum.StdDev / math.Sqrt(float64(sum.N))
	sum.CI95 = math.NaN()
	if sum.N >= 2 {
		sum.CI95 = TCritical(0.95, float64(sum.N-1)) * sum.StdErr
	}
	return sum, nil
}
