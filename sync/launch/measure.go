package launch

import (
	"math"
	"time"

	"github.com/gompi/gompi/gompi"
)

// Stage is one stage of a measurement.
type Stage struct {
	Index     int
	Tau       float64 // τ_j, global
	Delta     float64 // Δ_j (0 for stage 0)
	Launches  int
	Invalid   int
	End       float64 // t_j: the latest finish over ranks of the stage's last launch
	Discarded bool    // stage 0: initialisation, results not used
	Widened   bool    // more than g of its launches were invalid: Δ was corrected after it
}

// Why a measurement stopped.
const (
	StopMaxLaunches = "more than max launches"
	StopMaxValid    = "more than max valid launches"
	StopRSE         = "relative standard error reached"
	StopDeadline    = "deadline passed"
)

var stopReasons = []string{"", StopMaxLaunches, StopMaxValid, StopRSE, StopDeadline}

// Result is the outcome of Measure. Every rank has all of it; Own differs.
type Result struct {
	Launches []Launch     // every launch of stages 1, 2, …, in order
	Own      []RankLaunch // this rank's records of the same launches
	Stages   []Stage      // stage 0 included
	Stats    Stats
	Stop     string // why measuring stopped (one of the Stop… constants)
	TBcast   float64
	Elapsed  time.Duration // on this rank
	Params   Params        // the parameters it ran with
}

// ValidTimes returns the times of the valid launches, in order.
func (r *Result) ValidTimes() []float64 {
	var v []float64
	for _, l := range r.Launches {
		if l.Valid() {
			v = append(v, l.Time)
		}
	}
	return v
}

// Counts returns how many launches some rank started late and how many
// some rank overran (a launch can be both).
func (r *Result) Counts() (late, overrun int) {
	for _, l := range r.Launches {
		if l.Late > 0 {
			late++
		}
		if l.Overrun > 0 {
			overrun++
		}
	}
	return
}

// OwnStats summarizes this rank's own times over the launches valid on
// every rank, as Stats does for the maxima: the per-rank report.
func (r *Result) OwnStats() Stats {
	var v []float64
	for i, l := range r.Launches {
		if l.Valid() {
			v = append(v, r.Own[i].Time())
		}
	}
	return Summarize(v, len(r.Launches), r.Params.Trim, r.Params.Confidence)
}

// Measure times fn by the staged, scheduled launches of the spec (step 3):
//
//   - stage 0: rank 0 reads its clock T_0 and broadcasts τ_0 = T_0 +
//     t_bcast; k′ launches follow with Δ_0 = 0 (back to back, from τ_0);
//     their results are discarded, and Δ_1 = γ·(t_0 − τ_0)/k′, t_0 the
//     latest finish of the stage;
//   - stage j ≥ 1: τ_j = T_0 + t_bcast, broadcast; launch l starts at τ_j +
//     l·Δ_j and must end before τ_j + (l+1)·Δ_j; a launch that some rank
//     starts late or finishes late is invalid; the time of a launch is the
//     maximum over ranks; if more than g of the stage's launches are invalid,
//     Δ_{j+1} = γ·(t_j − τ_j)/k, else Δ_{j+1} = Δ_j;
//   - after each stage rank 0 checks the stop rule (and the deadline) and
//     sends its decision with the next start.
//
// The statistics (step 4) are those of Summarize. Measure is collective.
func (s *Scheduler) Measure(fn func() error) (*Result, error) {
	begin := time.Now()
	p := s.p
	res := &Result{TBcast: s.tBcast, Params: p}
	hdr := make([]float64, 3) // τ, Δ, stop reason
	start := func(delta float64, stop int) (tau float64, _ float64, _ int, err error) {
		if s.c.Rank() == 0 {
			hdr[0], hdr[1], hdr[2] = s.g.Now()+s.tBcast, delta, float64(stop)
		}
		if err := gompi.Bcast(s.c, hdr, 0); err != nil {
			return 0, 0, 0, err
		}
		return hdr[0], hdr[1], int(hdr[2]), nil
	}

	// Stage 0.
	tau, _, _, err := start(0, 0)
	if err != nil {
		return nil, err
	}
	at := make([]float64, p.InitLaunches)
	for l := range at {
		at[l] = tau
	}
	b, err := s.Schedule(fn, at, at)
	if err != nil {
		return nil, err
	}
	st0 := Stage{Index: 0, Tau: tau, Launches: p.InitLaunches, Invalid: invalid(b.Launches),
		End: b.Launches[len(b.Launches)-1].End, Discarded: true}
	res.Stages = append(res.Stages, st0)
	delta := math.Max(p.Gamma*(st0.End-tau)/float64(p.InitLaunches), 1e-9)

	var valid []float64
	for j := 1; ; j++ {
		stop := 0
		if s.c.Rank() == 0 && j > 1 {
			res.Stats = Summarize(valid, len(res.Launches), p.Trim, p.Confidence)
			stop = s.stopRule(res.Stats, begin)
		}
		var why int
		tau, delta, why, err = start(delta, stop)
		if err != nil {
			return nil, err
		}
		if why != 0 {
			res.Stop = stopReasons[why]
			break
		}
		k := p.StageLaunches
		at, until := make([]float64, k), make([]float64, k)
		for l := range k {
			at[l] = tau + float64(l)*delta
			until[l] = tau + float64(l+1)*delta
		}
		b, err := s.Schedule(fn, at, until)
		if err != nil {
			return nil, err
		}
		st := Stage{Index: j, Tau: tau, Delta: delta, Launches: k, Invalid: invalid(b.Launches), End: b.Launches[k-1].End}
		for l := range b.Launches {
			b.Launches[l].Stage, b.Launches[l].Index = j, l
			if b.Launches[l].Valid() {
				valid = append(valid, b.Launches[l].Time)
			}
		}
		res.Launches = append(res.Launches, b.Launches...)
		res.Own = append(res.Own, b.Own...)
		if float64(st.Invalid) > p.WidenShare*float64(k) {
			st.Widened = true
			delta = math.Max(p.Gamma*(st.End-tau)/float64(k), 1e-9)
		}
		res.Stages = append(res.Stages, st)
	}
	res.Stats = Summarize(valid, len(res.Launches), p.Trim, p.Confidence)
	res.Elapsed = time.Since(begin)
	return res, nil
}

func invalid(ls []Launch) int {
	n := 0
	for _, l := range ls {
		if !l.Valid() {
			n++
		}
	}
	return n
}

// stopRule is rank 0's decision after a stage: 0 to go on, else an index of
// stopReasons.
func (s *Scheduler) stopRule(st Stats, begin time.Time) int {
	p := s.p
	rule1, rule2 := p.Stop == Rule1 || p.Stop == Either, p.Stop == Rule2 || p.Stop == Either
	switch {
	case st.NT > p.MaxLaunches:
		return 1
	case rule1 && st.NC > p.MaxValid:
		return 2
	case rule2 && st.NC >= p.MinValid && st.RSE <= p.TargetRSE:
		return 3
	case p.Deadline > 0 && time.Since(begin) > p.Deadline:
		return 4
	}
	return 0
}
