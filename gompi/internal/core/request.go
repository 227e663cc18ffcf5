package core

import (
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/base"
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
	id   uint64 // key in the proc's in-flight table, 0 if not there

	st  base.Status
	err error

	next     *Request // link in the posted queue, or in a peer's send queue
	got      int64    // pipelined receive: bytes arrived so far
	size     int64    // pipelined receive: whole message size
	sent     int64    // pipelined send: bytes pushed so far
	rreq     uint64   // pipelined send: the receiver's request id
	streams  bool     // pipelined send: on the proc's stream list
	counted  bool     // counted in the proc's pending operations
	blocking bool     // made by a blocking call: its caller waits at once

	// onDone, when set, runs under the lock as the request completes
	// (buffered sends free their buffer space here).
	onDone func()
}

// Done reports whether the request has completed.
func (r *Request) Done() bool { return r.done.Load() != 0 }

// Persistent reports whether the request was made by SendInit or RecvInit.
func (r *Request) Persistent() bool { return r.persistent }

// Active reports whether a persistent request has been started and not yet
// completed by Wait or Test.
func (r *Request) Active() bool { return r.active }

// message is a message that arrived before a receive matched it.
type message struct {
	next *message
	src  int32
	ctx  uint32
	tag  int32
	size int64
	kind uint8
	sync bool
	data []byte   // eager: a copy of the payload
	cell int64    // a cell kept to carry the reply (sync ack, rendezvous), 0 if none
	sreq uint64   // sender's request id
	addr uint64   // rendezvous: sender's buffer address
	from *Request // a send to self waiting for its match (sync or large)
}

// reqQueue is a FIFO of requests: the posted receives, or the sends queued
// for one peer (a request is never in both).
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

// take removes and returns the first receive that matches (ctx, src, tag).
func (q *reqQueue) take(ctx uint32, src, tag int32) *Request {
	var prev *Request
	for r := q.head; r != nil; prev, r = r, r.next {
		if r.ctx == ctx && (r.peer == src || r.peer == base.AnySource) && (r.tag == tag || r.tag == base.AnyTag) {
			q.unlink(prev, r)
			return r
		}
	}
	return nil
}

// remove unlinks r if it is queued and reports whether it was.
func (q *reqQueue) remove(r *Request) bool {
	var prev *Request
	for x := q.head; x != nil; prev, x = x, x.next {
		if x == r {
			q.unlink(prev, x)
			return true
		}
	}
	return false
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

// msgQueue is a FIFO of unexpected messages.
type msgQueue struct{ head, tail *message }

func (q *msgQueue) push(m *message) {
	m.next = nil
	if q.tail == nil {
		q.head = m
	} else {
		q.tail.next = m
	}
	q.tail = m
}

// find returns the first message that a receive for (ctx, src, tag) matches;
// with take it is also removed.
func (q *msgQueue) find(ctx uint32, src, tag int32, take bool) *message {
	var prev *message
	for m := q.head; m != nil; prev, m = m, m.next {
		if m.ctx == ctx && (src == base.AnySource || m.src == src) && (tag == base.AnyTag || m.tag == tag) {
			if take {
				if prev == nil {
					q.head = m.next
				} else {
					prev.next = m.next
				}
				if q.tail == m {
					q.tail = prev
				}
				m.next = nil
			}
			return m
		}
	}
	return nil
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
