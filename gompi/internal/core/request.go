package core

import (
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/core/match"
)

// The matching package's wildcards are the API's.
const (
	_ = uint(match.AnySource - base.AnySource) // compile error if they differ
	_ = uint(base.AnySource - match.AnySource)
	_ = uint(match.AnyTag - base.AnyTag)
	_ = uint(base.AnyTag - match.AnyTag)
)

// Operation kinds of a request.
const (
	opSend = iota + 1
	opRecv
)

// Send modes.
const (
	ModeStandard = iota
	ModeSync     // completes when the receive has matched
	ModeReady    // the receive is known to be posted (treated as standard)
)

// Request is one point-to-point operation in flight: a receive posted and
// waiting for its message, or a send waiting for its receiver. The engine
// fills it under the rank's lock; done is the only field read without it.
type Request struct {
	p    *Proc
	comm *Comm
	op   uint8
	mode uint8

	persistent bool // made by SendInit/RecvInit: Start may run it again
	active     bool // persistent: started and not yet completed by a Wait

	done atomic.Uint32 // 1 once complete; status and err are then final

	buf  []byte
	peer int32 // world rank: destination, or source (AnySource allowed)
	tag  int32 // AnyTag allowed for receives
	ctx  uint32

	// Three flags here fill what would be padding before id.
	streams  bool // pipelined send: on the proc's stream list
	counted  bool // counted in the proc's pending operations
	blocking bool // made by a blocking call: its caller waits at once

	id uint64 // key in the proc's in-flight table, 0 if not there

	st  base.Status
	err error

	rv   match.Recv[*Request] // the receive as matching sees it, while posted
	next *Request             // link in a peer's send queue
	got  int64                // pipelined receive: bytes arrived so far
	size int64                // pipelined receive: whole message size
	sent int64                // pipelined send: bytes pushed so far
	rreq uint64               // pipelined send: the receiver's request id

	// onDone, when set, runs under the lock as the request completes
	// (buffered sends free their buffer space here).
	onDone func()

	// bg, for a request made by Comm.Go, is closed once its goroutine has
	// completed it: Wait parks on it instead of spinning beside the
	// goroutine that makes the progress.
	bg chan struct{}

	nbc bool // a nonblocking collective on shared-memory steps (nbc.go)
}

// Done reports whether the request has completed.
func (r *Request) Done() bool { return r.done.Load() != 0 }

// Persistent reports whether the request was made by SendInit or RecvInit.
func (r *Request) Persistent() bool { return r.persistent }

// Active reports whether a persistent request has been started and not yet
// completed by Wait or Test.
func (r *Request) Active() bool { return r.active }

// message is a message that arrived before a receive matched it. Matching
// sees its key (context, source, tag) and size through the embedded Msg.
type message struct {
	match.Msg[*message]
	kind uint8
	sync bool
	data []byte   // eager: a copy of the payload
	cell int64    // a cell kept to carry the reply (sync ack, rendezvous), 0 if none
	sreq uint64   // sender's request id
	addr uint64   // rendezvous: sender's buffer address
	from *Request // a send to self waiting for its match (sync or large)
}

// newMessage returns an unexpected message with key (ctx, src, tag).
func newMessage(ctx uint32, src, tag int32, size int64, kind uint8) *message {
	m := &message{Msg: match.Msg[*message]{Key: match.Key{Ctx: ctx, Src: src, Tag: tag}, Size: size}, kind: kind}
	m.Owner = m
	return m
}

// reqQueue is a FIFO of requests: the sends queued for one peer.
type reqQueue struct{ head, tail *Request }

func (q *reqQueue) push(r *Request) {
	r.next = nil
	if q.tail == nil {
		q.head = r
	} else {
		q.tail.next = r
	}
	q.tail = r
}

// pushFront puts r back at the head.
func (q *reqQueue) pushFront(r *Request) {
	r.next = q.head
	q.head = r
	if q.tail == nil {
		q.tail = r
	}
}

func (q *reqQueue) unlink(prev, r *Request) {
	if prev == nil {
		q.head = r.next
	} else {
		prev.next = r.next
	}
	if q.tail == r {
		q.tail = prev
	}
	r.next = nil
}

// NewDone returns a request that is already complete with status st: what a
// nonblocking operation with ProcNull returns.
// A persistent one (SendInit/RecvInit with ProcNull) completes at every Start.
func NewDone(c *Comm, st base.Status, persistent bool) *Request {
	r := &Request{p: c.p, comm: c, st: st, peer: base.ProcNull, persistent: persistent}
	r.done.Store(1)
	return r
}

// Proc returns the engine r belongs to.
func (r *Request) Proc() *Proc { return r.p }

// Comm returns the communicator r belongs to.
func (r *Request) Comm() *Comm { return r.comm }
