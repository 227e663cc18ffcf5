package adaptive

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gompi/gompi/internal/stats"
)

// Samples of known law from a seeded generator, so that every run sees the
// same numbers.

func normal(r *rand.Rand, n int, mean, sd float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = mean + sd*r.NormFloat64()
	}
	return x
}

func uniform(r *rand.Rand, n int, lo, hi float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = lo + (hi-lo)*r.Float64()
	}
	return x
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

func TestJudgeKnownLaws(t *testing.T) {
	r := seeded(1)
	withOutliers := append(normal(r, 400, 100, 10), uniform(r, 100, 300, 400)...)
	cases := []struct {
		name string
		x    []float64
		want Criterion
	}{
		// Spread 10 % of the mean: only the chi-square test can accept.
		{"normal", normal(r, 500, 100, 10), Pearson},
		{"normal-small", normal(r, 40, 100, 10), Pearson},
		{"uniform", uniform(r, 500, 50, 150), None},
		{"bimodal", append(normal(r, 250, 100, 5), normal(r, 250, 200, 5)...), None},
		{"exponential", func() []float64 {
			x := make([]float64, 500)
			for i := range x {
				x[i] = 100 + 50*r.ExpFloat64()
			}
			return x
		}(), None},
		// Too few for the chi-square test, but tight.
		{"tight-small", normal(r, 10, 100, 1), Spread},
		{"tight-uniform", uniform(r, 500, 99, 101), Spread},
		{"outliers", withOutliers, Interval},
	}
	for _, c := range cases {
		v := DefaultJudge.Judge(c.x)
		if v.Accepted != c.want {
			t.Errorf("%s: accepted by %v (p %.3g, spread %.3g, interval [%.4g, %.4g] share %.2f), want %v",
				c.name, v.Accepted, v.PValue, v.RelSD, v.Lo, v.Hi, v.InShare, c.want)
		}
	}
}

func TestIntervalFindsTheNormalCore(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		r := seeded(seed)
		x := append(normal(r, 400, 100, 10), uniform(r, 100, 300, 400)...)
		v := DefaultJudge.Judge(x)
		if v.Accepted != Interval {
			t.Errorf("seed %d: accepted by %v, want interval", seed, v.Accepted)
			continue
		}
		// The interval holds at least 80 % and none of the outliers.
		if v.InShare < 0.8 || v.Hi >= 300 || v.Lo > 90 || math.Abs(v.InMean-100) > 3 {
			t.Errorf("seed %d: interval [%.4g, %.4g] share %.3f mean %.4g: want the normal core (≈ [70, 130], mean 100)",
				seed, v.Lo, v.Hi, v.InShare, v.InMean)
		}
	}
}

// Under a true normal law the test rejects about Alpha of the samples
// (somewhat more: the parameters are estimated, Chernoff and Lehmann).
func TestPearsonRejectionRate(t *testing.T) {
	const trials = 400
	rejected := 0
	for seed := range uint64(trials) {
		if PearsonNormal(sortedCopy(normal(seeded(seed), 200, 5, 2))) < DefaultJudge.Alpha {
			rejected++
		}
	}
	rate := float64(rejected) / trials
	if rate < 0.01 || rate > 0.12 {
		t.Errorf("normal samples rejected at rate %.3f, want near %.2f", rate, DefaultJudge.Alpha)
	}
	// And the uniform law, which the test must see, nearly always.
	rejected = 0
	for seed := range uint64(100) {
		if PearsonNormal(sortedCopy(uniform(seeded(seed), 500, 0, 1))) < DefaultJudge.Alpha {
			rejected++
		}
	}
	if rejected < 95 {
		t.Errorf("uniform samples of 500 rejected %d times of 100, want nearly always", rejected)
	}
}

func sortedCopy(x []float64) []float64 { return stats.Sorted(x) }

func TestPearsonSmallAndConstant(t *testing.T) {
	if p := PearsonNormal(make([]float64, MinPearson-1)); !math.IsNaN(p) {
		t.Errorf("p-value of %d values = %v, want NaN (too few)", MinPearson-1, p)
	}
	if p := PearsonNormal(make([]float64, 100)); p != 0 {
		t.Errorf("p-value of a constant sample = %v, want 0", p)
	}
	if v := DefaultJudge.Judge(nil); v.Accepted != None || v.N != 0 {
		t.Errorf("empty sample: %+v, want not accepted", v)
	}
	// A constant sample is perfectly tight.
	x := []float64{3, 3, 3, 3, 3}
	if v := DefaultJudge.Judge(x); v.Accepted != Spread {
		t.Errorf("constant sample accepted by %v, want spread", v.Accepted)
	}
}

func TestMeasureRounds(t *testing.T) {
	rounds := Rounds{Start: 10, MaxRounds: 6, Restarts: 1}
	// Normal with a 10 % spread: round 1 has 10 values, too few for the
	// chi-square test and too wide for criterion 2; round 2 has 20.
	r := seeded(7)
	res, err := Measure(DefaultJudge, rounds, func() (float64, error) { return 100 + 10*r.NormFloat64(), nil })
	if err != nil || res.Accepted != Pearson || res.Round != 2 || res.Attempt != 1 || res.Total != 30 || len(res.Samples) != 20 {
		t.Errorf("normal: %v, round %d attempt %d total %d, err %v; want pearson in round 2 after 30", res.Status(), res.Round, res.Attempt, res.Total, err)
	}
	if math.Abs(res.Value-res.Mean) != 0 || math.Abs(res.Value-100) > 10 {
		t.Errorf("value %v is not the accepted round's mean %v", res.Value, res.Mean)
	}

	// Two far modes are never accepted: six doubling rounds, twice.
	r = seeded(8)
	res, err = Measure(DefaultJudge, rounds, func() (float64, error) { return 10 + 10*float64(r.IntN(2)) + r.NormFloat64(), nil })
	if err != nil || res.OK() || res.Status() != "NOT accepted" || res.Round != 6 || res.Attempt != 2 || res.Total != 2*10*63 {
		t.Errorf("bimodal: %v, round %d attempt %d total %d; want not accepted after 2×6 rounds, 1260 values", res.Status(), res.Round, res.Attempt, res.Total)
	}

	// A budget spent in the first measurement stops the round there, and
	// the short round is not accepted, though its values are tight.
	budget := rounds
	budget.Budget = time.Nanosecond
	res, _ = Measure(DefaultJudge, budget, func() (float64, error) { time.Sleep(time.Microsecond); return 100, nil })
	if !res.OutOfBudget || res.Total != 1 || res.OK() || res.Status() != "NOT accepted (time budget)" || res.Value != 100 {
		t.Errorf("budget: %v after %d, value %v; want stopped after the first measurement", res.Status(), res.Total, res.Value)
	}
	// A source that gives whole rounds is stopped between rounds.
	res, _ = MeasureRounds(DefaultJudge, budget, func(n int, _ time.Time) ([]float64, error) {
		time.Sleep(time.Microsecond)
		return uniform(r, n, 0, 1), nil
	})
	if !res.OutOfBudget || res.Total != 10 || res.Round != 1 {
		t.Errorf("budget, whole rounds: %v after %d in round %d; want stopped after round 1", res.Status(), res.Total, res.Round)
	}
	if _, err := MeasureRounds(DefaultJudge, rounds, func(n int, _ time.Time) ([]float64, error) { return nil, nil }); !errors.Is(err, ErrSample) {
		t.Errorf("empty round: err %v, want ErrSample", err)
	}

	boom := errors.New("boom")
	if _, err := Measure(DefaultJudge, rounds, func() (float64, error) { return 0, boom }); !errors.Is(err, ErrSample) || !errors.Is(err, boom) {
		t.Errorf("failing sample: err %v, want ErrSample wrapping it", err)
	}
}

func TestCheck(t *testing.T) {
	if err := DefaultJudge.Check(); err != nil {
		t.Error(err)
	}
	if err := DefaultRounds.Check(); err != nil {
		t.Error(err)
	}
	for _, j := range []Judge{{Alpha: 0, Spread: 0.02, Share: 0.8}, {Alpha: 0.05, Spread: -1, Share: 0.8}, {Alpha: 0.05, Spread: 0.02, Share: 0.3}} {
		if j.Check() == nil {
			t.Errorf("%+v: no error", j)
		}
	}
	for _, r := range []Rounds{{Start: 1, MaxRounds: 6}, {Start: 10, MaxRounds: 0}, {Start: 10, MaxRounds: 6, Restarts: -1}, {Start: 10, MaxRounds: 6, Budget: -1}} {
		if r.Check() == nil {
			t.Errorf("%+v: no error", r)
		}
	}
}
