package launch

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"time"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/sync/clock"
)

// Scheduler launches functions on every rank of a communicator at moments of
// the global clock. It is collective: every rank makes one, with the same
// parameters, and calls its methods in the same order. A Scheduler belongs to
// one goroutine per rank.
type Scheduler struct {
	c      *gompi.Comm
	own    bool // c is our duplicate, freed by Close
	g      clock.Source
	p      Params
	wait   WaitMode
	tBcast float64
	op     gompi.Op[agg]
}

// New makes a scheduler over a duplicate of c that reads the global clock g
// (a *clock.Global from clock.Sync, or any clock all ranks agree on) and
// measures t_bcast, the upper bound of the time to broadcast the start time
// (spec, step 2): the largest delay, over BcastReps broadcasts and over ranks,
// between rank 0 reading its clock and a rank having the reading (for rank 0,
// being back from sending it).
func New(c *gompi.Comm, g clock.Source, p Params) (*Scheduler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	d, err := c.Dup()
	if err != nil {
		return nil, err
	}
	s := &Scheduler{c: d, own: true, g: g, p: p, wait: resolveWait(p.Wait), op: aggOp()}
	if err := s.measureBcast(); err != nil {
		d.Free()
		return nil, err
	}
	return s, nil
}

// With returns a scheduler that shares s's communicator, clock and t_bcast
// but uses other parameters (a reference clock for one test, another stop
// rule). Close only s.
func (s *Scheduler) With(p Params) (*Scheduler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	t := *s
	t.own, t.p, t.wait = false, p, resolveWait(p.Wait)
	return &t, nil
}

// Close frees the scheduler's communicator (collective).
func (s *Scheduler) Close() error {
	if !s.own {
		return nil
	}
	return s.c.Free()
}

// TBcast returns the bound on the broadcast of the start time, in seconds.
func (s *Scheduler) TBcast() float64 { return s.tBcast }

// Params returns the scheduler's parameters.
func (s *Scheduler) Params() Params { return s.p }

// WaitMode returns how this rank waits for a start moment (Auto resolved).
func (s *Scheduler) WaitMode() WaitMode { return s.wait }

func resolveWait(w WaitMode) WaitMode {
	if w != WaitAuto {
		return w
	}
	if os.Getenv(jobenv.Oversubscribed) == "1" {
		return WaitSleep
	}
	return WaitSpin
}

func (s *Scheduler) measureBcast() error {
	msg := make([]float64, 3) // the same message as a stage's start
	worst := 0.0
	const warmup = 2
	for r := 0; r < s.p.BcastReps+warmup; r++ {
		if err := s.c.Barrier(); err != nil {
			return err
		}
		if s.c.Rank() == 0 {
			msg[0] = s.g.Now()
		}
		if err := gompi.Bcast(s.c, msg, 0); err != nil {
			return err
		}
		if r >= warmup { // the root too: it must be back from the broadcast
			worst = math.Max(worst, s.g.Now()-msg[0])
		}
	}
	all := []float64{0}
	if err := gompi.Allreduce(s.c, []float64{worst}, all, gompi.Max[float64]()); err != nil {
		return err
	}
	s.tBcast = all[0]
	return nil
}

// waitUntil waits until the global clock reads at least at and returns that
// reading.
func (s *Scheduler) waitUntil(at float64) float64 {
	switch s.wait {
	case WaitSpin:
		for {
			if t := s.g.Now(); t >= at {
				return t
			}
		}
	case WaitYield:
		for {
			if t := s.g.Now(); t >= at {
				return t
			}
			runtime.Gosched()
		}
	}
	for {
		t := s.g.Now()
		if t >= at {
			return t
		}
		if rem := at - t; rem > 2e-3 {
			time.Sleep(time.Duration((rem - 1e-3) * 1e9))
		} else {
			osYield()
			runtime.Gosched()
		}
	}
}

// RankLaunch is one rank's record of one launch, on its global clock.
type RankLaunch struct {
	At, Until  float64 // the scheduled start and the moment it must be done by
	Start, End float64 // when this rank began (the reading that ended its wait) and returned
	Ref        float64 // the reference clock at Start; NaN without one
	Late       bool    // Start − At > LateSlack
	Overrun    bool    // End > Until
}

// Time is this rank's time of the launch: End − At.
func (r RankLaunch) Time() float64 { return r.End - r.At }

// Valid reports whether the rank started on time and finished in its window.
func (r RankLaunch) Valid() bool { return !r.Late && !r.Overrun }

// Launch is one launch over all ranks.
type Launch struct {
	Stage, Index int     // stage j and launch l within it
	At, Until    float64 // τ_jl and τ_j + (l+1)·Δ_j
	Time         float64 // the launch's time: the maximum over ranks of End − At
	End          float64 // the latest End
	Late         int     // ranks that started late
	Overrun      int     // ranks that finished after Until
	// Spread is the largest minus the smallest Start over ranks, on the
	// global clock; RefSpread the same on the reference clock (NaN without
	// one). A good synchronization makes the two agree.
	Spread, RefSpread float64
}

// Valid reports whether every rank started on time and finished in time.
func (l Launch) Valid() bool { return l.Late == 0 && l.Overrun == 0 }

// agg is what ranks combine about one launch: maxima, and counts.
type agg struct {
	Time, End, Start, NegStart, Ref, NegRef float64
	Late, Overrun                           float64
}

func aggOp() gompi.Op[agg] {
	return gompi.NewOp("launch", true, func(in, inout []agg) {
		for i := range in {
			a, b := &in[i], &inout[i]
			b.Time = math.Max(a.Time, b.Time)
			b.End = math.Max(a.End, b.End)
			b.Start = math.Max(a.Start, b.Start)
			b.NegStart = math.Max(a.NegStart, b.NegStart)
			b.Ref = math.Max(a.Ref, b.Ref)
			b.NegRef = math.Max(a.NegRef, b.NegRef)
			b.Late += a.Late
			b.Overrun += a.Overrun
		}
	})
}

// Batch is the outcome of Schedule.
type Batch struct {
	Own      []RankLaunch // this rank's records
	Launches []Launch     // over all ranks; Stage and Index are left 0
}

// Schedule runs fn on every rank once per entry of at: launch l starts at
// global time at[l] (each rank waits for it on its clock) and must be done
// by until[l]. It returns this rank's records and, on every rank, the
// launches over all ranks (the maximum time, how many ranks started late or
// overran, the start spread). at and until must be the same on every rank;
// an error of fn ends the schedule on that rank (and usually the job).
func (s *Scheduler) Schedule(fn func() error, at, until []float64) (Batch, error) {
	if len(at) != len(until) {
		return Batch{}, fmt.Errorf("launch: %d start times but %d deadlines", len(at), len(until))
	}
	k := len(at)
	own := make([]RankLaunch, k)
	ref := s.p.Reference
	for l := range k {
		start := s.waitUntil(at[l])
		r := math.NaN()
		if ref != nil {
			r = ref.Now()
		}
		if err := fn(); err != nil {
			return Batch{}, err
		}
		end := s.g.Now()
		own[l] = RankLaunch{At: at[l], Until: until[l], Start: start, End: end, Ref: r,
			Late: start-at[l] > s.p.LateSlack, Overrun: end > until[l]}
	}
	mine := make([]agg, k)
	for l, o := range own {
		m := &mine[l]
		m.Time, m.End, m.Start, m.NegStart = o.Time(), o.End, o.Start, -o.Start
		m.Ref, m.NegRef = o.Ref, -o.Ref
		if o.Late {
			m.Late = 1
		}
		if o.Overrun {
			m.Overrun = 1
		}
	}
	all := make([]agg, k)
	if err := gompi.Allreduce(s.c, mine, all, s.op); err != nil {
		return Batch{}, err
	}
	b := Batch{Own: own, Launches: make([]Launch, k)}
	for l, a := range all {
		b.Launches[l] = Launch{At: at[l], Until: until[l], Time: a.Time, End: a.End,
			Late: int(a.Late), Overrun: int(a.Overrun), Spread: a.Start + a.NegStart, RefSpread: a.Ref + a.NegRef}
	}
	return b, nil
}
