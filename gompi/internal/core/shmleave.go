package core

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// A leave order of a led barrier other than "the leader first"
// (ShmLeadNext, shm.CollCtl.Lead): when ranks outnumber CPUs, which rank
// runs first after a release is up to the scheduler, and the collective
// after the barrier is fastest when the ranks whose data it reads have run
// first. ShmLeadLast(root): the root leaves last, once every other rank has
// left. For the collectives whose data flow to the root (Gather, Gatherv,
// Reduce): the contributors leave, write their blocks and arrive, and the
// root finds them posted instead of waiting, in its call, for each
// contributor to get a CPU. (Rank order for Scan and Exscan's chain, rank r
// leaving once rank r−1 has, and the last rank leaving last were tried and
// measured slower than rank 0 first: docs/PERFORMANCE.md, "Leave orders of
// the barrier after Gather, Gatherv and Reduce".)
//
// A rank marks that it has left barrier k by a word of its own at the end
// of the barrier's scratch half (the barrier writes only signatures, at the
// start): the half is written again at step k+2 only, which no rank begins
// before every rank has arrived at step k+1, that is, has left barrier k.
// The word holds a tag of k, so what an earlier step left there never
// counts (a chance match with data would only let the root leave early: the
// order is a matter of speed, the barrier is complete at the release).
// The wait comes after the release and never sleeps: where it would (a
// rank waited for does not know the order, after a failed call, or is
// descheduled for long), the root leaves anyway.

// Leave orders (Comm.shmOrd).
const (
	leaveFirst = iota // shmLead (if set) leaves first: shm.CollCtl.Lead
	leaveLast         // shmLead leaves last
)

// ShmLeadLast names the rank that leaves c's next barriers last, after every
// other rank (see ShmLeadNext for when barriers are led).
func (c *Comm) ShmLeadLast(rank int) { c.shmLead, c.shmOrd = rank+1, leaveLast }

// leaveTag is what a rank's leave word holds once it has left barrier k.
func leaveTag(k uint64) uint32 { return uint32(k)*2654435761 ^ 0x5bd1e995 }

// leaveWord returns rank r's leave word of step k: the last 4·size bytes
// of the step's half, rank by rank.
func (c *Comm) leaveWord(k uint64, r int) *uint32 {
	h := c.shmHalf(k)
	off := (len(h) - 4*c.size) &^ 63
	return (*uint32)(unsafe.Pointer(&h[off+4*r]))
}

// leaveOrdered orders this rank's leaving of barrier k, which is released,
// by c.shmOrd (nothing for leaveFirst, which shmStep handles, or where
// barriers are not led: see leader): the others mark that they have left,
// the root waits for their marks.
func (c *Comm) leaveOrdered(k uint64) error {
	if c.shmOrd != leaveLast || c.shmLead == 0 || c.size <= 2 || !c.p.opts.Oversubscribed || !c.p.opts.LedBarriers {
		return nil
	}
	tag := leaveTag(k)
	if c.rank != c.shmLead-1 {
		c.shmCtl().SetWord(c.leaveWord(k, c.rank), tag)
		return nil
	}
	done := func() bool {
		for r := range c.size {
			if r != c.rank && atomic.LoadUint32(c.leaveWord(k, r)) != tag {
				return false
			}
		}
		return true
	}
	gaveUp := false
	return c.shmWait(func() bool { return gaveUp || done() }, func(time.Duration) { gaveUp = true })
}
