package expert

import (
	"sort"

	"github.com/gompi/gompi/expert/lang"
)

// Predicted gain (what-if). The trace is replayed as a dependency graph:
// each rank's calls keep their order and the computation between them; a
// call that waited for a partner (a receive for its send, a blocking send
// for its receive, a collective for the ranks it needs) ends when the
// partner's call has started, plus the part of the call that came after
// both were there. Removing a problem removes those waits at the calls where
// it was found (the dependency and the time it cost), and the replay shows
// what that does to the wall time: a wait removed on one rank may only move
// the wait to another, and the replay says so where summing waits cannot.

type replayEvent struct {
	call  *Call
	deps  []int   // indexes of the partner events whose start this one waits for
	tail  float64 // time after the last of start and the partners' starts
	gap   float64 // computation before this call since the previous one ended
	wait  float64 // problem wait removed here (what-if)
	free  bool    // the dependency is dropped (what-if)
	start float64 // replayed
	end   float64
	done  bool
	rank  int
	index int // within the rank
}

type replay struct {
	t      *Trace
	ranks  [][]int // per rank: event indexes in order
	events []replayEvent
	byCall map[*Call]int
	tails  []float64 // per rank: time from the last call to the rank's end
	heads  []float64 // per rank: time from the rank's begin to its first call
}

// newReplay builds the dependency graph of t. Calls that contain other
// calls of their rank (Waitall around the Waits it reports, the send half of
// a Sendrecv around its receive half) are left out: the call they contain
// stands for them and carries their dependencies.
func newReplay(t *Trace) *replay {
	rp := &replay{t: t, ranks: make([][]int, len(t.Calls)), byCall: map[*Call]int{},
		tails: make([]float64, len(t.Calls)), heads: make([]float64, len(t.Calls))}
	for r := range t.Calls {
		idx := make([]int, len(t.Calls[r]))
		for i := range idx {
			idx[i] = i
		}
		cs := t.Calls[r]
		sort.SliceStable(idx, func(a, b int) bool { return cs[idx[a]].Start < cs[idx[b]].Start })
		prevEnd := t.Begin[r]
		first := true
		var outer []*Call // containers waiting for the call that stands for them
		for k, i := range idx {
			c := &cs[i]
			if k+1 < len(idx) && cs[idx[k+1]].Start < c.End && cs[idx[k+1]].End <= c.End {
				outer = append(outer, c) // contains the next call
				continue
			}
			for _, o := range outer {
				rp.byCall[o] = len(rp.events)
			}
			outer = outer[:0]
			e := replayEvent{call: c, rank: r, index: len(rp.ranks[r])}
			if first {
				rp.heads[r] = c.Start - t.Begin[r]
				first = false
			} else {
				e.gap = max(0, c.Start-prevEnd)
			}
			prevEnd = max(prevEnd, c.End)
			rp.byCall[c] = len(rp.events)
			rp.ranks[r] = append(rp.ranks[r], len(rp.events))
			rp.events = append(rp.events, e)
		}
		rp.tails[r] = max(0, t.End[r]-prevEnd)
	}
	rp.dependencies()
	return rp
}

func (rp *replay) dependencies() {
	t := rp.t
	// Message partners: the calls that posted each message's send and
	// receive, and the Waits that completed nonblocking ones.
	type pair struct{ send, recv *Call }
	msgs := map[int64]*pair{}
	for r := range t.Calls {
		for i := range t.Calls[r] {
			c := &t.Calls[r][i]
			if c.Msg >= 0 {
				p := msgs[c.Msg]
				if p == nil {
					p = &pair{}
					msgs[c.Msg] = p
				}
				if c.Routine == "Recv" || c.Routine == "Irecv" || c.Side == "receive" {
					p.recv = c
				} else {
					p.send = c
				}
			}
		}
	}
	// nonblocking post -> the Wait that completed it; in call order, as a
	// persistent request is started and waited for again and again.
	completer := map[*Call]*Call{}
	for r := range t.Calls {
		current := map[int64]*Call{}
		for i := range t.Calls[r] {
			c := &t.Calls[r][i]
			switch {
			case c.Request == 0:
			case c.Routine == "Wait":
				if p := current[c.Request]; p != nil {
					completer[p] = c
				}
			case c.Routine != "Test":
				current[c.Request] = c
			}
		}
	}
	done := func(c *Call) *Call {
		if w := completer[c]; w != nil {
			return w
		}
		return c
	}
	addDep := func(waiter, partner *Call) {
		wi, ok1 := rp.byCall[waiter]
		pi, ok2 := rp.byCall[partner]
		if ok1 && ok2 {
			rp.events[wi].deps = append(rp.events[wi].deps, pi)
		}
	}
	for _, p := range msgs {
		if p.send == nil || p.recv == nil {
			continue
		}
		rd := done(p.recv)
		if p.send.Start > rd.Start { // the receive's completion waited for the send
			addDep(rd, p.send)
		}
		sd := done(p.send)
		if p.recv.Start > sd.Start && sd.End > p.recv.Start { // a send that waited for the receive
			addDep(sd, p.recv)
		}
	}
	// Collective instances: the k-th collective call on a communicator.
	type instKey struct {
		comm int64
		k    int
	}
	insts := map[instKey][]*Call{}
	for r := range t.Calls {
		count := map[int64]int{}
		for i := range t.Calls[r] {
			c := &t.Calls[r][i]
			if !lang.Collective(c.Routine) {
				continue
			}
			k := instKey{c.Comm, count[c.Comm]}
			count[c.Comm]++
			insts[k] = append(insts[k], c)
		}
	}
	for _, cs := range insts {
		for _, me := range cs {
			for _, other := range cs {
				if other == me || !needs(me, other) {
					continue
				}
				addDep(me, other)
			}
		}
	}
	for i := range rp.events {
		e := &rp.events[i]
		ready := e.call.Start
		for _, d := range e.deps {
			ready = max(ready, rp.events[d].call.Start)
		}
		e.tail = max(0, e.call.End-ready)
	}
}

// needs says whether collective call me waits for other's rank to arrive.
func needs(me, other *Call) bool {
	switch me.Routine {
	case "Bcast", "Scatter", "Scatterv":
		return me.Root != me.Rank && other.Rank == me.Root
	case "Gather", "Gatherv", "Reduce":
		return me.Root == me.Rank
	case "Scan", "Exscan":
		return other.Rank < me.Rank
	}
	return true
}

// run replays and gives the wall time.
func (rp *replay) run() float64 {
	for i := range rp.events {
		rp.events[i].done = false
		rp.events[i].start = -1
	}
	pc := make([]int, len(rp.ranks))
	prevEnd := make([]float64, len(rp.ranks))
	for r := range rp.ranks {
		prevEnd[r] = rp.t.Begin[r] + rp.heads[r]
		if len(rp.ranks[r]) > 0 {
			rp.events[rp.ranks[r][0]].start = prevEnd[r]
		}
	}
	for {
		progress, left := false, false
		for r := range rp.ranks {
			for pc[r] < len(rp.ranks[r]) {
				e := &rp.events[rp.ranks[r][pc[r]]]
				ready := e.start
				blocked := false
				if !e.free {
					for _, d := range e.deps {
						if rp.events[d].start < 0 {
							blocked = true
							break
						}
						ready = max(ready, rp.events[d].start)
					}
				}
				if blocked {
					break
				}
				if e.free {
					e.end = e.start + max(0, e.call.End-e.call.Start-e.wait)
				} else {
					e.end = ready + e.tail
				}
				e.done = true
				prevEnd[r] = e.end
				pc[r]++
				progress = true
				if pc[r] < len(rp.ranks[r]) {
					n := &rp.events[rp.ranks[r][pc[r]]]
					n.start = e.end + n.gap
				}
			}
			if pc[r] < len(rp.ranks[r]) {
				left = true
			}
		}
		if !left {
			break
		}
		if !progress {
			// A cycle the model cannot order (a matching the trace got
			// wrong): free the first blocked call of each rank.
			for r := range rp.ranks {
				if pc[r] < len(rp.ranks[r]) {
					rp.events[rp.ranks[r][pc[r]]].free = true
				}
			}
		}
	}
	lo, hi := 0.0, 0.0
	for r := range rp.ranks {
		end := prevEnd[r] + rp.tails[r]
		if r == 0 || rp.t.Begin[r] < lo {
			lo = rp.t.Begin[r]
		}
		hi = max(hi, end)
	}
	return hi - lo
}

// PredictGain replays t with the waits of findings removed and gives the
// replayed wall time without them and with them (the model's own baseline).
func PredictGain(t *Trace, findings []Finding) (baseline, without float64) {
	rp := newReplay(t)
	baseline = rp.run()
	for i := range rp.events {
		rp.events[i].free, rp.events[i].wait = false, 0
	}
	for _, f := range findings {
		if i, ok := rp.byCall[f.At]; ok {
			rp.events[i].free = true
			rp.events[i].wait += f.Duration
		}
	}
	without = rp.run()
	return baseline, without
}
