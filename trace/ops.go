package trace

// opState is how far a send or receive has got.
type opState uint8

const (
	opOpen       opState = iota // posted, not completed yet
	opComplete                  // completed: a message (matched or not)
	opIncomplete                // never completed in the trace
	opDropped                   // cancelled, or a receive from ProcNull: no message
)

// p2pOp is one send or receive of a rank while matching.
type p2pOp struct {
	send       bool
	comm       uint32
	peer, tag  int32 // send: destination and tag; receive: from the status
	bytes      int64
	post, done EventRef
	state      opState
	// Times on the job's axis (before the repair) of the posting call's
	// start and the completing call's start and end, for the streamed
	// exporters.
	postT0, doneT0, doneT1 float64
}

type template struct {
	send      bool
	comm      uint32
	peer, tag int32
	bytes     int64
}

// opKind is what a routine does for the matcher.
type opKind uint8

const (
	kindOther        opKind = iota
	kindBlockingSend        // Send, Ssend, Rsend, Bsend
	kindPostedSend          // Isend, Issend, Irsend, Ibsend
	kindSendInit            // Send_init…
	kindRecvInit            // Recv_init
	kindRecv
	kindIrecv
	kindMprobe // Mprobe, Improbe
	kindMrecv
	kindSendrecv // Sendrecv, Sendrecv_replace
	kindStart
	kindWait
	kindTest
)

var opKinds = map[string]opKind{
	"Send": kindBlockingSend, "Ssend": kindBlockingSend, "Rsend": kindBlockingSend, "Bsend": kindBlockingSend,
	"Isend": kindPostedSend, "Issend": kindPostedSend, "Irsend": kindPostedSend, "Ibsend": kindPostedSend,
	"Send_init": kindSendInit, "Ssend_init": kindSendInit, "Rsend_init": kindSendInit, "Bsend_init": kindSendInit,
	"Recv_init": kindRecvInit, "Recv": kindRecv, "Irecv": kindIrecv, "Mprobe": kindMprobe, "Improbe": kindMprobe,
	"Mrecv": kindMrecv, "Sendrecv": kindSendrecv, "Sendrecv_replace": kindSendrecv, "Start": kindStart,
	"Wait": kindWait, "Test": kindTest,
}

// opKinds returns what each routine code of rt does for the matcher.
func (rt *RankTrace) opKinds() []opKind {
	if len(rt.kinds) != 256 {
		rt.kinds = make([]opKind, 256)
		for code := range rt.kinds {
			rt.kinds[code] = opKinds[rt.routine(uint8(code))]
		}
	}
	return rt.kinds
}

// opTracker follows the sends and receives of one rank, fed its events in
// posting order (the order calls began, ties in file order). It holds only
// the operations in flight: each operation is handed to emit once it is
// resolved (completed, dropped, or known never to complete), in posting
// order, so that the n-th operation of a (communicator, source,
// destination, tag) queue is known without holding the rank's events.
type opTracker struct {
	rank      int
	ops       []p2pOp // posted, not yet emitted; ops[0] has sequence base
	base      int
	pending   map[uint64]int      // request → its operation in flight (sequence)
	templates map[uint64]template // persistent request → what Start runs
	// never lists the events whose posted operation never completes (found
	// by an earlier pass over the file): their operations are resolved at
	// once, so that they do not hold back the ones after them.
	never map[int]bool
	emit  func(op *p2pOp)
	// Set by event for the exporters: the send the event posted, the
	// receive it completed (when hasPosted, hasCompleted).
	posted, completed       p2pOp
	hasPosted, hasCompleted bool
	postedSeq, completedSeq int
}

func newOpTracker(rank int, emit func(op *p2pOp)) *opTracker {
	return &opTracker{rank: rank, pending: map[uint64]int{}, templates: map[uint64]template{}, emit: emit}
}

func (k *opTracker) op(seq int) *p2pOp { return &k.ops[seq-k.base] }

// event takes the next event in posting order: e with index i in its file,
// whose routine does kind.
func (k *opTracker) event(i int, e *Event, kind opKind) {
	k.hasPosted, k.hasCompleted = false, false
	k.postedSeq, k.completedSeq = -1, -1
	if e.Flags&FlagError != 0 {
		return
	}
	ref := EventRef{k.rank, i}
	post := func(t template, done bool) int {
		op := p2pOp{send: t.send, comm: t.comm, peer: t.peer, tag: t.tag, bytes: t.bytes, post: ref, postT0: e.T0}
		if done {
			op.done, op.state, op.doneT0, op.doneT1 = ref, opComplete, e.T0, e.T1
		} else if k.never[i] {
			op.state = opIncomplete
		}
		k.ops = append(k.ops, op)
		seq := k.base + len(k.ops) - 1
		if op.send {
			k.postedSeq = seq
		}
		return seq
	}
	// await records that request req's operation seq completes later (an
	// operation still awaited under the same id never will).
	await := func(req uint64, seq int) {
		if old, ok := k.pending[req]; ok {
			k.op(old).state = opIncomplete
		}
		if k.op(seq).state == opOpen {
			k.pending[req] = seq
		} else {
			delete(k.pending, req)
		}
	}
	recvStatus := func(op *p2pOp) { op.peer, op.tag, op.bytes = e.StSource, e.StTag, e.StCount }
	done := func(op *p2pOp) {
		op.done, op.state, op.doneT0, op.doneT1 = ref, opComplete, e.T0, e.T1
	}
	switch {
	case kind == kindBlockingSend:
		if e.Peer >= 0 {
			post(template{true, e.Comm, e.Peer, e.Tag, e.Bytes}, true)
		}
	case kind == kindPostedSend:
		if e.Peer >= 0 && e.Req != 0 {
			await(e.Req, post(template{true, e.Comm, e.Peer, e.Tag, e.Bytes}, false))
		}
	case kind == kindRecv:
		if e.StSource >= 0 && e.Flags&FlagCancelled == 0 {
			seq := post(template{comm: e.Comm}, true)
			recvStatus(k.op(seq))
			k.completedSeq = seq
		}
	case kind == kindIrecv:
		if e.Peer != PeerNull && e.Req != 0 {
			await(e.Req, post(template{comm: e.Comm, bytes: e.Bytes}, false))
		}
	case kind == kindMprobe:
		// A matched probe takes the message out of matching: its receive
		// is posted here, in this order, and completed by the Mrecv, or the
		// Wait/Test of the Imrecv, named by the same id.
		if e.Flags&FlagCompleted != 0 && e.StSource >= 0 && e.Req != 0 {
			seq := post(template{comm: e.Comm}, false)
			recvStatus(k.op(seq))
			await(e.Req, seq)
		}
	case kind == kindMrecv:
		if seq, ok := k.pending[e.Req]; ok {
			delete(k.pending, e.Req)
			op := k.op(seq)
			done(op)
			recvStatus(op)
			k.completedSeq = seq
		}
	case kind == kindSendrecv:
		// The receive is posted before the send.
		if e.StSource >= 0 {
			seq := post(template{comm: e.Comm}, true)
			recvStatus(k.op(seq))
			k.completedSeq = seq
		}
		if e.Peer >= 0 {
			post(template{true, e.Comm, e.Peer, e.Tag, e.Bytes}, true)
		}
	case kind == kindSendInit || kind == kindRecvInit:
		if e.Req != 0 && e.Peer != PeerNull {
			k.templates[e.Req] = template{kind == kindSendInit, e.Comm, e.Peer, e.Tag, e.Bytes}
		}
	case kind == kindStart:
		if t, ok := k.templates[e.Req]; ok {
			await(e.Req, post(t, false))
		}
	case kind == kindWait || kind == kindTest:
		seq, ok := k.pending[e.Req]
		if !ok || (kind == kindTest && e.Flags&FlagCompleted == 0) {
			break
		}
		op := k.op(seq)
		delete(k.pending, e.Req)
		if e.Flags&FlagCancelled != 0 {
			op.state = opDropped
			break
		}
		done(op)
		if !op.send {
			recvStatus(op)
			if op.peer < 0 { // ProcNull: no message
				op.state = opDropped
			} else {
				k.completedSeq = seq
			}
		}
	}
	if k.postedSeq >= 0 {
		k.posted, k.hasPosted = *k.op(k.postedSeq), true
	}
	if k.completedSeq >= 0 {
		k.completed, k.hasCompleted = *k.op(k.completedSeq), true
	}
	k.flush(false)
}

// flush emits the resolved operations at the head; at the end (all), every
// operation, those still open as incomplete.
func (k *opTracker) flush(all bool) {
	n := 0
	for n < len(k.ops) && (all || k.ops[n].state != opOpen) {
		if k.ops[n].state == opOpen {
			k.ops[n].state = opIncomplete
		}
		k.emit(&k.ops[n])
		n++
	}
	if n > 0 {
		k.ops = append(k.ops[:0], k.ops[n:]...)
		k.base += n
	}
}

// finish ends the rank: what is still open never completed.
func (k *opTracker) finish() {
	k.flush(true)
	clear(k.pending)
}

// msgKey is a message queue: MPI matches in order within it.
type msgKey struct {
	comm     uint32
	src, dst int32
	tag      int32
}

// key returns the queue of a completed operation of rank.
func (op *p2pOp) key(rank int) msgKey {
	if op.send {
		return msgKey{op.comm, int32(rank), op.peer, op.tag}
	}
	return msgKey{op.comm, op.peer, int32(rank), op.tag}
}
