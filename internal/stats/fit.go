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
// points with distinct x; the standard errors need three. Sums and residuals
// are taken relative to the first point and about the means, so data far from
// zero (raw tick counts, seconds since the epoch) keep their precision.
func FitLine(x, y []float64) (Line, error) {
	if len(x) != len(y) {
		return Line{}, fmt.Errorf("stats: FitLine: %d x values but %d y values", len(x), len(y))
	}
	n := len(x)
	if n < 2 {
		return Line{}, fmt.Errorf("%w: FitLine needs 2 points, got %d", ErrTooFew, n)
	}
	// Work relative to the first point: the data may sit far from zero
	// (raw tick counts, seconds since the epoch) where even their mean cannot
	// be represented as finely as their spread.
	x0, y0 := x[0], y[0]
	var mx, my float64
	for i := range x {
		mx += x[i] - x0
		my += y[i] - y0
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := (x[i]-x0)-mx, (y[i]-y0)-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return Line{}, fmt.Errorf("stats: FitLine: all %d x values are equal", n)
	}
	l := Line{N: n, Slope: sxy / sxx}
	l.Intercept = y0 + my - l.Slope*(x0+mx)
	var ssr float64
	for i := range x {
		r := ((y[i] - y0) - my) - l.Slope*((x[i]-x0)-mx)
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
		xm := x0 + mx
		l.InterceptErr = math.Sqrt(s2 * (1/float64(n) + xm*xm/sxx))
	}
	return l, nil
}
