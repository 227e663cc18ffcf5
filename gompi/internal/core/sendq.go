package core

import (
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/shm"
)

// Sends that wait for credits.
//
// A send to a peer in the segment needs eager credits: a record's room in
// the peer's fast box, or one of this rank's cells (64 by default, shared by
// all its peers), and, once the peer has a box, room for a record naming the
// cell. A receiver that does not call gompi holds them until it does. MPI
// says Isend, Ibsend, Bsend into an attached buffer and Start return at
// once whatever the receiver does, so a send that finds no credit does not
// wait for one: it joins its peer's send queue, in order, and returns. The
// queue is pushed as credits come back, by whichever thread progresses the
// rank (a waiter, Test, or the progress goroutine), and one sender's
// messages keep their order because a send to a peer with a queue always
// goes to the back of it.
//
// Memory. A queued send costs its Request (about 200 bytes) and nothing
// else: its payload stays in the caller's buffer, which MPI leaves to gompi
// until the request completes (for Bsend, in the attached buffer). So the
// engine's memory grows with the number of requests the program has made
// and not completed, which the program bounds; nothing is copied.

// sendResult is what trySend did, or what it lacked.
type sendResult uint8

const (
	sentNow  sendResult = iota
	needCell            // all of this rank's cells are out
	needBox             // the peer's fast box is full
)

// enqueueSend puts r at the back of its peer's send queue. Caller holds o.mu.
func (p *Proc) enqueueSend(o *peerOut, r *Request) {
	o.queue.push(r)
	p.mu.Lock()
	p.started(r)
	if p.queuedN++; p.queuedN == 1 {
		// Readers of this rank's boxes ring it when they make room.
		p.seg.SetBoxFull(p.local, true)
	}
	p.queued.Store(p.queuedN)
	p.mu.Unlock()
	o.hasQueue.Store(true)
}

// dequeued counts one send out of the queues. Caller holds o.mu.
func (p *Proc) dequeued() {
	p.mu.Lock()
	if p.queuedN--; p.queuedN == 0 {
		p.seg.SetBoxFull(p.local, false)
	}
	p.queued.Store(p.queuedN)
	p.mu.Unlock()
}

// pushQueued sends what the credits allow of every peer's queue, and fails
// the queued sends of peers that are gone. Caller holds neither p.mu nor
// any peer's lock.
func (p *Proc) pushQueued() {
	if p.queued.Load() == 0 {
		return
	}
	for w := range p.out {
		o := &p.out[w]
		if !o.hasQueue.Load() {
			continue
		}
		o.mu.Lock()
		p.pushPeer(o, int32(w))
		o.mu.Unlock()
	}
}

// pushPeer sends the head of o's queue while credits last. Caller holds o.mu.
func (p *Proc) pushPeer(o *peerOut, w int32) {
	li := int(p.locals[w])
	gone := p.peerGone(w)
	for o.queue.head != nil {
		r := o.queue.head
		o.queue.unlink(nil, r)
		if gone {
			p.dequeued()
			p.failSend(r, p.lostErr("Send", r))
			continue
		}
		// r is not touched once trySend has sent it: a completed blocking
		// request goes back to its pool at once.
		blocking := r.blocking
		res := p.trySend(o, r, li)
		if res != sentNow {
			o.queue.pushFront(r)
			o.lack.Store(uint32(res))
			return
		}
		p.dequeued()
		if blocking {
			p.ringSelf() // its caller may sleep in another thread than this one
		}
	}
	o.hasQueue.Store(false)
}

// queuedMayMove reports, for a thread about to sleep, whether a queued send
// could go now for want of room in a box that has since been made: the
// other credit, cells, comes home through the queue, which the sleeper
// watches anyway.
func (p *Proc) queuedMayMove() bool {
	if p.queued.Load() == 0 {
		return false
	}
	for w := range p.out {
		o := &p.out[w]
		if !o.hasQueue.Load() || sendResult(o.lack.Load()) != needBox {
			continue
		}
		if !o.mu.TryLock() {
			return true // someone is sending to that peer: look again soon
		}
		r := o.queue.head
		fits := r == nil || o.box == nil
		if !fits {
			inline := len(r.buf) <= shm.BoxInlineMax && r.mode != ModeSync
			fits = inline && o.box.Fits(len(r.buf)) || !inline && o.box.Fits(0)
		}
		o.mu.Unlock()
		if fits {
			return true
		}
	}
	return false
}

// sendDone completes a send that has left: at once if the engine never
// shared it, under the lock if it was counted as pending (queued, or
// registered).
func (p *Proc) sendDone(r *Request) {
	if !r.counted {
		p.completeOwned(r)
		return
	}
	p.mu.Lock()
	r.st = base.EmptyStatus
	p.complete(r)
	p.woke = false
	p.mu.Unlock()
	p.ringSelf() // a thread of this rank may sleep waiting for r
}

// failSend completes the send r with err.
func (p *Proc) failSend(r *Request, err error) {
	p.mu.Lock()
	if r.id != 0 {
		delete(p.inflight, r.id)
	}
	r.err = err
	p.complete(r)
	p.woke = false
	p.mu.Unlock()
	p.ringSelf()
}
