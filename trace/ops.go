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
	postAt                 int  // events the tracker had seen when it was posted
	early                  bool // resolved when posted (opTracker.early)
	emitted                bool
	finished               bool   // its completing call has been seen
	matched                bool   // for the exporters: a matched message, with id
	id                     uint64 // (set when emitted)
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
// the operations in flight. Ordered, it hands each operation to emit once
// it is resolved (completed, dropped, or known never to complete), in
// posting order, so that the n-th operation of a (communicator, source,
// destination, tag) queue is known without holding the rank's events;
// unordered, as soon as it is resolved.
type opTracker struct {
	rank      int
	ordered   bool
	ops       []*p2pOp            // posted, not yet emitted, in posting order
	pending   map[uint64]*p2pOp   // request → its operation in flight
	templates map[uint64]template // persistent request → what Start runs
	events    int                 // events seen
	// early gives, by posting event, the resolution of the operations that
	// an earlier unordered pass saw in flight for long (or never complete):
	// they are resolved when posted, so that they do not hold back the
	// operations posted after them; late is called when such an operation,
	// already emitted, completes.
	early map[int]p2pOp
	late  func(op *p2pOp)
	emit  func(op *p2pOp)
	// Set by event for the exporters: the send the event posted, the
	// receive it completed (when hasPosted, hasCompleted).
	posted, completed       p2pOp
	hasPosted, hasCompleted bool
}

// longOpen is the number of events after which an operation still in
// flight counts as long-lived (opTracker.early).
const longOpen = 256

func newOpTracker(rank int, ordered bool, emit func(op *p2pOp)) *opTracker {
	return &opTracker{rank: rank, ordered: ordered, pending: map[uint64]*p2pOp{}, templates: map[uint64]template{}, emit: emit,
		late: func(*p2pOp) {}}
}

// event takes the next event in posting order: e with index i in its file,
// whose routine does kind.
func (k *opTracker) event(i int, e *Event, kind opKind) {
	k.hasPosted, k.hasCompleted = false, false
	k.events++
	if e.Flags&FlagError != 0 {
		return
	}
	ref := EventRef{k.rank, i}
	var posted, completed *p2pOp
	post := func(t template, done bool) *p2pOp {
		op := &p2pOp{send: t.send, comm: t.comm, peer: t.peer, tag: t.tag, bytes: t.bytes, post: ref, postT0: e.T0, postAt: k.events}
		if done {
			op.done, op.state, op.doneT0, op.doneT1, op.finished = ref, opComplete, e.T0, e.T1, true
		} else if r, ok := k.early[i]; ok {
			op.state, op.peer, op.tag, op.bytes, op.early = r.state, r.peer, r.tag, r.bytes, true
		}
		k.ops = append(k.ops, op)
		if op.send {
			posted = op
		}
		return op
	}
	// await records that request req's operation completes later (an
	// operation still awaited under the same id never will).
	await := func(req uint64, op *p2pOp) {
		if old, ok := k.pending[req]; ok && old.state == opOpen {
			old.state = opIncomplete
		}
		if op.state == opOpen || op.early && op.state == opComplete {
			k.pending[req] = op
		} else {
			delete(k.pending, req)
		}
	}
	recvStatus := func(op *p2pOp) { op.peer, op.tag, op.bytes = e.StSource, e.StTag, e.StCount }
	done := func(op *p2pOp) {
		op.done, op.state, op.doneT0, op.doneT1, op.finished = ref, opComplete, e.T0, e.T1, true
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
			completed = post(template{comm: e.Comm}, true)
			recvStatus(completed)
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
			op := post(template{comm: e.Comm}, false)
			recvStatus(op)
			await(e.Req, op)
		}
	case kind == kindMrecv:
		if op, ok := k.pending[e.Req]; ok {
			delete(k.pending, e.Req)
			done(op)
			recvStatus(op)
			completed = op
		}
	case kind == kindSendrecv:
		// The receive is posted before the send.
		if e.StSource >= 0 {
			completed = post(template{comm: e.Comm}, true)
			recvStatus(completed)
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
		op, ok := k.pending[e.Req]
		if !ok || (kind == kindTest && e.Flags&FlagCompleted == 0) {
			break
		}
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
				completed = op
			}
		}
		if op.early && op.emitted {
			k.late(op)
		}
	}
	if posted != nil {
		k.posted, k.hasPosted = *posted, true
	}
	if completed != nil {
		k.completed, k.hasCompleted = *completed, true
	}
	k.flush(false)
}

// flush emits the resolved operations (ordered: those at the head); at the
// end (all), every operation, those still open as incomplete.
func (k *opTracker) flush(all bool) {
	out := k.ops[:0]
	for n, op := range k.ops {
		if all && op.state == opOpen {
			op.state = opIncomplete
		}
		if op.state == opOpen {
			if k.ordered {
				out = append(out, k.ops[n:]...)
				break
			}
			out = append(out, op)
			continue
		}
		op.emitted = true
		k.emit(op)
	}
	clear(k.ops[len(out):])
	k.ops = out
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
