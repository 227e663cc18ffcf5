package shm

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// Collective slots: the part of the segment where the ranks of one
// communicator that lives entirely on this host run collectives directly in
// shared memory (Open MPI's coll/sm does the same). A slot holds an arrival
// counter, a release generation that waiting ranks sleep on, and a scratch
// area in two halves, used by alternate collectives.
//
// The protocol of collective number k on a communicator of n ranks: write
// this rank's part into half k%2, arrive (the counter reaches (k+1)·n with
// the last arrival, which publishes generation k+1 and wakes sleepers), wait
// for generation k+1, read what the operation needs. Before anyone writes
// half k%2 again (collective k+2), everyone has arrived at collective k+1,
// after finishing its reads of collective k: no further synchronization is
// needed.

// CollSlots is the number of slots per host. Slot 0 belongs to the world.
const CollSlots = 8

// A rooted collective may release its readers before everyone has arrived:
// its root arrives and posts (Post), and the readers wait for that post
// (Posted) instead of for the release. Posting is the root's arrival made
// visible on its own; the arrival counter still counts it.

// CollCtl is the control block of a slot.
type CollCtl struct {
	owner    uint32 // 0 free, else 1 + the context of the owning communicator
	posted   uint32 // 1 + the last collective whose root has posted; a futex word
	psleep   int32  // ranks asleep on posted
	_        [116]byte
	arrive   uint64 // arrivals since the slot was claimed
	_        [120]byte
	gen      uint32 // collectives released; the futex word
	sleepers int32
	_        [120]byte
}

const collCtlSize = 384

func init() {
	if unsafe.Sizeof(CollCtl{}) != collCtlSize {
		panic("shm: collective control block size changed")
	}
}

// collScratch is the size of one half of a slot's scratch area for n ranks:
// 4 KiB per rank, at least 64 KiB (pages are touched only when used).
func collScratch(n int) int64 { return align(max(64<<10, int64(n)<<12), 4096) }

// CollScratchSize returns the bytes of one scratch half.
func (s *Segment) CollScratchSize() int { return int(collScratch(s.l.NRanks)) }

func (s *Segment) slotOff(i int) int64 {
	return s.l.slotOff + int64(i)*(collCtlSize+2*collScratch(s.l.NRanks))
}

// CollCtlAt returns the control block of slot i.
func (s *Segment) CollCtlAt(i int) *CollCtl { return (*CollCtl)(unsafe.Pointer(&s.mem[s.slotOff(i)])) }

// CollScratch returns half h of slot i's scratch area.
func (s *Segment) CollScratch(i, h int) []byte {
	size := collScratch(s.l.NRanks)
	start := s.slotOff(i) + collCtlSize + int64(h)*size
	return s.mem[start : start+size : start+size]
}

// ClaimCollSlot takes a free slot for the communicator with context ctx and
// resets it; -1 if none is free. Slot 0 is the world's: claim it with
// ClaimWorldSlot.
func (s *Segment) ClaimCollSlot(ctx uint32) int {
	for i := 1; i < CollSlots; i++ {
		c := s.CollCtlAt(i)
		if atomic.CompareAndSwapUint32(&c.owner, 0, ctx+1) {
			atomic.StoreUint64(&c.arrive, 0)
			atomic.StoreUint32(&c.gen, 0)
			atomic.StoreUint32(&c.posted, 0)
			return i
		}
	}
	return -1
}

// ReleaseCollSlot frees slot i.
func (s *Segment) ReleaseCollSlot(i int) {
	if i > 0 {
		atomic.StoreUint32(&s.CollCtlAt(i).owner, 0)
	}
}

// Arrive counts one arrival at collective k of a communicator of n ranks and
// reports whether it was the last; the last one releases the others.
func (c *CollCtl) Arrive(k uint64, n int) bool {
	if atomic.AddUint64(&c.arrive, 1) != (k+1)*uint64(n) {
		return false
	}
	atomic.StoreUint32(&c.gen, uint32(k+1))
	if atomic.LoadInt32(&c.sleepers) != 0 {
		futexWake(&c.gen)
	}
	return true
}

// Released reports whether collective k has been released.
func (c *CollCtl) Released(k uint64) bool { return atomic.LoadUint32(&c.gen) != uint32(k) }

// Sleep waits until collective k is released or d passes.
func (c *CollCtl) Sleep(k uint64, d time.Duration) {
	atomic.AddInt32(&c.sleepers, 1)
	if !c.Released(k) {
		futexWait(&c.gen, uint32(k), d)
	}
	atomic.AddInt32(&c.sleepers, -1)
}

// Post marks collective k as posted by its root and wakes the ranks asleep
// on it. The root calls it after writing what the readers need and after
// its Arrive.
func (c *CollCtl) Post(k uint64) {
	atomic.StoreUint32(&c.posted, uint32(k+1))
	if atomic.LoadInt32(&c.psleep) != 0 {
		futexWake(&c.posted)
	}
}

// Posted reports whether the root of collective k has posted.
func (c *CollCtl) Posted(k uint64) bool { return atomic.LoadUint32(&c.posted) == uint32(k+1) }

// SleepPost waits until collective k is posted or d passes.
func (c *CollCtl) SleepPost(k uint64, d time.Duration) {
	atomic.AddInt32(&c.psleep, 1)
	if v := atomic.LoadUint32(&c.posted); v != uint32(k+1) {
		futexWait(&c.posted, v, d)
	}
	atomic.AddInt32(&c.psleep, -1)
}
