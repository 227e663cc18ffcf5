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

// The routine names the matcher knows.
var (
	blockingSends = set("Send", "Ssend", "Rsend", "Bsend")
	postedSends   = set("Isend", "Issend", "Irsend", "Ibsend")
	sendInits     = set("Send_init", "Ssend_init", "Rsend_init", "Bsend_init")
	recvInits     = set("Recv_init")
	completions   = set("Wait", "Test")
	matchedProbes = set("Mprobe", "Improbe", "Mrecv", "Imrecv")
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// p2pOp is one send or receive while matching.
type p2pOp struct {
	send       bool
	comm       uint32
	peer, tag  int32 // send: destination and tag; receive: from the status
	bytes      int64
	post, done EventRef
	complete   bool
}

type template struct {
	send      bool
	comm      uint32
	peer, tag int32
	bytes     int64
}

// Match finds the messages of a job. ranks must be indexed by world rank
// (ranks[i].Rank == i). Sends and receives are matched as MPI orders them:
// per communicator, source, destination and tag, in the order they were
// posted. A receive's source and tag are those of its status, so receives
// with AnySource or AnyTag (in any form, persistent ones included) match the
// message they actually got.
func Match(ranks []*RankTrace) ([]Message, MatchStats) {
	var st MatchStats
	type key struct {
		comm     uint32
		src, dst int32
		tag      int32
	}
	sends := map[key][]*p2pOp{}
	recvs := map[key][]*p2pOp{}
	for r, rt := range ranks {
		ops := rankOps(r, rt)
		for i := range ops {
			op := &ops[i]
			if !op.complete {
				st.Incomplete++
				continue
			}
			if op.send {
				st.Sends++
				k := key{op.comm, int32(r), op.peer, op.tag}
				sends[k] = append(sends[k], op)
			} else {
				st.Recvs++
				k := key{op.comm, op.peer, int32(r), op.tag}
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
// posted.
func rankOps(r int, rt *RankTrace) []p2pOp {
	order := make([]int32, len(rt.Events))
	for i := range order {
		order[i] = int32(i)
	}
	// Posting order is the order calls began; ties keep file order.
	sort.SliceStable(order, func(a, b int) bool { return rt.Events[order[a]].Start < rt.Events[order[b]].Start })
	var ops []p2pOp
	pending := map[uint64]int{}        // request → its operation in flight (index in ops)
	templates := map[uint64]template{} // persistent request → what Start runs
	for _, i32 := range order {
		i := int(i32)
		e := &rt.Events[i]
		if e.Flags&FlagError != 0 {
			continue
		}
		ref := EventRef{r, i}
		name := rt.routine(e.Routine)
		post := func(t template, done bool) int {
			op := p2pOp{send: t.send, comm: t.comm, peer: t.peer, tag: t.tag, bytes: t.bytes, post: ref}
			if done {
				op.done, op.complete = ref, true
			}
			ops = append(ops, op)
			return len(ops) - 1
		}
		recvStatus := func(k int) {
			op := &ops[k]
			op.peer, op.tag, op.bytes = e.StSource, e.StTag, e.StCount
		}
		switch {
		case blockingSends[name]:
			if e.Peer >= 0 {
				post(template{true, e.Comm, e.Peer, e.Tag, e.Bytes}, true)
			}
		case postedSends[name]:
			if e.Peer >= 0 && e.Req != 0 {
				pending[e.Req] = post(template{true, e.Comm, e.Peer, e.Tag, e.Bytes}, false)
			}
		case name == "Recv":
			if e.StSource >= 0 && e.Flags&FlagCancelled == 0 {
				recvStatus(post(template{comm: e.Comm}, true))
			}
		case name == "Irecv":
			if e.Peer != PeerNull && e.Req != 0 {
				pending[e.Req] = post(template{comm: e.Comm, bytes: e.Bytes}, false)
			}
		case name == "Mprobe" || name == "Improbe":
			// A matched probe takes the message out of matching: its
			// receive is posted here, in this order, and completed by the
			// Mrecv, or the Wait/Test of the Imrecv, named by the same id.
			if e.Flags&FlagCompleted != 0 && e.StSource >= 0 && e.Req != 0 {
				k := post(template{comm: e.Comm}, false)
				recvStatus(k)
				pending[e.Req] = k
			}
		case name == "Mrecv":
			if k, ok := pending[e.Req]; ok {
				delete(pending, e.Req)
				ops[k].done, ops[k].complete = ref, true
				recvStatus(k)
			}
		case name == "Sendrecv" || name == "Sendrecv_replace":
			// The receive is posted before the send.
			if e.StSource >= 0 {
				recvStatus(post(template{comm: e.Comm}, true))
			}
			if e.Peer >= 0 {
				post(template{true, e.Comm, e.Peer, e.Tag, e.Bytes}, true)
			}
		case sendInits[name] || recvInits[name]:
			if e.Req != 0 && e.Peer != PeerNull {
				templates[e.Req] = template{sendInits[name], e.Comm, e.Peer, e.Tag, e.Bytes}
			}
		case name == "Start":
			if t, ok := templates[e.Req]; ok {
				pending[e.Req] = post(t, false)
			}
		case completions[name]:
			k, ok := pending[e.Req]
			if !ok || (name == "Test" && e.Flags&FlagCompleted == 0) {
				continue
			}
			op := &ops[k]
			delete(pending, e.Req)
			if e.Flags&FlagCancelled != 0 {
				op.complete = false
				op.send = false
				op.peer = PeerNull
				continue
			}
			op.done, op.complete = ref, true
			if !op.send {
				recvStatus(k)
				if op.peer < 0 { // ProcNull: no message
					op.peer, op.complete = PeerNull, false
				}
			}
		}
	}
	// Cancelled receives are neither matched nor counted as incomplete.
	out := ops[:0]
	for _, op := range ops {
		if !(op.peer == PeerNull && !op.complete) {
			out = append(out, op)
		}
	}
	return out
}
