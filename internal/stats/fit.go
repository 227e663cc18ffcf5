package stats

import (
	"fmt"
	"math"
)

// Line is an ordinary least-squares fit y = Intercept + Slope·x with the
// standard errors of both coefficients, as used for the TSC calibration
// (ticks against nanoseconds) and for T(L) = s + L/R latency-bandwidth fits.
type Line struct {
	Slope, Intercept       float64
	SlopeErr, InterceptErr float64 // standard errors; NaN when N < 3
	ResidualStd            float64 // sqrt(SSR/(N-2)); NaN when N < 3
	R2                     float64 // coefficient of determination
	N                      int
}

// At returns the fitted y at x.
func (l Line) At(x float64) float64 { return l.Intercept + l.Slope*x }

// SlopeCI returns the half-width of the two-sided confidence interval of the
// slope at confidence p (0.95 for 95 %), using Student's t with N-2 degrees of
// freedom.
func (l Line) SlopeCI(p float64) float64 {
	return TCritical(p, float64(l.N-2)) * l.SlopeErr
}

// InterceptCI is SlopeCI for the intercept.
func (l Line) InterceptCI(p float64) float64 {
	return TCritical(p, float64(l.N-2)) * l.InterceptErr
}

// FitLine fits y = a + b·x by ordinary least squares. It needs at least two
// points with distinct x; the standard errors need three. The sums are taken
// about the means, so large offsets (raw tick counters) do not lose precision.
func FitLine(x, y []float64) (Line, error) {
	if len(x) != len(y) {
		return Line{}, fmt.Errorf("stats: FitLine: %d x values but %d y values", len(x), len(y))
	}
	n := len(x)
	if n < 2 {
		return Line{}, fmt.Errorf("%w: FitLine needs 2 points, got %d", ErrTooFew, n)
	}
	mx, my := Mean(x), Mean(y)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return Line{}, fmt.Errorf("stats: FitLine: all %d x values are equal", n)
	}
	l := Line{N: n, Slope: sxy / sxx}
	l.Intercept = my - l.Slope*mx
	var ssr float64
	for i := range x {
		r := y[i] - l.At(x[i])
		ssr += r * r
	}
	l.R2 = 1
	if syy > 0 {
		l.R2 = 1 - ssr/syy
	}
	l.ResidualStd, l.SlopeErr, l.InterceptErr = math.NaN(), math.NaN(), math.NaN()
	if n > 2 {
		s2 := ssr / float64(n-2)
		l.ResidualStd = math.Sqrt(s2)
		l.SlopeErr = math.Sqrt(s2 / sxx)
		l.InterceptErr = math.Sqrt(s2 * (1/float64(n) + mx*mx/sxx))
	}
	return l, nil
}
