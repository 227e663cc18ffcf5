package trace

import (
	"math"
)

// RankClock is how one rank's local clock was mapped onto rank 0's:
//
//	global = local + Offset + Drift·(local − Ref)      (nanoseconds)
//
// fitted through the rank's clock samples (at Init and at Finalize). Err
// bounds the mapping's error between the samples (the larger of the two
// samples' bounds); with a single sample the drift is unknown and the error
// grows with the time since it, which NoDrift says.
type RankClock struct {
	Offset, Drift, Ref float64
	Err                float64 // nanoseconds
	NoDrift            bool
}

// Global maps a local reading (nanoseconds) to rank 0's clock.
func (c RankClock) Global(local int64) float64 {
	l := float64(local)
	return l + c.Offset + c.Drift*(l-c.Ref)
}

// ClockReport says how the ranks' clocks were put on one time axis, and what
// the logical repair changed.
type ClockReport struct {
	Ranks  []RankClock
	MaxErr float64 // the largest bound among the ranks, seconds
	// NoDrift counts ranks whose drift could not be estimated (one sample):
	// their error grows with the length of the run beyond MaxErr.
	NoDrift int
	// Violations: messages whose receive completed before the send began
	// on the corrected clocks, before the repair.
	Violations int
	// Moved is the number of events the repair moved; MaxShift and
	// TotalShift (seconds) how far, the largest and the sum.
	Moved                int
	MaxShift, TotalShift float64
	Origin               float64 // rank 0's clock (ns) at T = 0
}

// fitClock derives a rank's clock model from its samples.
func fitClock(rank int, samples []ClockSample) RankClock {
	if rank == 0 {
		return RankClock{}
	}
	switch len(samples) {
	case 0:
		return RankClock{NoDrift: true, Err: math.Inf(1)}
	case 1:
		s := samples[0]
		return RankClock{Offset: s.Offset, Ref: float64(s.Local), Err: s.Err, NoDrift: true}
	}
	a, b := samples[0], samples[len(samples)-1]
	for _, s := range samples {
		if s.Local < a.Local {
			a = s
		}
		if s.Local > b.Local {
			b = s
		}
	}
	c := RankClock{Offset: a.Offset, Ref: float64(a.Local), Err: math.Max(a.Err, b.Err)}
	if b.Local > a.Local {
		c.Drift = (b.Offset - a.Offset) / float64(b.Local-a.Local)
	} else {
		c.NoDrift = true
	}
	return c
}

// Align puts every event of ranks (indexed by world rank) on one time axis:
// each rank's clock is corrected with its linear model, then a logical-clock
// repair (repairClocks) moves receives that would complete before their
// matching send began (and everything after them on that rank) later, so
// that the timeline never shows a message arriving before it was sent. It sets
// Event.T0 and T1 (seconds since the earliest event) and reports what it did.
func Align(ranks []*RankTrace, msgs []Message) ClockReport {
	rep := ClockReport{Ranks: make([]RankClock, len(ranks))}
	origin := math.Inf(1)
	for r, rt := range ranks {
		c := fitClock(r, rt.Clock)
		rep.Ranks[r] = c
		if r > 0 && c.NoDrift {
			rep.NoDrift++
		}
		rep.MaxErr = math.Max(rep.MaxErr, c.Err*1e-9)
		for i := range rt.Events {
			e := &rt.Events[i]
			e.T0, e.T1 = c.Global(e.Start), c.Global(e.End)
			origin = math.Min(origin, e.T0)
		}
	}
	if math.IsInf(origin, 1) {
		origin = 0
	}
	rep.Origin = origin
	// Work in nanoseconds relative to the origin, then convert to seconds.
	for _, rt := range ranks {
		for i := range rt.Events {
			e := &rt.Events[i]
			e.T0 -= origin
			e.T1 -= origin
		}
	}
	moves, violations, _ := repairClocks(messagePoints(ranks, msgs)) // points in memory give no error
	rep.Violations = violations
	for r, rt := range ranks {
		if len(moves[r]) == 0 {
			continue
		}
		for i := range rt.Events {
			e := &rt.Events[i]
			t0, t1 := moves[r].move(e.T0), moves[r].move(e.T1)
			rep.account(e.T0, e.T1, t0, t1)
			e.T0, e.T1 = t0, t1
		}
	}
	for _, rt := range ranks {
		for i := range rt.Events {
			e := &rt.Events[i]
			e.T0 *= 1e-9
			e.T1 *= 1e-9
		}
	}
	return rep
}
