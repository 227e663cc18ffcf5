package core

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/core/match"
	"github.com/gompi/gompi/internal/shm"
)

// Cell kinds: what a cell carries through a queue.
//
//	eager  sender → receiver: a whole message of up to shm.MaxPayload bytes
//	rts    sender → receiver: "ready to send" Size bytes at Addr in my memory
//	ret    receiver → owner:  the cell comes home, nothing else
//	ack    receiver → owner:  a synchronous eager send has matched
//	fin    receiver → owner:  a rendezvous is over, the send buffer is free
//	cts    receiver → owner:  cannot read your memory: send fragments to RReq
//	frag   sender → receiver: PLen bytes of a pipelined rendezvous at offset Addr
//	box    sender → receiver: from now on, read my messages in the box at Addr
//
// Once a sender has given a receiver a fast box, every message to it is
// announced in the box: small ones inline, the others as a reference to a
// cell. Both channels are in order, and the box is announced through the
// queue, so the order of one sender's messages holds across the switch.
//
// Replies travel in the very cell they answer, so a reply never needs a cell
// of its own and can never fail for want of one.
const (
	kindEager = iota + 1
	kindRTS
	kindRet
	kindAck
	kindFin
	kindCTS
	kindFrag
	kindBoxSetup // sender → receiver: read my box at Addr from now on
)

const flagSync = 1 // eager: the sender waits for an ack

// isend starts the send r (buf, peer, tag, ctx and mode set). It never waits
// for the receiver: on return the request is complete, registered to be
// completed by a reply, or queued behind the peer's earlier sends until
// eager credits (a free cell, room in the fast box) come back (sendq.go).
func (p *Proc) isend(r *Request) error {
	if r.peer == int32(p.rank) {
		p.sendSelf(r)
		return nil
	}
	li := p.locals[r.peer]
	if li < 0 && p.net != nil {
		return p.netSend(r)
	}
	if li < 0 {
		return base.New("Send", base.ErrNotSupported, fmt.Sprintf("rank %d runs on another host", r.peer),
			"this build moves messages within one host only")
	}
	if p.peerGone(r.peer) {
		return p.lostErr("Send", r)
	}
	o := &p.out[r.peer]
	o.mu.Lock()
	if o.queue.head != nil || p.trySend(o, r, int(li)) != sentNow {
		p.enqueueSend(o, r)
	}
	o.mu.Unlock()
	return nil
}

// trySend sends r to the peer at segment index li if the eager credits
// allow it now: a record in the peer's fast box, or one of this rank's
// cells (and, once the peer has a box, room for a record naming the cell).
// It reports what it lacked, having sent nothing, when they do not. Caller
// holds o.mu, not p.mu.
func (p *Proc) trySend(o *peerOut, r *Request, li int) sendResult {
	n := len(r.buf)
	if o.box == nil && !o.noBox {
		if o.sent++; o.sent >= boxAfter {
			p.setupBox(o, r.peer, li)
		}
	}
	box := o.box
	if box != nil && n <= shm.BoxInlineRoomMax && r.mode != ModeSync {
		if box.Write(shm.BoxInline, r.tag, r.ctx, 0, r.buf) {
			p.seg.Ring(li)
			p.sendDone(r)
			return sentNow
		}
		if n <= shm.BoxInlineMax {
			return needBox
		}
		// Past BoxInlineMax a message takes a cell while the ring is short
		// of room (below, if the ring has room for the reference).
	}
	if box != nil && !box.Fits(0) {
		return needBox
	}
	cell, ok := p.takeCell()
	if !ok {
		return needCell
	}
	c := p.seg.CellAt(cell)
	c.Src = int32(p.rank)
	c.Ctx = r.ctx
	c.Tag = r.tag
	c.Size = int64(n)
	c.Flags = 0
	eagerDone := false
	if n <= shm.MaxPayload {
		c.Kind = kindEager
		c.PLen = uint32(n)
		copy(p.seg.Payload(cell, n), r.buf)
		if r.mode == ModeSync {
			c.Flags = flagSync
			c.SReq = p.register(r)
		} else {
			eagerDone = true
		}
	} else {
		c.Kind = kindRTS
		c.PLen = 0
		// The receiver reads the buffer straight out of this process. Go's
		// heap does not move, and r keeps the slice alive until the fin.
		c.Addr = uint64(uintptr(unsafe.Pointer(&r.buf[0])))
		c.SReq = p.register(r)
		if !p.cmaOff.Load() && int64(n) >= p.cmaMin {
			shm.NoteSource(r.buf[:n]) // huge pages under a buffer single-copied again and again
		}
	}
	if box != nil {
		box.Write(shm.BoxCellRef, r.tag, r.ctx, cell, nil) // Fits said yes
	} else {
		p.seg.Push(li, cell)
	}
	p.seg.Ring(li)
	if eagerDone {
		p.sendDone(r)
	}
	return sentNow
}

// register puts r in the in-flight table and returns its id.
func (p *Proc) register(r *Request) uint64 {
	p.mu.Lock()
	id := p.newID()
	r.id = id
	p.inflight[id] = r
	p.started(r)
	p.mu.Unlock()
	return id
}

// takeCell takes one of this rank's free cells, draining the queue first if
// none is free (cells come home through it); ok is false if all are out.
func (p *Proc) takeCell() (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == 0 {
		p.drainLocked()
	}
	if k := len(p.free); k > 0 {
		off := p.free[k-1]
		p.free = p.free[:k-1]
		return off, true
	}
	p.starved = true
	p.seg.SetStarved(p.local, true)
	return 0, false
}

// sendSelf delivers a message to this same rank: straight into a posted
// receive, or kept (copied) as unexpected. A synchronous send to self
// completes when a receive matches it.
func (p *Proc) sendSelf(r *Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rv := p.match.Arrive(match.Key{Ctx: r.ctx, Src: int32(p.rank), Tag: r.tag}); rv != nil {
		p.finishRecv(rv.Owner, int32(p.rank), r.tag, int64(len(r.buf)), r.buf)
		p.completeOwned(r)
		if p.woke {
			// The receive may be another thread's, asleep on the doorbell
			// (a window's service goroutine receiving from its own rank).
			p.woke = false
			p.ringSelf()
		}
		return
	}
	m := newMessage(r.ctx, int32(p.rank), r.tag, int64(len(r.buf)), kindEager)
	m.data = append([]byte(nil), r.buf...)
	if r.mode == ModeSync {
		m.from = r
		p.started(r)
	} else {
		p.completeOwned(r)
	}
	p.match.Keep(&m.Msg)
}

// irecv posts the receive r, matches it at once against an unexpected
// message, or fails it if its peer is known to be lost.
func (p *Proc) irecv(r *Request) {
	r.rv = match.Recv[*Request]{Key: match.Key{Ctx: r.ctx, Src: r.peer, Tag: r.tag}, Group: &r.comm.group, Owner: r}
	p.mu.Lock()
	m, res := p.match.Post(&r.rv)
	switch res {
	case match.Matched:
		p.deliverMsg(r, m.Owner)
		if r.done.Load() == 0 {
			// A rendezvous has started (fragments or a TCP stream to come):
			// it needs progress like any posted receive.
			p.started(r)
		}
	case match.Lost:
		r.err = p.lostErr("Recv", r)
		p.complete(r)
	default:
		p.started(r)
	}
	p.mu.Unlock()
}

// drainLocked handles what has arrived in this rank's queue. Caller holds mu.
func (p *Proc) drainLocked() {
	p.drainQueue()
	p.drainBoxes()
	if p.hasStreams.Load() {
		p.pushStreams()
	}
	if p.net != nil {
		p.net.pollLocked()
	}
	if p.woke {
		p.woke = false
		p.ringSelf()
	}
}

// drainQueue handles what waits in this rank's queue (a bounded batch).
// Caller holds mu.
func (p *Proc) drainQueue() {
	for i := 0; i < 256; i++ {
		off := p.seg.Pop(p.local)
		if off == 0 {
			return
		}
		p.handle(off)
	}
}

// handle processes one cell popped from this rank's queue. Caller holds mu.
func (p *Proc) handle(off int64) {
	c := p.seg.CellAt(off)
	switch c.Kind {
	case kindEager, kindRTS:
		if rv := p.match.Arrive(match.Key{Ctx: c.Ctx, Src: c.Src, Tag: c.Tag}); rv != nil {
			p.deliverCell(rv.Owner, off, c)
		} else {
			p.stash(off, c)
		}
	case kindRet:
		p.free = append(p.free, off)
		p.unstarve()
	case kindAck, kindFin:
		r := p.inflight[c.SReq]
		delete(p.inflight, c.SReq)
		p.free = append(p.free, off)
		p.unstarve()
		if r != nil {
			r.st = base.EmptyStatus
			p.complete(r)
		}
	case kindCTS:
		r := p.inflight[c.SReq]
		p.free = append(p.free, off)
		p.unstarve()
		if r != nil {
			r.rreq = c.RReq
			r.streams = true
			p.streams = append(p.streams, r)
			p.hasStreams.Store(true)
		}
	case kindFrag:
		r := p.inflight[c.RReq]
		n := int64(c.PLen)
		if r != nil {
			if at := int64(c.Addr); at < int64(len(r.buf)) {
				copy(r.buf[at:], p.seg.Payload(off, int(n)))
			}
			r.got += n
			if r.got >= r.size {
				delete(p.inflight, r.id)
				p.complete(r)
			}
		}
		p.sendHome(off)
	case kindBoxSetup:
		p.addInbox(c.Src, int64(c.Addr))
		p.sendHome(off)
	default:
		// A corrupted cell: nothing sane can be done with it but drop it.
		p.sendHome(off)
	}
}

func (p *Proc) unstarve() {
	if p.starved {
		p.starved = false
		p.seg.SetStarved(p.local, false)
	}
}

// sendHome returns a cell to its owner.
func (p *Proc) sendHome(off int64) {
	owner := p.seg.CellOwner(off)
	if owner == p.local {
		p.free = append(p.free, off)
		return
	}
	p.seg.CellAt(off).Kind = kindRet
	p.seg.Push(owner, off)
	p.seg.RingIfStarved(owner)
}

// reply turns a received cell into a reply of the given kind and sends it to
// the cell's owner, waking the owner if it sleeps.
func (p *Proc) reply(off int64, kind uint8) {
	owner := p.seg.CellOwner(off)
	p.seg.CellAt(off).Kind = kind
	p.seg.Push(owner, off)
	p.seg.Ring(owner)
}

// stash keeps a message no receive has matched yet.
func (p *Proc) stash(off int64, c *shm.Cell) {
	m := newMessage(c.Ctx, c.Src, c.Tag, c.Size, c.Kind)
	m.sreq = c.SReq
	if c.Kind == kindEager {
		m.data = append([]byte(nil), p.seg.Payload(off, int(c.PLen))...)
		if c.Flags&flagSync != 0 {
			m.sync = true
			m.cell = off
		} else {
			p.sendHome(off)
		}
	} else {
		m.addr = c.Addr
		m.cell = off
	}
	p.match.Keep(&m.Msg)
}

// deliverCell completes the receive r with the message in the cell at off.
func (p *Proc) deliverCell(r *Request, off int64, c *shm.Cell) {
	if c.Kind == kindEager {
		p.finishRecv(r, c.Src, c.Tag, c.Size, p.seg.Payload(off, int(c.PLen)))
		if c.Flags&flagSync != 0 {
			p.reply(off, kindAck)
		} else {
			p.sendHome(off)
		}
		return
	}
	p.rendezvous(r, off, c.Src, c.Tag, c.Size, c.Addr)
}

// deliverMsg completes the receive r with the unexpected message m.
func (p *Proc) deliverMsg(r *Request, m *message) {
	if m.kind >= kindNetEager {
		p.netDeliverMsg(r, m)
		return
	}
	if m.kind == kindEager {
		p.finishRecv(r, m.Src, m.Tag, m.Size, m.data)
		if m.sync {
			p.reply(m.cell, kindAck)
		}
		if m.from != nil {
			m.from.st = base.EmptyStatus
			p.complete(m.from)
		}
		return
	}
	p.rendezvous(r, m.cell, m.Src, m.Tag, m.Size, m.addr)
}

// finishRecv copies an eager payload into r and completes it.
func (p *Proc) finishRecv(r *Request, src, tag int32, size int64, data []byte) {
	n := copy(r.buf, data)
	p.setStatus(r, src, tag, size, n)
	p.complete(r)
}

func (p *Proc) setStatus(r *Request, src, tag int32, size int64, n int) {
	r.st = base.Status{Source: r.comm.commRank(src), Tag: int(tag), Count: n}
	if _, truncated := match.Fit(len(r.buf), size); truncated {
		r.err = &base.Error{Op: "Recv", Rank: r.comm.rank, Peer: r.st.Source, Tag: int(tag), Err: base.ErrTruncate,
			Detail: fmt.Sprintf("a message of %d bytes arrived for a buffer of %d", size, len(r.buf)),
			Hint:   base.HintTruncate, MessageBytes: int(size), BufferBytes: len(r.buf)}
	}
}

// rendezvous receives a large message: a single copy out of the sender's
// memory, or, below the attach threshold or where the kernel refuses the
// attach, a request for fragments. The attach costs a system call and page
// pinning per message, which fragments through the segment beat up to
// tens of KiB (DefaultCMAMin).
func (p *Proc) rendezvous(r *Request, cell int64, src, tag int32, size int64, addr uint64) {
	n := min(size, int64(len(r.buf)))
	if !p.cmaOff.Load() && size >= p.cmaMin {
		err := shm.ReadRemote(p.seg.PID(int(p.locals[src])), r.buf[:n], addr)
		if err == nil || !errors.Is(err, shm.ErrCMARefused) {
			p.setStatus(r, src, tag, size, int(n))
			if err != nil && r.err == nil {
				class := base.ErrInternal
				if errors.Is(err, shm.ErrPeerGone) {
					class = base.ErrPeerLost
				}
				r.err = &base.Error{Op: "Recv", Rank: r.comm.rank, Peer: r.st.Source, Tag: int(tag), Err: class,
					Detail: err.Error()}
			}
			p.reply(cell, kindFin)
			p.complete(r)
			return
		}
		p.cmaOff.Store(true)
	}
	p.setStatus(r, src, tag, size, int(n))
	r.size = size
	r.got = 0
	r.id = p.newID()
	p.inflight[r.id] = r
	p.seg.CellAt(cell).RReq = r.id
	p.reply(cell, kindCTS)
}

// pushStreams sends the fragments of pipelined rendezvous sends for as long
// as cells are free. Caller holds mu.
func (p *Proc) pushStreams() {
	keep := p.streams[:0]
	for _, r := range p.streams {
		li := int(p.locals[r.peer])
		for r.sent < int64(len(r.buf)) && len(p.free) > 0 {
			off := p.free[len(p.free)-1]
			p.free = p.free[:len(p.free)-1]
			n := min(int64(len(r.buf))-r.sent, shm.MaxPayload)
			c := p.seg.CellAt(off)
			c.Kind = kindFrag
			c.Src = int32(p.rank)
			c.RReq = r.rreq
			c.Addr = uint64(r.sent)
			c.PLen = uint32(n)
			p.frags.copy(p.seg.Payload(off, int(n)), r.buf[r.sent:r.sent+n])
			p.seg.Push(li, off)
			p.seg.Ring(li)
			r.sent += n
		}
		if r.sent == int64(len(r.buf)) {
			delete(p.inflight, r.id)
			r.streams = false
			r.st = base.EmptyStatus
			p.complete(r)
			continue
		}
		keep = append(keep, r)
	}
	clear(p.streams[len(keep):])
	p.streams = keep
	p.hasStreams.Store(len(keep) > 0)
	if len(keep) > 0 && len(p.free) == 0 && !p.starved {
		p.starved = true
		p.seg.SetStarved(p.local, true)
	}
}

// completeOwned completes a send that the engine never shared (an eager
// send, done as it is made): no lock is needed.
func (p *Proc) completeOwned(r *Request) {
	r.st = base.EmptyStatus
	if f := r.onDone; f != nil {
		r.onDone = nil
		f()
	}
	r.done.Store(1)
}

// complete marks r done. Caller holds mu. Storing done is the last write:
// from then on the waiter owns r and may recycle it.
func (p *Proc) complete(r *Request) {
	if r.onDone != nil {
		f := r.onDone
		r.onDone = nil
		f()
	}
	r.id = 0
	if r.counted {
		r.counted = false
		p.pending.Add(-1)
	}
	p.woke = true
	r.done.Store(1)
}

// cancel takes a posted receive back if it has not matched.
func (p *Proc) cancel(r *Request) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.op != opRecv || !p.match.Cancel(&r.rv) {
		return false
	}
	r.st = base.Status{Source: base.AnySource, Tag: base.AnyTag, Cancelled: true}
	p.complete(r)
	return true
}

// probe looks for an unexpected message matching (ctx, src, tag).
func (p *Proc) probe(c *Comm, src, tag int32) (base.Status, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drainLocked()
	m := p.match.Probe(match.Key{Ctx: c.ctx, Src: src, Tag: tag})
	if m == nil {
		return base.Status{}, false
	}
	return base.Status{Source: c.commRank(m.Src), Tag: int(m.Tag), Count: int(m.Size)}, true
}

func (p *Proc) lostErr(op string, r *Request) error {
	detail := fmt.Sprintf("rank %d has finalized or exited", r.comm.commRank(r.peer))
	if p.net != nil && r.peer >= 0 && p.locals[r.peer] < 0 {
		if d := p.net.lostDetail(r.peer); d != "" {
			detail = d
		}
	}
	return &base.Error{Op: op, Rank: r.comm.rank, Peer: r.comm.commRank(r.peer), Tag: int(r.tag), Err: base.ErrPeerLost,
		Detail: detail, Hint: base.HintPeerLost}
}
