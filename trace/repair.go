package trace

import (
	"container/heap"
	"math"
	"sort"
)

// The logical-clock repair, as one sweep over the messages' ends in time
// order that holds only messages in flight, so that the in-memory reader
// (Align) and the streamed exporters compute the same repair.
//
// Each rank's times move later by a step function of time: from a
// receive's completion on, the rank moves by the most any of its receives
// so far needed to end no earlier than its send began (the send's start
// itself moved by its own rank's steps), in whole nanoseconds rounded up.
// That is the least repair (to the nanosecond) that keeps every rank's
// order and durations and has no receive complete before its send began;
// it holds a step per nanosecond of shift a rank gains, not per event.

// point is one end of a message, for the repair.
type point struct {
	t    float64 // ns on the job's axis, before the repair: the send's posting call's start, or the receive's completing call's end
	recv bool
	id   uint64 // the message: both of its ends carry the same id
}

// pointSource yields one rank's points in time order (receives before sends
// at the same time).
type pointSource interface {
	nextPoint() (point, bool, error)
}

// shiftFrom says that from at on (ns, before the repair) a rank's times
// move later by by.
type shiftFrom struct{ at, by float64 }

// shifts is a rank's repair: at and by increasing.
type shifts []shiftFrom

// of returns how far time t moves.
func (s shifts) of(t float64) float64 {
	i := sort.Search(len(s), func(i int) bool { return s[i].at > t })
	if i == 0 {
		return 0
	}
	return s[i-1].by
}

func (s shifts) move(t float64) float64 { return t + s.of(t) }

// account adds an event's move (times before and after, ns) to rep.
func (rep *ClockReport) account(t0, t1, m0, m1 float64) {
	if shift := math.Max(m0-t0, m1-t1); shift > 0 {
		rep.Moved++
		rep.MaxShift = math.Max(rep.MaxShift, shift*1e-9)
		rep.TotalShift += shift * 1e-9
	}
}

type sweepRank struct {
	src   pointSource
	next  point
	moves shifts
}

func (s *sweepRank) now() float64 {
	if n := len(s.moves); n > 0 {
		return s.next.t + s.moves[n-1].by
	}
	return s.next.t
}

// sweepHeap orders the ranks not waiting by the moved time of their next point.
type sweepHeap struct {
	ranks []sweepRank
	idx   []int
}

func (h *sweepHeap) Len() int { return len(h.idx) }
func (h *sweepHeap) Less(i, j int) bool {
	a, b := h.ranks[h.idx[i]].now(), h.ranks[h.idx[j]].now()
	return a < b || a == b && h.idx[i] < h.idx[j]
}
func (h *sweepHeap) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *sweepHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *sweepHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// repairClocks runs the repair over every rank's points (srcs by world
// rank) and returns each rank's shifts and the number of messages whose
// receive completed before their send began, before the repair. A rank
// whose receive's send has not been reached waits for it; only a causal
// cycle (which no real run has) leaves every rank waiting, and then the
// earliest waiting receive is left as it is.
func repairClocks(srcs []pointSource) ([]shifts, int, error) {
	h := &sweepHeap{ranks: make([]sweepRank, len(srcs))}
	advance := func(r int) error {
		p, ok, err := srcs[r].nextPoint()
		if err != nil {
			return err
		}
		if ok {
			h.ranks[r].next = p
			heap.Push(h, r)
		}
		return nil
	}
	for r, src := range srcs {
		h.ranks[r].src = src
		if err := advance(r); err != nil {
			return nil, 0, err
		}
	}
	type sent struct{ orig, moved float64 }
	sends := map[uint64]sent{}
	waiting := map[uint64]int{}
	gaveUp := map[uint64]bool{}
	violations := 0
	receive := func(r int, s sent) {
		sr := &h.ranks[r]
		p := sr.next
		if p.t < s.orig {
			violations++
		}
		// Whole nanoseconds (the exports' resolution), rounded up: a run of
		// receives whose need creeps up by fractions of a nanosecond (clock
		// drift) takes a step per nanosecond, not one per receive.
		if need := math.Ceil(s.moved - p.t); need > sr.moves.of(p.t) {
			sr.moves = append(sr.moves, shiftFrom{p.t, need})
		}
	}
	for {
		if h.Len() == 0 {
			if len(waiting) == 0 {
				break
			}
			w, id := -1, uint64(0)
			for i, r := range waiting {
				if w < 0 || h.ranks[r].now() < h.ranks[w].now() || h.ranks[r].now() == h.ranks[w].now() && r < w {
					w, id = r, i
				}
			}
			delete(waiting, id)
			gaveUp[id] = true
			if err := advance(w); err != nil {
				return nil, 0, err
			}
			continue
		}
		r := heap.Pop(h).(int)
		sr := &h.ranks[r]
		p := sr.next
		if p.recv {
			s, ok := sends[p.id]
			if !ok {
				waiting[p.id] = r
				continue
			}
			delete(sends, p.id)
			receive(r, s)
		} else {
			s := sent{p.t, sr.moves.move(p.t)}
			if w, ok := waiting[p.id]; ok {
				delete(waiting, p.id)
				receive(w, s)
				if err := advance(w); err != nil {
					return nil, 0, err
				}
			} else if gaveUp[p.id] {
				delete(gaveUp, p.id)
			} else {
				sends[p.id] = s
			}
		}
		if err := advance(r); err != nil {
			return nil, 0, err
		}
	}
	out := make([]shifts, len(srcs))
	for r := range out {
		out[r] = h.ranks[r].moves
	}
	return out, violations, nil
}

// slicePoints is a pointSource over points in memory.
type slicePoints struct {
	ps []point
	i  int
}

func (s *slicePoints) nextPoint() (point, bool, error) {
	if s.i == len(s.ps) {
		return point{}, false, nil
	}
	s.i++
	return s.ps[s.i-1], true, nil
}

// sortPoints puts a rank's points in the order the repair takes them.
func sortPoints(ps []point) {
	sort.SliceStable(ps, func(i, j int) bool {
		return ps[i].t < ps[j].t || ps[i].t == ps[j].t && ps[i].recv && !ps[j].recv
	})
}

// messagePoints gives each rank the ends of the matched messages it holds
// (times in ns before the repair).
func messagePoints(ranks []*RankTrace, msgs []Message) []pointSource {
	ps := make([][]point, len(ranks))
	ev := func(x EventRef) *Event { return &ranks[x.Rank].Events[x.Index] }
	for k, m := range msgs {
		ps[m.Send.Rank] = append(ps[m.Send.Rank], point{t: ev(m.Send).T0, id: uint64(k)})
		ps[m.RecvDone.Rank] = append(ps[m.RecvDone.Rank], point{t: ev(m.RecvDone).T1, recv: true, id: uint64(k)})
	}
	srcs := make([]pointSource, len(ranks))
	for r := range srcs {
		sortPoints(ps[r])
		srcs[r] = &slicePoints{ps: ps[r]}
	}
	return srcs
}
