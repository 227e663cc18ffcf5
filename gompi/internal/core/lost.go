package core

import "github.com/gompi/gompi/gompi/internal/core/match"

// A peer that is gone (it died, exited or finalized; over TCP, its
// connection ended) fails every request still waiting on it, at once, not
// only the one a thread happens to wait for: a program that polls its
// requests with Test or Done learns of the loss as soon as the engine does.
// The engine learns of it when its rank is marked dead in the segment (the
// launcher then rings every rank) or when the connection breaks, and
// sweepLost runs from the progress goroutine and from waiting threads after
// each sleep.

// maxSweepDeferrals bounds how many sweeps wait for a cell being linked in
// this rank's queue before the lost peers' requests fail all the same.
const maxSweepDeferrals = 100

// sweepLost fails the pending requests of the peers found gone since the
// last sweep. Caller holds neither p.mu nor a peer's lock.
//
// Only the peers found gone before the drain below are swept: a peer found
// gone after it may have pushed its last message just before it went, after
// the drain looked, and that message must match (the next sweep takes it).
func (p *Proc) sweepLost() {
	var fresh []int32
	for w := range p.swept {
		if w != p.rank && !p.swept[w].Load() && p.peerGone(int32(w)) {
			fresh = append(fresh, int32(w))
		}
	}
	if len(fresh) == 0 {
		return
	}
	p.pushQueued() // fails the queued sends of gone peers
	p.mu.Lock()
	defer p.mu.Unlock()
	// What the peers sent before they went is still theirs: drain the queue
	// and the boxes whole (drainLocked takes a bounded batch of each, and
	// a receive posted later for a swept peer fails at once if nothing it
	// matches was drained). A cell still being linked
	// (Pop gives up on it for now) may hide a gone peer's last message
	// behind it, so the sweep waits for a later round while that lasts;
	// after many rounds the pusher is taken to have died mid-push.
	for i := 0; i < 64; i++ {
		p.drainLocked()
		if p.seg.Empty(p.local) && !p.boxesReady() {
			break
		}
	}
	if !p.seg.Empty(p.local) && p.sweepDeferred < maxSweepDeferrals {
		p.sweepDeferred++
		return
	}
	p.sweepDeferred = 0
	for _, w := range fresh {
		p.swept[w].Store(true)
	}
	isFresh := func(w int32) bool {
		for _, x := range fresh {
			if x == w {
				return true
			}
		}
		return false
	}
	// Matching fails the posted receives that name a fresh peer, and the
	// AnySource ones whose communicator has no other member left; it also
	// fails at once any later receive that names one.
	var failed []*match.Recv[*Request]
	for _, w := range fresh {
		failed = p.match.PeerLost(w, failed)
	}
	for _, rv := range failed {
		r := rv.Owner
		r.err = p.lostErr("Recv", r)
		p.complete(r)
	}
	for id, r := range p.inflight {
		if r.peer < 0 || !isFresh(r.peer) {
			continue
		}
		delete(p.inflight, id)
		if r.streams {
			p.dropStream(r)
		}
		r.err = p.lostErr(opName(r), r)
		p.complete(r)
	}
	if p.woke {
		p.woke = false
		p.ringSelf()
	}
}

// dropStream takes the pipelined send r off the stream list. Caller holds mu.
func (p *Proc) dropStream(r *Request) {
	for i, s := range p.streams {
		if s == r {
			p.streams = append(p.streams[:i], p.streams[i+1:]...)
			break
		}
	}
	r.streams = false
	p.hasStreams.Store(len(p.streams) > 0)
}
