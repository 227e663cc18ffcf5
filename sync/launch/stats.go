package launch

import (
	"math"

	"github.com/gompi/gompi/internal/stats"
)

// Stats is the statistical processing of a measurement (spec, step 4 and
// "Report"). Times are in seconds.
type Stats struct {
	NT int // launches in all (stage 0 not counted)
	NC int // valid launches
	NS int // launches kept after trimming
	// Mean is T, the mean of the NS kept launch times.
	Mean float64
	// SE = σ/√NC, σ the unbiased standard deviation of the kept times (the
	// sample T is computed from).
	SE float64
	// Min and Max are the smallest and largest valid launch times.
	Min, Max float64
	// E = t_p·SE, t_p Student's two-sided coefficient at Confidence with
	// NS−1 degrees of freedom; the interval is [Lo, Hi] = T ± E.
	E, Lo, Hi  float64
	Confidence float64
	RSE        float64 // SE/T
}

// Summarize computes Stats of the valid launch times: g = trim of them
// dropped at each end, T the mean of the rest, SE, E and the interval at
// confidence p. nt is the number of launches in all, valid or not. With no
// valid launch every statistic is NaN; with one, those of the spread are.
func Summarize(valid []float64, nt int, trim, p float64) Stats {
	s := Stats{NT: nt, NC: len(valid), Confidence: p}
	nan := math.NaN()
	s.Mean, s.SE, s.Min, s.Max, s.E, s.Lo, s.Hi, s.RSE = nan, nan, nan, nan, nan, nan, nan, nan
	if len(valid) == 0 {
		return s
	}
	kept := stats.Trimmed(valid, trim)
	s.NS = len(kept)
	s.Mean = stats.Mean(kept)
	s.Min, s.Max = stats.MinMax(valid)
	if s.NS >= 2 {
		s.SE = stats.StdDev(kept) / math.Sqrt(float64(s.NC))
		s.E = stats.TCritical(p, float64(s.NS-1)) * s.SE
		s.Lo, s.Hi = s.Mean-s.E, s.Mean+s.E
		if s.Mean != 0 {
			s.RSE = s.SE / math.Abs(s.Mean)
		}
	}
	return s
}
