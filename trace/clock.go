package trace

import (
	"math"
	"sort"
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
// repair moves receives that would complete before their matching send
// began (and everything after them on that rank) later, so that the
// timeline never shows a message arriving before it was sent. It sets
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
	// The repair keeps the times before its first change of a rank (most
	// ranks have none), to report what moved.
	orig := map[int][][2]float64{}
	repair(ranks, msgs, &rep, orig)
	for r, o := range orig {
		for i := range ranks[r].Events {
			e := &ranks[r].Events[i]
			if shift := math.Max(e.T0-o[i][0], e.T1-o[i][1]); shift > 0 {
				rep.Moved++
				rep.MaxShift = math.Max(rep.MaxShift, shift*1e-9)
				rep.TotalShift += shift * 1e-9
			}
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

// shiftAfter is one piece of a rank's repair: every time ≥ at moves later by by.
type shiftAfter struct{ at, by float64 }

// repair moves receives forward until none completes before its send began.
// Each pass collects, per rank, the violations (a receive completion ending
// at `at` that must end at `need`), and shifts every time of that rank from
// `at` on: the order of the rank's events and their durations are kept. A
// shift can make a later send start later and so create a new violation,
// hence passes until none is left (bounded: a causal cycle would never end).
//
// orig receives, for each rank the repair changes, its times before the
// first change.
func repair(ranks []*RankTrace, msgs []Message, rep *ClockReport, orig map[int][][2]float64) {
	ev := func(x EventRef) *Event { return &ranks[x.Rank].Events[x.Index] }
	for _, m := range msgs {
		if ev(m.RecvDone).T1 < ev(m.Send).T0 {
			rep.Violations++
		}
	}
	for pass := 0; pass < 64; pass++ {
		need := make(map[int][]shiftAfter)
		for _, m := range msgs {
			s, r := ev(m.Send), ev(m.RecvDone)
			if r.T1 < s.T0 {
				need[m.RecvDone.Rank] = append(need[m.RecvDone.Rank], shiftAfter{at: r.T1, by: s.T0})
			}
		}
		if len(need) == 0 {
			return
		}
		for rank, v := range need {
			// Turn "must end at by" into increments, in time order: an earlier
			// shift already moved later violations part of the way.
			sort.Slice(v, func(i, j int) bool { return v[i].at < v[j].at })
			var total float64
			pieces := v[:0]
			for _, x := range v {
				d := x.by - (x.at + total)
				if d > 0 {
					total += d
					pieces = append(pieces, shiftAfter{x.at, d})
				}
			}
			sum := make([]float64, len(pieces)+1) // sum[n]: the first n pieces
			for i, p := range pieces {
				sum[i+1] = sum[i] + p.by
			}
			move := func(t float64) float64 {
				return t + sum[sort.Search(len(pieces), func(i int) bool { return pieces[i].at > t })]
			}
			evs := ranks[rank].Events
			if _, ok := orig[rank]; !ok {
				o := make([][2]float64, len(evs))
				for i := range evs {
					o[i] = [2]float64{evs[i].T0, evs[i].T1}
				}
				orig[rank] = o
			}
			for i := range evs {
				evs[i].T0, evs[i].T1 = move(evs[i].T0), move(evs[i].T1)
			}
		}
	}
}
