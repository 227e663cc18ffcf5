package stats

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func near(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

var digits = []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}

func TestDescriptive(t *testing.T) {
	cases := []struct {
		name string
		f    func([]float64) float64
		x    []float64
		want float64
	}{
		{"mean", Mean, digits, 4},
		{"mean-empty", Mean, nil, math.NaN()},
		{"median-odd", Median, digits, 4},
		{"median-even", Median, []float64{4, 1, 3, 2}, 2.5},
		{"median-one", Median, []float64{7}, 7},
		{"median-empty", Median, nil, math.NaN()},
		{"variance", Variance, []float64{2, 4, 4, 4, 5, 5, 7, 9}, 32.0 / 7},
		{"variance-one", Variance, []float64{1}, math.NaN()},
		{"stddev", StdDev, digits, 2.3664319132398464},
		{"stderr", StdErr, digits, 2.3664319132398464 / math.Sqrt(11)},
		// A large offset must not cost precision (two-pass variance).
		{"variance-offset", Variance, []float64{1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16}, 30},
	}
	for _, c := range cases {
		if got := c.f(c.x); !near(got, c.want, 1e-12) {
			t.Errorf("%s(%v) = %v, want %v", c.name, c.x, got, c.want)
		}
	}
}

func TestQuantiles(t *testing.T) {
	// Expected values are R's quantile(type = 7) / numpy's default.
	cases := []struct{ q, want float64 }{
		{0, 1}, {0.1, 1}, {0.25, 2.5}, {0.5, 4}, {0.75, 5}, {0.9, 6}, {1, 9},
		{0.95, 7.5}, {-0.1, math.NaN()}, {1.1, math.NaN()},
	}
	qs := make([]float64, len(cases))
	for i, c := range cases {
		qs[i] = c.q
		if got := Quantile(digits, c.q); !near(got, c.want, 1e-12) {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	all := Quantiles(digits, qs...)
	for i, c := range cases {
		if !near(all[i], c.want, 1e-12) {
			t.Errorf("Quantiles[%v] = %v, want %v", c.q, all[i], c.want)
		}
	}
	if digits[0] != 3 || digits[10] != 5 {
		t.Fatal("Quantile modified its input")
	}
}

func TestMinMaxTrimmed(t *testing.T) {
	lo, hi := MinMax(digits)
	if lo != 1 || hi != 9 {
		t.Errorf("MinMax = %v, %v; want 1, 9", lo, hi)
	}
	x := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	cases := []struct {
		frac float64
		want []float64
	}{
		{0, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{0.1, []float64{2, 3, 4, 5, 6, 7, 8, 9}},
		{0.25, []float64{3, 4, 5, 6, 7, 8}}, // floor(2.5) = 2 each side
		{0.49, []float64{5, 6}},
		{0.5, []float64{5, 6}}, // never empty
	}
	for _, c := range cases {
		if got := Trimmed(x, c.frac); !slices.Equal(got, c.want) {
			t.Errorf("Trimmed(%v) = %v, want %v", c.frac, got, c.want)
		}
	}
	if got := Trimmed([]float64{3}, 0.4); !slices.Equal(got, []float64{3}) {
		t.Errorf("Trimmed of one value = %v", got)
	}
}

func TestSummarize(t *testing.T) {
	s, err := Summarize(digits)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{N: 11, Min: 1, Max: 9, Mean: 4, Median: 4, Q1: 2.5, Q3: 5,
		StdDev: 2.3664319132398464, StdErr: 2.3664319132398464 / math.Sqrt(11)}
	want.CI95 = 2.228138851986274 * want.StdErr
	if s.N != want.N || s.Min != want.Min || s.Max != want.Max || s.Q1 != want.Q1 || s.Q3 != want.Q3 ||
		!near(s.Mean, want.Mean, 1e-12) || !near(s.Median, want.Median, 1e-12) ||
		!near(s.StdDev, want.StdDev, 1e-12) || !near(s.StdErr, want.StdErr, 1e-12) ||
		!near(s.CI95, want.CI95, 1e-9) {
		t.Errorf("Summarize = %+v\nwant        %+v", s, want)
	}
	if _, err := Summarize(nil); !errors.Is(err, ErrTooFew) {
		t.Errorf("Summarize(nil) error = %v, want ErrTooFew", err)
	}
}

func TestTCritical(t *testing.T) {
	// Reference values: standard t tables (six significant digits), plus the
	// closed forms for df = 1 (tan(πp/2)) and df = 2 (p·sqrt(2/(1-p²))).
	closed1 := func(p float64) float64 { return math.Tan(math.Pi * p / 2) }
	closed2 := func(p float64) float64 { return p * math.Sqrt(2/(1-p*p)) }
	cases := []struct{ p, df, want, tol float64 }{
		{0.90, 1, closed1(0.90), 1e-9},
		{0.95, 1, closed1(0.95), 1e-9},
		{0.99, 1, closed1(0.99), 1e-9},
		{0.90, 2, closed2(0.90), 1e-9},
		{0.95, 2, closed2(0.95), 1e-9},
		{0.99, 2, closed2(0.99), 1e-9},
		{0.90, 3, 2.353363, 1e-6},
		{0.95, 3, 3.182446, 1e-6},
		{0.99, 3, 5.840909, 1e-6},
		{0.90, 5, 2.015048, 1e-6},
		{0.95, 5, 2.570582, 1e-6},
		{0.99, 5, 4.032143, 1e-6},
		{0.90, 10, 1.812461, 1e-6},
		{0.95, 10, 2.228139, 1e-6},
		{0.99, 10, 3.169273, 1e-6},
		{0.90, 30, 1.697261, 1e-6},
		{0.95, 30, 2.042272, 1e-6},
		{0.99, 30, 2.749996, 1e-6},
		{0.90, 100, 1.660234, 1e-6},
		{0.95, 100, 1.983972, 1e-6},
		{0.99, 100, 2.625891, 1e-6},
		{0.95, 1e7, 1.959964, 1e-6},
		{0.90, math.Inf(1), 1.644854, 1e-6},
		{0.95, math.Inf(1), 1.959964, 1e-6},
		{0.99, math.Inf(1), 2.575829, 1e-6},
		{0.95, 0, math.NaN(), 0},
		{1, 5, math.NaN(), 0},
		{0, 5, math.NaN(), 0},
	}
	for _, c := range cases {
		if got := TCritical(c.p, c.df); !near(got, c.want, c.tol) {
			t.Errorf("TCritical(%v, %v) = %.9g, want %.9g", c.p, c.df, got, c.want)
		}
	}
	// Round trip through the distribution function at fractional df.
	for _, df := range []float64{1.5, 2.5, 7.3, 44.4} {
		for _, p := range []float64{0.5, 0.9, 0.95, 0.99, 0.999} {
			tc := TCritical(p, df)
			if got := TCDF(tc, df) - TCDF(-tc, df); !near(got, p, 1e-9) {
				t.Errorf("P(|T| <= TCritical(%v, %v)) = %v", p, df, got)
			}
		}
	}
}

func TestFitLine(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{2.1, 3.9, 6.2, 7.8, 10.1, 12.2}
	l, err := FitLine(x, y)
	if err != nil {
		t.Fatal(err)
	}
	// Reference: the textbook formulas evaluated in double precision.
	checks := []struct {
		name      string
		got, want float64
	}{
		{"slope", l.Slope, 2.0199999999999996},
		{"intercept", l.Intercept, -0.019999999999998685},
		{"slope err", l.SlopeErr, 0.04276179870598793},
		{"intercept err", l.InterceptErr, 0.16653327995729073},
		{"r2", l.R2, 0.9982106661074999},
		{"slope ci", l.SlopeCI(0.95), 2.776445105 * 0.04276179870598793},
		{"at", l.At(10), 20.18},
	}
	for _, c := range checks {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %.12g, want %.12g", c.name, c.got, c.want)
		}
	}

	// An exact line has zero errors; a huge x offset (raw ticks) does not hurt.
	xs := []float64{1e12, 1e12 + 1e6, 1e12 + 2e6, 1e12 + 3e6}
	ys := make([]float64, len(xs))
	for i, v := range xs {
		ys[i] = 5 + 2.5*(v-1e12)
	}
	l, err = FitLine(xs, ys)
	if err != nil || !near(l.Slope, 2.5, 1e-12) || l.SlopeErr > 1e-9 || l.R2 != 1 {
		t.Errorf("exact line: %+v, %v", l, err)
	}

	// Noisy data near 1.7e9 (seconds since the epoch, where a float64 step
	// is 0.24 µs and the noise is smaller) must give the same errors as the
	// same values with the offset taken off exactly: the residuals must not
	// drown in the offset.
	yo, ys := make([]float64, len(y)), make([]float64, len(y))
	for i := range y {
		yo[i] = 1.7e9 + y[i]*1e-6
		ys[i] = yo[i] - 1.7e9 // exact
	}
	lo, err1 := FitLine(x, yo)
	ls, err2 := FitLine(x, ys)
	if err1 != nil || err2 != nil || !(ls.SlopeErr > 0) || !near(lo.SlopeErr, ls.SlopeErr, 1e-6) || !near(lo.R2, ls.R2, 1e-6) {
		t.Errorf("offset data: slope err %g, R2 %v; without the offset %g, %v", lo.SlopeErr, lo.R2, ls.SlopeErr, ls.R2)
	}

	if _, err := FitLine([]float64{1}, []float64{1}); !errors.Is(err, ErrTooFew) {
		t.Errorf("one point: err = %v, want ErrTooFew", err)
	}
	if _, err := FitLine([]float64{1, 1, 1}, []float64{1, 2, 3}); err == nil {
		t.Error("equal x: no error")
	}
	if _, err := FitLine([]float64{1, 2}, []float64{1}); err == nil {
		t.Error("length mismatch: no error")
	}
	l, err = FitLine([]float64{1, 2}, []float64{3, 5})
	if err != nil || l.Slope != 2 || !math.IsNaN(l.SlopeErr) {
		t.Errorf("two points: %+v, %v", l, err)
	}
}
