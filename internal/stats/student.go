package stats

import "math"

// TCritical returns the two-sided critical value t of Student's distribution
// with df degrees of freedom at confidence p: P(|T| <= t) = p. For example
// TCritical(0.95, 10) = 2.228; df = +Inf gives the normal value (1.960).
// df may be fractional (Welch); it returns NaN for df <= 0 or p outside (0, 1).
//
// The value is computed, not looked up: it inverts the regularized incomplete
// beta function, P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2), by bisection.
func TCritical(p, df float64) float64 {
	if !(p > 0 && p < 1) || !(df > 0) {
		return math.NaN()
	}
	if math.IsInf(df, 1) {
		return math.Sqrt2 * math.Erfinv(p)
	}
	// I_x(df/2, 1/2) grows with x from 0 to 1; x = df/(df+t²) falls as t
	// grows, so the x that gives tail probability 1-p is the root sought.
	tail := 1 - p
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if regIncBeta(df/2, 0.5, mid) < tail {
			lo = mid
		} else {
			hi = mid
		}
	}
	x := (lo + hi) / 2
	return math.Sqrt(df * (1 - x) / x)
}

// TCDF returns P(T <= t) for Student's distribution with df degrees of freedom.
func TCDF(t, df float64) float64 {
	if !(df > 0) || math.IsNaN(t) {
		return math.NaN()
	}
	if math.IsInf(df, 1) {
		return 0.5 * math.Erfc(-t/math.Sqrt2)
	}
	tail := 0.5 * regIncBeta(df/2, 0.5, df/(df+t*t))
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), evaluated
// with the continued fraction of Numerical Recipes (modified Lentz), using the
// symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	lbeta := lgamma(a+b) - lgamma(a) - lgamma(b)
	front := math.Exp(lbeta + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

func betaCF(a, b, x float64) float64 {
	const eps = 1e-15
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1/nonzero(1-qab*x/qap)
	h := d
	for m := 1; m <= 10000; m++ {
		fm := float64(m)
		m2 := 2 * fm
		// Even and odd steps of the continued fraction.
		c, d = lentz(fm*(b-fm)*x/((qam+m2)*(a+m2)), c, d)
		h *= d * c
		c, d = lentz(-(a+fm)*(qab+fm)*x/((a+m2)*(qap+m2)), c, d)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// lentz is one step of the modified Lentz method with coefficient aa.
func lentz(aa, c, d float64) (float64, float64) {
	return nonzero(1 + aa/c), 1 / nonzero(1+aa*d)
}

// nonzero keeps a Lentz denominator away from zero.
func nonzero(v float64) float64 {
	const tiny = 1e-300
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}
