package core

import (
	"time"

	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/gompi/internal/core/match"
	"github.com/gompi/gompi/internal/shm"
)

// The blocking receive's fast path over a fast box.
//
// A blocking receive from one named source on this host, into a buffer of
// at most BoxInlineRoomMax bytes (a larger buffer expects messages that
// come as cell references, for which the poll is only a detour), whose source has
// given this rank a fast box, is served by polling that box's next record
// directly: no request, no posting, no general progress loop. From the
// moment the box exists every message of that source is announced in it
// (box.go), so the box's next record is the source's next message. Under
// the rank's lock, after draining the queue (which a record never overtakes,
// as in drainBoxes), the record is handed to the receive if a posted
// receive would have taken it: no receive is posted at all (an earlier one
// could match it first) and no unexpected message matches the receive (it
// would take that one first) (match.NoneBefore). Anything else falls back
// to the general path, which posts the receive and drains as always,
// having consumed nothing: a record that does not match (another tag or
// context), one announcing a cell (larger messages, synchronous sends), a
// payload longer than the buffer (the general path reports the
// truncation), pending nonblocking work this thread would otherwise
// progress while it waits, another host's peers, and the end of the spin
// window (recvBoxSpin at most; the general wait then spins, yields, sleeps
// and checks liveness by the policy).
//
// The thread does not count as waiting (enterWait) while it polls: the
// progress goroutine keeps serving nonblocking operations another thread
// may start meanwhile. If another thread drains the box meanwhile (its own
// wait, a probe), the record it takes is matched or kept as unexpected as
// always, the box's read position moves, and this receive falls back to the
// general path, which finds the message there.

// recvBox is that fast path; ok false means the caller must take the
// general path (nothing was consumed). It looks at the clock and at the
// conditions every 256 polls (as backoff.due does while spinning).
func (c *Comm) recvBox(buf []byte, src, tag int, ctx uint32) (st base.Status, ok bool) {
	p := c.p
	if src < 0 || len(buf) > shm.BoxInlineRoomMax || p.net != nil || p.pol.spin == 0 {
		return st, false
	}
	w := c.members[src]
	if w == int32(p.rank) || p.busy() {
		return st, false
	}
	ib := p.inboxFrom(w)
	if ib == nil {
		return st, false
	}
	key := match.Key{Ctx: ctx, Src: w, Tag: int32(tag)}
	pos := ib.r.Pos()
	var polls int
	var start time.Time
	for {
		if ib.r.Ready() || p.seg.HeadReady(p.local) {
			switch p.takeBox(ib, key, buf, &st, &pos) {
			case boxTook:
				st.Source = src
				return st, true
			case boxFallBack:
				return st, false
			}
		} else if ib.r.Pos() != pos {
			return st, false // another thread consumed a record
		}
		polls++
		if polls&255 == 0 {
			if p.busy() || p.peerGone(w) {
				return st, false
			}
			now := time.Now()
			if start.IsZero() {
				start = now
			} else if now.Sub(start) >= min(p.pol.spin, recvBoxSpin) {
				return st, false
			}
		}
	}
}

// busy reports whether nonblocking work is pending that a waiting thread
// would progress: the fast path leaves such waits to the general one.
func (p *Proc) busy() bool {
	return p.pending.Load() != 0 || p.queued.Load() != 0 || p.hasStreams.Load() || p.nbc.n.Load() != 0
}

// inboxFrom returns the fast box world rank w writes to this rank, or nil.
func (p *Proc) inboxFrom(w int32) *inbox {
	boxes := *p.inboxes.Load()
	for i := range boxes {
		if boxes[i].src == w {
			return &boxes[i]
		}
	}
	return nil
}

const (
	boxNotYet   = iota // no record yet: keep polling
	boxTook            // the record was handed to the receive
	boxFallBack        // the general path must take the receive
)

// takeBox hands the next record of ib to the receive with key k and buffer
// buf if a posted receive would have taken it (see above), filling st's tag
// and count. It takes the rank's lock. When no record is there yet, it
// stores the box's read position in pos, read under the lock after the
// check: a later move means another thread consumed a record.
func (p *Proc) takeBox(ib *inbox, k match.Key, buf []byte, st *base.Status, pos *uint64) int {
	p.mu.Lock()
	p.drainQueue()
	res := boxFallBack
	if p.match.NoneBefore(k) {
		h, payload := ib.r.Next()
		switch {
		case h == nil:
			res = boxNotYet
			*pos = ib.r.Pos()
		case h.Kind == shm.BoxInline && h.Ctx == k.Ctx && (k.Tag == match.AnyTag || h.Tag == k.Tag) && len(payload) <= len(buf):
			st.Tag, st.Count = int(h.Tag), copy(buf, payload)
			ib.r.Done(h)
			p.seg.RingIfBoxFull(ib.owner)
			res = boxTook
		}
	}
	if p.woke {
		p.woke = false
		p.ringSelf()
	}
	p.mu.Unlock()
	return res
}

// recvBoxSpin bounds the fast path's polling: a peer that has not written
// by then is slow or descheduled, and the general wait, which spins by the
// policy before it yields and sleeps, takes over.
const recvBoxSpin = 50 * time.Microsecond
