package core

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gompi/gompi/gompi/internal/base"
)

// Waits of the pairwise steps (package gompi, shmcoll_pairwise.go), in which
// a rank arrives at its step right after writing its part and then waits
// only for the peers it exchanges with, word by word.

// ShmAwaitWordOrRelease waits until the word at w (in the scratch half of
// the step this rank last arrived at) holds v, or until that step is
// released (every member has arrived). It reports whether the word holds
// v: a member that arrives without setting the word ran another algorithm
// (ranks that disagree), and the caller must not wait for it further. It
// fails if the job aborts or a member is gone.
func (c *Comm) ShmAwaitWordOrRelease(w unsafe.Pointer, v uint32) (bool, error) {
	p := (*uint32)(w)
	if atomic.LoadUint32(p) == v {
		return true, nil
	}
	k, n := c.shmSeq-1, c.size
	ctl := c.shmCtl()
	err := c.shmWait(func() bool { return atomic.LoadUint32(p) == v || ctl.Released(k, n) }, func(d time.Duration) {
		if x := atomic.LoadUint32(p); x != v && !ctl.Released(k, n) {
			ctl.SleepWord(p, x, d) // a release does not wake it: the nap bounds the wait
		}
	})
	return atomic.LoadUint32(p) == v, err
}

// ShmAwaitCountFrom is ShmAwaitCount for a counter that only member peer
// sets: it fails if the job aborts, the wait times out, or peer is gone
// with the counter short, but not when another member is gone (one that
// finished its part of a pairwise exchange and left).
func (c *Comm) ShmAwaitCountFrom(w unsafe.Pointer, v uint32, peer int) error {
	q := (*uint32)(w)
	reached := func() bool { return int32(atomic.LoadUint32(q)-v) >= 0 }
	if reached() {
		return nil
	}
	ctl := c.shmCtl()
	pr := c.p
	pr.enterWait()
	defer pr.leaveWait()
	var b backoff
	for !reached() {
		if !b.pausing(pr) {
			continue
		}
		if x := atomic.LoadUint32(q); int32(x-v) < 0 {
			ctl.SleepWord(q, x, pr.pol.nap)
		}
		if reached() {
			break
		}
		if err := pr.check(nil, b.start); err != nil {
			return err
		}
		if pr.peerGone(c.members[peer]) {
			return &base.Error{Op: "collective", Rank: c.rank, Peer: peer, Tag: -1, Err: base.ErrPeerLost,
				Detail: fmt.Sprintf("rank %d left while rank %d waited for it in a collective", peer, c.rank),
				Hint:   base.HintPeerLost}
		}
	}
	return nil
}

// ShmAddWord adds d to the word at w (in ShmScratch) and wakes the ranks
// waiting on it (ShmAwaitChange).
func (c *Comm) ShmAddWord(w unsafe.Pointer, d uint32) {
	c.shmCtl().AddWord((*uint32)(w), d)
}

// ShmAwaitChange waits until the word at w (in ShmScratch) no longer holds
// old or, with release, until the step this rank last arrived at is
// released; it reports whether that step is released. It fails if the job
// aborts, the wait times out, or one of peers (members) is gone, but not
// when another member is gone (one that finished its part and left).
func (c *Comm) ShmAwaitChange(w unsafe.Pointer, old uint32, peers []int, release bool) (bool, error) {
	q := (*uint32)(w)
	k, n := c.shmSeq-1, c.size
	ctl := c.shmCtl()
	done := func() bool { return atomic.LoadUint32(q) != old || release && ctl.Released(k, n) }
	if done() {
		return ctl.Released(k, n), nil
	}
	pr := c.p
	pr.enterWait()
	defer pr.leaveWait()
	var b backoff
	for !done() {
		if !b.pausing(pr) {
			continue
		}
		if !done() {
			ctl.SleepWord(q, old, pr.pol.nap) // a release does not wake it: the nap bounds that wait
		}
		if done() {
			break
		}
		if err := pr.check(nil, b.start); err != nil {
			return false, err
		}
		for _, r := range peers {
			if pr.peerGone(c.members[r]) {
				return false, &base.Error{Op: "collective", Rank: c.rank, Peer: r, Tag: -1, Err: base.ErrPeerLost,
					Detail: fmt.Sprintf("rank %d left while rank %d waited for it in a collective", r, c.rank),
					Hint:   base.HintPeerLost}
			}
		}
	}
	return ctl.Released(k, n), nil
}
