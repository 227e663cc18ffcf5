package stats

import "math"

// ChiSquareCDF returns P(X <= x) for the chi-square distribution with df
// degrees of freedom: the regularized lower incomplete gamma P(df/2, x/2).
// NaN for df <= 0 or a NaN x.
func ChiSquareCDF(x, df float64) float64 {
	if !(df > 0) || math.IsNaN(x) {
		return math.NaN()
	}
	if x <= 0 {
		return 0
	}
	if math.IsInf(x, 1) {
		return 1
	}
	return regLowerGamma(df/2, x/2)
}

// ChiSquareSF returns P(X > x), the p-value of a chi-square statistic x.
func ChiSquareSF(x, df float64) float64 { return 1 - ChiSquareCDF(x, df) }

// regLowerGamma is P(a, x) = γ(a, x)/Γ(a): the series where x < a+1, else one
// minus the continued fraction of Q(a, x) (modified Lentz), as in Numerical
// Recipes §6.2; both converge fast in their region.
func regLowerGamma(a, x float64) float64 {
	lg, _ := math.Lgamma(a)
	front := math.Exp(a*math.Log(x) - x - lg)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-15 {
				break
			}
		}
		return sum * front
	}
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return 1 - front*h
}

// NormalQuantile returns the p-quantile of the normal law with the given mean
// and standard deviation; ±Inf at p = 0 and 1, NaN outside [0, 1].
func NormalQuantile(p, mean, sd float64) float64 {
	if !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	return mean + sd*math.Sqrt2*math.Erfinv(2*p-1)
}
