//go:build mpi || mpich

package mpi

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
)

// Receives learn the size of their message before the library writes it.
//
// Open MPI 4.1 writes a whole message into a receive buffer shorter than
// the message when the message comes by a rendezvous protocol (its
// shared-memory single copy from 4 KiB, RDMA-style transfers over TCP from
// 64 KiB), although it then returns MPI_ERR_TRUNCATE. In a Go program the
// bytes past the slice overwrite the Go heap. So no receive is ever posted
// to the library with the caller's buffer before its message is known:
//
//   - a blocking receive is a matched probe (MPI_Mprobe, which takes the
//     message out of matching, so no other thread gets it) and MPI_Mrecv
//     into the buffer when the message fits, into a bounce buffer of the
//     message's size otherwise (then its first bytes are copied);
//   - a nonblocking receive waits in the rank's queue of pending receives,
//     matched in posting order by MPI_Improbe, then started with MPI_Imrecv
//     the same way. The queue is polled by whoever waits or tests, by
//     Progress, and by a goroutine while it is not empty, so that a receive
//     nobody waits on still matches (a peer's synchronous send needs it).
//
// Messages that fit (the common case) are received straight into the
// caller's buffer; only a truncated one costs the bounce buffer.

// recvQueue holds the receives posted and not yet matched, in posting
// order.
type recvQueue struct {
	mu      sync.Mutex
	head    *Request // linked by qnext
	polling bool     // the poller goroutine runs
	closed  bool     // Finalize is under way: no more MPI calls
}

// close stops the matching before MPI_Finalize.
func (q *recvQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

// enqueue posts r (a receive with buf, peer, tag and on set) and tries to
// match it at once.
func (p *Proc) enqueue(r *Request) {
	q := &p.rq
	r.queued.Store(true)
	q.mu.Lock()
	if q.head == nil {
		q.head = r
	} else {
		last := q.head
		for last.qnext != nil {
			last = last.qnext
		}
		last.qnext = r
	}
	p.matchLocked()
	start := q.head != nil && !q.polling
	if start {
		q.polling = true
	}
	q.mu.Unlock()
	if start {
		go p.poll()
	}
}

// queueEmpty reports whether no receive waits for its message.
func (p *Proc) queueEmpty() bool {
	p.rq.mu.Lock()
	defer p.rq.mu.Unlock()
	return p.rq.head == nil
}

// match gives the queued receives the messages that have arrived for them,
// unless another thread is doing so right now.
func (p *Proc) match() {
	if p.rq.mu.TryLock() {
		p.matchLocked()
		p.rq.mu.Unlock()
	}
}

// matchLocked probes for each queued receive in posting order. A message
// found goes to the earliest queued receive that matches it, which need not
// be the one that probed: a message can arrive between an earlier
// receive's probe and a later one's, and MPI gives it to the earlier.
func (p *Proc) matchLocked() {
	if p.rq.closed {
		return
	}
	for r := p.rq.head; r != nil; {
		if r == p.rq.head {
			// The first queued receive gets whatever it matches: probe and
			// receive in one call.
			if p.matchHead(r) {
				r = p.rq.head
			} else {
				r = r.qnext
			}
			continue
		}
		res := C.gompi_improbe(C.int(r.peer), C.int(r.tag), r.on)
		switch {
		case res.err != 0:
			next := r.qnext
			p.unqueue(r)
			r.failRecv(r.comm.mpiErr("Recv", res.err, int(r.peer), int(r.tag)))
			r = next
		case res.flag != 0:
			first := p.firstMatching(r.on, int(res.source), int(res.tag))
			p.unqueue(first)
			first.startProbed(res)
			if first == r {
				r = r.qnext
			}
			// Otherwise r probes again: the message went to an earlier receive.
		default:
			r = r.qnext
		}
	}
}

// matchHead matches r, the first queued receive, and reports whether it
// was taken out of the queue (matched or failed). A message that fits is
// received into r's buffer by the call that probes it, and r completes at
// once if the library has the message whole (a small one, eager); a longer
// one goes through startProbed's bounce buffer. The caller holds the
// queue's lock.
func (p *Proc) matchHead(r *Request) bool {
	res := C.gompi_improbe_recv(C.int(r.peer), C.int(r.tag), r.on, ptr(r.buf), C.int(len(r.buf)))
	switch {
	case res.probe.err != 0:
		p.unqueue(r)
		r.failRecv(r.comm.mpiErr("Recv", res.probe.err, int(r.peer), int(r.tag)))
	case res.probe.flag == 0:
		return false
	case res.received == 0:
		p.unqueue(r)
		r.startProbed(res.probe)
	case res.st.flag != 0:
		p.unqueue(r)
		r.h, r.msgCount = res.req, int(res.probe.count)
		r.complete(res.st)
		r.queued.Store(false)
	case res.st.err != 0:
		p.unqueue(r)
		r.failRecv(r.comm.mpiErr("Recv", res.st.err, int(res.probe.source), int(res.probe.tag)))
	default:
		p.unqueue(r)
		r.h, r.msgCount = res.req, int(res.probe.count)
		r.queued.Store(false)
	}
	return true
}

// firstMatching returns the earliest queued receive on communicator h that
// a message from src with tag matches.
func (p *Proc) firstMatching(h C.gompi_h, src, tag int) *Request {
	for r := p.rq.head; r != nil; r = r.qnext {
		if r.on == h && (int(r.peer) == base.AnySource || int(r.peer) == src) && (int(r.tag) == base.AnyTag || int(r.tag) == tag) {
			return r
		}
	}
	panic("gompi/internal/mpi: a probed message matches no queued receive")
}

// unqueue takes r out of the queue; the caller holds the lock.
func (p *Proc) unqueue(r *Request) {
	if p.rq.head == r {
		p.rq.head = r.qnext
	} else {
		for x := p.rq.head; x != nil; x = x.qnext {
			if x.qnext == r {
				x.qnext = r.qnext
				break
			}
		}
	}
	r.qnext = nil
}

// withdraw takes r out of the queue if it is still there (Cancel).
func (p *Proc) withdraw(r *Request) bool {
	p.rq.mu.Lock()
	defer p.rq.mu.Unlock()
	if !r.queued.Load() {
		return false
	}
	p.unqueue(r)
	r.queued.Store(false)
	return true
}

// withdrawComm fails the receives still queued on c as it is freed: their
// handles would name a freed communicator, or a later one that reuses the
// handle.
func (p *Proc) withdrawComm(c *Comm) {
	q := &p.rq
	q.mu.Lock()
	defer q.mu.Unlock()
	for r := q.head; r != nil; {
		next := r.qnext
		if r.on == c.h || r.on == c.ch {
			p.unqueue(r)
			r.failRecv(&base.Error{Op: "Recv", Rank: c.rank, Peer: int(r.peer), Tag: int(r.tag), Err: base.ErrComm,
				Detail: "the communicator " + c.name + " was freed while the receive waited for its message",
				Hint:   "complete or cancel receives before freeing their communicator"})
		}
		r = next
	}
}

// poll matches queued receives while there are any. It is there for
// progress, not for speed (whoever waits or tests matches itself), so it
// sleeps between rounds, longer once nothing has arrived for a while: it
// must not take the CPU from the ranks' own work.
func (p *Proc) poll() {
	idle := 0
	for {
		q := &p.rq
		q.mu.Lock()
		before := q.head
		p.matchLocked()
		if q.head == nil || q.closed {
			q.polling = false
			q.mu.Unlock()
			return
		}
		moved := q.head != before
		q.mu.Unlock()
		if moved {
			idle = 0
		}
		idle++
		if idle < 200 {
			time.Sleep(20 * time.Microsecond)
		} else {
			time.Sleep(500 * time.Microsecond)
		}
	}
}

// startProbed starts the receive of the probed message res into r's buffer,
// or into a bounce buffer when the message is longer; the caller holds the
// queue's lock.
func (r *Request) startProbed(res C.gompi_mprobe_result) {
	count := int(res.count)
	r.msgCount = count
	into := ptr(r.buf)
	if count > len(r.buf) {
		r.bounce = (*C.char)(C.malloc(C.size_t(count)))
		into = r.bounce
	}
	msg := res.msg
	q := C.gompi_imrecv(into, C.int(count), &msg)
	if q.err != 0 {
		r.freeBounce()
		r.failRecv(r.comm.mpiErr("Recv", q.err, int(res.source), int(res.tag)))
		return
	}
	r.h = q.req
	r.queued.Store(false)
}

// failRecv completes a queued receive with err.
func (r *Request) failRecv(err error) {
	r.err = err
	r.st = base.EmptyStatus
	r.unpin()
	r.p.untrack(r)
	r.queued.Store(false)
	r.done.Store(1)
}

// freeBounce frees r's bounce buffer, if any.
func (r *Request) freeBounce() {
	if r.bounce != nil {
		C.free(unsafe.Pointer(r.bounce))
		r.bounce = nil
	}
}

// unbounce finishes a receive that went through a bounce buffer: the bytes
// that fit go to the caller's buffer and the receive is truncated.
func (r *Request) unbounce() {
	if r.bounce == nil {
		return
	}
	if r.err == nil {
		copy(r.buf, unsafe.Slice((*byte)(unsafe.Pointer(r.bounce)), len(r.buf)))
		r.err = r.comm.truncateErr(r.msgCount, len(r.buf), r.st.Source, r.st.Tag)
		r.st.Count = len(r.buf)
	}
	r.freeBounce()
}

// truncateErr is the error of a message of size bytes received into a
// buffer of n.
func (c *Comm) truncateErr(size, n, src, tag int) error {
	return &base.Error{Op: "Recv", Rank: c.rank, Peer: src, Tag: tag, Err: base.ErrTruncate,
		Detail: fmt.Sprintf("a message of %d bytes arrived for a buffer of %d", size, n),
		Hint:   base.HintTruncate, MessageBytes: size, BufferBytes: n}
}
