package stats

import (
	"math"
	"testing"
)

func TestChiSquareCDF(t *testing.T) {
	// Critical values from any chi-square table: P(X <= x) = p.
	cases := []struct{ x, df, p float64 }{
		{3.841459, 1, 0.95},
		{5.991465, 2, 0.95},
		{18.307038, 10, 0.95},
		{2.705543, 1, 0.90},
		{0.1025866, 2, 0.05},
		{124.342113, 100, 0.95},
		{2, 2, 1 - math.Exp(-1)}, // df = 2 is the exponential law with mean 2
		{0, 3, 0},
		{math.Inf(1), 3, 1},
	}
	for _, c := range cases {
		if got := ChiSquareCDF(c.x, c.df); math.Abs(got-c.p) > 1e-6 {
			t.Errorf("ChiSquareCDF(%v, %v) = %v, want %v", c.x, c.df, got, c.p)
		}
		if got := ChiSquareSF(c.x, c.df); math.Abs(got-(1-c.p)) > 1e-6 {
			t.Errorf("ChiSquareSF(%v, %v) = %v, want %v", c.x, c.df, got, 1-c.p)
		}
	}
	for _, df := range []float64{0, -1, math.NaN()} {
		if got := ChiSquareCDF(1, df); !math.IsNaN(got) {
			t.Errorf("ChiSquareCDF(1, %v) = %v, want NaN", df, got)
		}
	}
}

func TestNormalQuantile(t *testing.T) {
	cases := []struct{ p, want float64 }{
		{0.5, 10}, {0.975, 10 + 2*1.959964}, {0.025, 10 - 2*1.959964},
		{0, math.Inf(-1)}, {1, math.Inf(1)}, {-0.1, math.NaN()},
	}
	for _, c := range cases {
		got := NormalQuantile(c.p, 10, 2)
		if !(got == c.want || math.Abs(got-c.want) < 1e-5 || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("NormalQuantile(%v, 10, 2) = %v, want %v", c.p, got, c.want)
		}
	}
}
