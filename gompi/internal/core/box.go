package core

import (
	"sync"
	"sync/atomic"

	"github.com/gompi/gompi/gompi/internal/core/match"
	"github.com/gompi/gompi/internal/shm"
)

// boxAfter is how many messages a rank sends a peer through the queue before
// it gives that peer a fast box (Open MPI's vader waits for 16 as well): a
// box costs segment space, so only the pairs that talk often get one.
const boxAfter = 16

// peerOut is this rank's sending state towards one peer.
type peerOut struct {
	mu    sync.Mutex // serializes sends to the peer; guards the fields below
	sent  int        // messages sent through the queue
	box   *shm.BoxWriter
	noBox bool     // no box can be had: stop trying
	queue reqQueue // sends waiting for credits, in order (sendq.go)

	hasQueue atomic.Bool   // queue is not empty
	lack     atomic.Uint32 // what the queue's head waits for (a sendResult)
}

// inbox is a fast box this rank reads.
type inbox struct {
	src   int32 // world rank of the writer
	owner int   // the writer's index in the segment
	r     *shm.BoxReader
}

// setupBox gives the peer (world rank w, segment index li) one of this rank's
// boxes and announces it through the queue, so that everything sent through
// the queue before it is handled before anything sent through the box.
// Without a free cell for the announcement it does nothing: the next send
// tries again. Caller holds o.mu.
func (p *Proc) setupBox(o *peerOut, w int32, li int) {
	cell, ok := p.takeCell()
	if !ok {
		return
	}
	p.mu.Lock()
	if p.boxesUsed >= shm.BoxesPerRank || !p.seg.ClaimInbound(li) {
		p.free = append(p.free, cell)
		p.mu.Unlock()
		o.noBox = true
		return
	}
	off := p.seg.BoxOffset(p.local, p.boxesUsed)
	p.boxesUsed++
	p.mu.Unlock()
	c := p.seg.CellAt(cell)
	c.Kind = kindBoxSetup
	c.Src = int32(p.rank)
	c.Addr = uint64(off)
	p.seg.Push(li, cell)
	o.box = p.seg.NewBoxWriter(off)
}

// addInbox starts reading the box at off, written by world rank src.
// Caller holds mu.
func (p *Proc) addInbox(src int32, off int64) {
	old := *p.inboxes.Load()
	next := make([]inbox, len(old)+1)
	copy(next, old)
	next[len(old)] = inbox{src: src, owner: int(p.locals[src]), r: p.seg.NewBoxReader(off)}
	p.inboxes.Store(&next)
}

// boxesReady reports whether a record waits in any box.
func (p *Proc) boxesReady() bool {
	for i := range *p.inboxes.Load() {
		if (*p.inboxes.Load())[i].r.Ready() {
			return true
		}
	}
	return false
}

// drainBoxes handles the records waiting in the boxes. Caller holds mu.
//
// Before each record it drains the queue again: a message its writer pushed
// through the queue before writing the record (before the box existed, or
// by another path) was published before the record's stamp, so it is visible
// now, and it must be matched first. Looking at the queue only before
// looking at the boxes is not enough: both may be written between the two
// looks.
func (p *Proc) drainBoxes() {
	boxes := *p.inboxes.Load()
	for i := range boxes {
		b := &boxes[i]
		k := 0
		for ; k < 64; k++ {
			h, payload := b.r.Next()
			if h == nil {
				break
			}
			p.drainQueue()
			if h.Kind == shm.BoxCellRef {
				p.seg.TouchCell(h.CellOff)
				p.handle(h.CellOff)
			} else if rv := p.match.Arrive(match.Key{Ctx: h.Ctx, Src: b.src, Tag: h.Tag}); rv != nil {
				p.finishRecv(rv.Owner, b.src, h.Tag, int64(len(payload)), payload)
			} else {
				m := newMessage(h.Ctx, b.src, h.Tag, int64(len(payload)), kindEager)
				m.data = append([]byte(nil), payload...)
				p.match.Keep(&m.Msg)
			}
			b.r.Done(h)
		}
		if k > 0 {
			p.seg.RingIfBoxFull(b.owner)
		}
	}
}

// sendInline is the fast path of a blocking send that fits in one record of
// a fast box the peer (world rank w) already has: no request, no cell. It
// reports false, having done nothing, whenever the general path is needed
// (no box yet, box full, self, another host, peer gone), which then does all
// the work and the error handling.
func (p *Proc) sendInline(w int32, buf []byte, tag int32, ctx uint32) bool {
	if w == int32(p.rank) {
		return false
	}
	li := p.locals[w]
	if li < 0 || p.peerGone(w) {
		return false
	}
	o := &p.out[w]
	o.mu.Lock()
	ok := o.box != nil && o.queue.head == nil && o.box.Write(shm.BoxInline, tag, ctx, 0, buf)
	o.mu.Unlock()
	if ok {
		p.seg.Ring(int(li))
	}
	return ok
}
