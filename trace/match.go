package trace

import (
	"sort"
)

// EventRef names one event of a job: Ranks[Rank].Events[Index].
type EventRef struct{ Rank, Index int }

// Message is one point-to-point message, matched offline from the send that
// posted it to the receive that got it.
type Message struct {
	Comm     uint32
	Src, Dst int   // world ranks
	Tag      int   // the message's tag (the receive's status tag)
	Bytes    int64 // bytes received (the receive's status count)
	// Send is the call that posted the send (Send, Isend, Start of a
	// persistent send, Sendrecv…); SendDone the call that completed it (the
	// same event for blocking forms, else the Wait/Test).
	Send, SendDone EventRef
	// Recv is the call that posted the receive (Recv, Irecv, Start…, or
	// the Mprobe/Improbe that took the message out of matching), and
	// RecvDone the call that completed it (for a matched probe the Mrecv,
	// or the Wait/Test of the Imrecv's request).
	Recv, RecvDone EventRef
}

// MatchStats counts what Match saw.
type MatchStats struct {
	Sends, Recvs   int // operations found (ProcNull and cancelled ones left out)
	Matched        int
	UnmatchedSends int // sends no receive of the trace got (or their receive is missing)
	UnmatchedRecvs int
	Incomplete     int // operations posted and never completed in the trace
}

// Match finds the messages of a job. ranks must be indexed by world rank
// (ranks[i].Rank == i). Sends and receives are matched as MPI orders them:
// per communicator, source, destination and tag, in the order they were
// posted. A receive's source and tag are those of its status, so receives
// with AnySource or AnyTag (in any form, persistent ones included) match the
// message they actually got.
func Match(ranks []*RankTrace) ([]Message, MatchStats) {
	var st MatchStats
	sends := map[msgKey][]*p2pOp{}
	recvs := map[msgKey][]*p2pOp{}
	for r, rt := range ranks {
		ops := rankOps(r, rt)
		for i := range ops {
			op := &ops[i]
			if op.state != opComplete {
				st.Incomplete++
				continue
			}
			if op.send {
				st.Sends++
				k := op.key(r)
				sends[k] = append(sends[k], op)
			} else {
				st.Recvs++
				k := op.key(r)
				recvs[k] = append(recvs[k], op)
			}
		}
	}
	var msgs []Message
	for k, ss := range sends {
		rs := recvs[k]
		n := min(len(ss), len(rs))
		for i := 0; i < n; i++ {
			s, rc := ss[i], rs[i]
			msgs = append(msgs, Message{Comm: k.comm, Src: int(k.src), Dst: int(k.dst), Tag: int(k.tag), Bytes: rc.bytes,
				Send: s.post, SendDone: s.done, Recv: rc.post, RecvDone: rc.done})
		}
		st.UnmatchedSends += len(ss) - n
		st.UnmatchedRecvs += len(rs) - n
		st.Matched += n
	}
	for k, rs := range recvs {
		if _, ok := sends[k]; !ok {
			st.UnmatchedRecvs += len(rs)
		}
	}
	sort.Slice(msgs, func(i, j int) bool {
		a, b := msgs[i], msgs[j]
		if a.Src != b.Src {
			return a.Src < b.Src
		}
		return a.Send.Index < b.Send.Index || a.Send.Index == b.Send.Index && a.Dst < b.Dst
	})
	return msgs, st
}

// rankOps lists the sends and receives of one rank in the order they were
// posted (cancelled ones and receives from ProcNull left out).
func rankOps(r int, rt *RankTrace) []p2pOp {
	var ops []p2pOp
	k := newOpTracker(r, true, func(op *p2pOp) {
		if op.state != opDropped {
			ops = append(ops, *op)
		}
	})
	kinds := rt.opKinds()
	for _, i := range startOrder(rt.Events) {
		k.event(int(i), &rt.Events[i], kinds[rt.Events[i].Routine])
	}
	k.finish()
	return ops
}

// startOrder returns the indices of events in the order they began, ties in
// file order: the order in which their operations were posted.
func startOrder(evs []Event) []int32 {
	order := make([]int32, len(evs))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(a, b int) bool { return evs[order[a]].Start < evs[order[b]].Start })
	return order
}
